import Foundation
import ReduceExecutableSupport
import Testing

/// A state file the demo must refuse, and the sentence it must refuse it with.
struct BadStateFile: CustomTestStringConvertible, Sendable {
  /// What is wrong, for the test's name.
  var testDescription: String
  /// The file's text.
  var text: String
  /// What the demo says after "STATE is not a saved to-do list: ".
  var problem: String
}

/// Files whose ids would overflow or collide.
let inconsistentFiles = [
  BadStateFile(
    testDescription: "an id of Int.max",
    text: """
      {
        "items" : [
          { "done" : false, "id" : 9223372036854775807, "title" : "Milk" }
        ],
        "nextID" : 1,
        "version" : 1
      }
      """,
    problem: "line 3, item 1 has the id 9223372036854775807; ids run from 1 to 999999999"),
  BadStateFile(
    testDescription: "a nextID of Int.max",
    text: """
      {
        "items" : [
          { "done" : false, "id" : 1, "title" : "Milk" }
        ],
        "nextID" : 9223372036854775807,
        "version" : 1
      }
      """,
    problem: "line 5, nextID is 9223372036854775807; it must be from 1 to 1000000000"),
  BadStateFile(
    testDescription: "two items with one id",
    text: """
      {
        "items" : [
          { "done" : false, "id" : 1, "title" : "Milk" },
          { "done" : false, "id" : 1, "title" : "Eggs" }
        ],
        "nextID" : 2,
        "version" : 1
      }
      """,
    problem: "line 4, items 1 and 2 both have the id 1; ids must differ"),
  BadStateFile(
    testDescription: "an id of 0",
    text: """
      {"version": 1, "nextID": 2, "items": [{"id": 1, "title": "Milk", "done": false},
        {"id": 0, "title": "Eggs", "done": true}]}
      """,
    problem: "line 2, item 2 has the id 0; ids run from 1 to 999999999"),
  BadStateFile(
    testDescription: "a negative id",
    text: """
      {"version": 1, "nextID": 2, "items": [{"id": -4, "title": "Milk", "done": false}]}
      """,
    problem: "line 1, item 1 has the id -4; ids run from 1 to 999999999"),
  BadStateFile(
    testDescription: "a nextID not above every id",
    text: """
      {
        "items" : [
          { "done" : false, "id" : 1, "title" : "Milk" },
          { "done" : false, "id" : 5, "title" : "Eggs" }
        ],
        "nextID" : 5,
        "version" : 1
      }
      """,
    problem: "line 6, nextID is 5, but item 2 has the id 5; nextID must be greater than every id"),
]

/// Files that are not a saved list at all.
let undecodableFiles = [
  BadStateFile(
    testDescription: "no items",
    text: "{\n  \"nextID\" : 1,\n  \"version\" : 1\n}\n",
    problem: "line 1, the value for \"items\" is missing"),
  BadStateFile(
    testDescription: "an item without a title",
    text: """
      {
        "items" : [
          { "done" : false, "id" : 1, "title" : "Milk" },
          { "done" : false, "id" : 2 }
        ],
        "nextID" : 3,
        "version" : 1
      }
      """,
    problem: "line 4, the value for \"title\" is missing in item 2 of \"items\""),
  BadStateFile(
    testDescription: "a nextID in quotes",
    text: "{\n  \"items\" : [],\n  \"nextID\" : \"2\",\n  \"version\" : 1\n}\n",
    problem: "line 3, the value for \"nextID\" is not a whole number"),
  BadStateFile(
    testDescription: "a null title",
    text:
      "{\"version\": 1, \"nextID\": 2,\n\"items\": [{\"id\": 1, \"title\": null, \"done\": false}]}",
    problem:
      "line 2, the value for \"title\" of item 1 of \"items\" is null instead of a text in quotes"),
  BadStateFile(
    testDescription: "a list instead of an object",
    text: "[\"Milk\", \"Eggs\"]\n",
    problem: "line 1, the file should hold an object in { }"),
  BadStateFile(
    testDescription: "a missing comma",
    text: "{\n  \"items\" : []\n  \"nextID\" : 1,\n  \"version\" : 1\n}\n",
    problem: "it is not JSON at line 3, column 3 (expected \",\" or \"}\")"),
  BadStateFile(
    testDescription: "text that is not JSON",
    text: "Milk\nEggs\n",
    problem: "it is not JSON at line 1, column 1 (expected a value)"),
  BadStateFile(
    testDescription: "a file cut short",
    text: "{\n  \"items\" : [\n    { \"done\" : false, \"id\" : 1, \"tit",
    problem: "it is not JSON at line 3, column 37 (the file ends too early)"),
  BadStateFile(testDescription: "an empty file", text: "", problem: "the file is empty"),
]

@Suite struct StateFileTests {
  @Test(
    "a state file whose ids could overflow or collide is refused in one sentence and kept as it was",
    .timeLimit(.minutes(1)), arguments: inconsistentFiles)
  func inconsistentFileIsRefused(file: BadStateFile) throws {
    try checkRefused(file)
  }

  @Test(
    "a state file that does not decode is refused with what is wrong and where, not a dump",
    .timeLimit(.minutes(1)), arguments: undecodableFiles)
  func undecodableFileIsRefused(file: BadStateFile) throws {
    try checkRefused(file)
  }

  /// Runs a script that would change and save the list, and checks that the demo refused the
  /// file before it: status 1, one sentence on standard error, the file byte for byte as it was.
  private func checkRefused(_ file: BadStateFile) throws {
    let files = try DemoFiles()
    defer { files.clean() }
    try files.writeState(file.text)
    let result = try files.runDemo(script: ["add Bread", "remove 1", "done 1"])
    #expect(result.status == 1)
    #expect(result.standardOutput == "")
    #expect(
      files.normalized(result.standardError)
        == "reduce-demo: STATE is not a saved to-do list: \(file.problem); pass another --state FILE\n"
    )
    #expect(try files.stateBytes() == Data(file.text.utf8))
  }

  @Test(
    "a list whose ids ran out refuses add and load instead of overflowing, and stays as it was",
    .timeLimit(.minutes(1)))
  func exhaustedIDsRefuseNewItems() throws {
    let files = try DemoFiles()
    defer { files.clean() }
    let text = """
      {"version": 1, "nextID": 1000000000,
       "items": [{"id": 999999999, "title": "Milk", "done": false}]}
      """
    try files.writeState(text)
    let result = try files.runDemo(script: ["add Bread", "load"])
    result.checkSucceeded()
    let output = files.normalized(result.standardOutput)
    #expect(
      output.contains(
        "> add Bread\nerror: the list has used up its item ids; keep a new list with --state FILE\n"
      ))
    #expect(
      output.contains(
        "Could not load the starter list: the list has item ids left for 0 items only.\n"))
    #expect(output.contains("Nothing changed; STATE was not written.\n"))
    #expect(try files.stateBytes() == Data(text.utf8))
  }

  @Test("a saved list with the largest ids allowed is read back as it was", .timeLimit(.minutes(1)))
  func largestIDsRoundTrip() throws {
    let files = try DemoFiles()
    defer { files.clean() }
    try files.writeState(
      """
      {"version": 1, "nextID": 999999999,
       "items": [{"id": 999999998, "title": "Milk", "done": false}]}
      """)
    try files.runDemo(script: ["add Bread"]).checkSucceeded()
    let saved = try files.savedList()
    #expect(saved.nextID == 1_000_000_000)
    #expect(saved.items.map(\.id) == [999_999_998, 999_999_999])
    try files.runDemo(script: ["remove 1"]).checkSucceeded()
    #expect(try files.savedList().items.map(\.title) == ["Bread"])
  }
}
