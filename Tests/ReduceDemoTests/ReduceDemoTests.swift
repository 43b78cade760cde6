import Foundation
import ReduceExecutableSupport
import Testing

/// Runs the built `reduce-demo` and `reduce-audit` executables.
enum Executable {
  /// The variables every run of the demo gets: no simulated delay for `load`, and an autosave
  /// debounce longer than any test, so that the save happens exactly once, when the demo
  /// flushes it at the end of its input (or saves for a stop signal).
  static let environment = ["REDUCE_DEMO_LOAD_DELAY_MS": "0", "REDUCE_DEMO_AUTOSAVE_MS": "60000"]

  /// Runs an executable to its end, with `input` on its standard input (empty when nil) and
  /// `environment` added to ``environment``.
  static func run(
    _ name: String, _ arguments: [String], input: String? = nil,
    environment: [String: String] = [:]
  ) throws -> ExecutableRun {
    try Executables.run(
      name, arguments, input: input,
      environment: Self.environment.merging(environment) { $1 })
  }
}

/// Fresh paths in the temporary directory for one run of the demo, removed by `clean()`.
struct DemoFiles {
  let directory: URL

  init() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("reduce-demo-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  var state: String { directory.appendingPathComponent("todos.json").path }
  var log: String { directory.appendingPathComponent("audit.log").path }
  var script: String { directory.appendingPathComponent("script.txt").path }

  /// Writes the state file.
  func writeState(_ text: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: state))
  }

  /// The state file's bytes.
  func stateBytes() throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: state))
  }

  /// The saved list in the state file.
  func savedList() throws -> SavedList {
    try JSONDecoder().decode(SavedList.self, from: stateBytes())
  }

  /// Runs the demo on a script with these files.
  func runDemo(script lines: [String]) throws -> ExecutableRun {
    try Data((lines.joined(separator: "\n") + "\n").utf8)
      .write(to: URL(fileURLWithPath: script))
    return try Executable.run(
      "reduce-demo", ["--script", script, "--state", state, "--log", log])
  }

  /// The demo's output with the paths of these files replaced by `STATE` and `LOG`.
  func normalized(_ output: String) -> String {
    output.replacingOccurrences(of: state, with: "STATE").replacingOccurrences(of: log, with: "LOG")
  }

  func clean() {
    try? FileManager.default.removeItem(at: directory)
  }
}

/// A saved list, as the demo writes it.
struct SavedList: Decodable, Equatable {
  struct Item: Decodable, Equatable {
    var id: Int
    var title: String
    var done: Bool
  }

  var version: Int
  var nextID: Int
  var items: [Item]
}

@Suite struct ReduceDemoTests {
  @Test(
    "a script of every command, bad input included, prints the expected session",
    .timeLimit(.minutes(1)))
  func everyCommandSession() throws {
    let files = try DemoFiles()
    defer { files.clean() }
    let result = try files.runDemo(script: everyCommand)
    #expect(result.status == 0)
    #expect(result.standardError == "")
    #expect(files.normalized(result.standardOutput) == everyCommandTranscript)
  }

  @Test("the autosave writes the final list as JSON", .timeLimit(.minutes(1)))
  func autosaveWritesOnce() throws {
    let files = try DemoFiles()
    defer { files.clean() }
    _ = try files.runDemo(script: everyCommand)
    let saved = try JSONDecoder().decode(
      SavedList.self, from: Data(contentsOf: URL(fileURLWithPath: files.state)))
    #expect(
      saved
        == SavedList(
          version: 1, nextID: 7,
          items: [
            .init(id: 1, title: "Buy oat milk and eggs", done: false),
            .init(id: 2, title: "Call Ada", done: true),
            .init(id: 3, title: "Water the plants", done: false),
            .init(id: 4, title: "Read Guides/Concepts.md", done: false),
            .init(id: 5, title: "Rename an item twice, then undo once", done: false),
            .init(id: 6, title: "Run reduce-audit verify on the log", done: false),
          ]))
  }

  @Test(
    "the audit log records only changes of the list, no UI or autosave actions",
    .timeLimit(.minutes(1)))
  func auditLogHoldsDomainActionsOnly() throws {
    let files = try DemoFiles()
    defer { files.clean() }
    let demo = try files.runDemo(script: everyCommand)
    #expect(demo.status == 0)
    struct Entry: Decodable {
      var action: String
      var payload: [String: AnyDecodable]?
    }
    struct AnyDecodable: Decodable {}
    let entries = try String(contentsOfFile: files.log, encoding: .utf8)
      .split(separator: "\n")
      .map { try JSONDecoder().decode(Entry.self, from: Data($0.utf8)) }
    // 9 edits, 3 undo and redo steps, the loaded starter list.
    #expect(entries.count == 13)
    for entry in entries {
      switch entry.action {
      case "TodoAction", "ReplaceState<AppState>": break
      case "LoadAction": #expect(entry.payload?.keys.sorted() == ["succeeded"])
      default: Issue.record("the audit log holds a \(entry.action)")
      }
    }
  }

  @Test("a second run with the same --state reloads the saved list", .timeLimit(.minutes(1)))
  func secondRunReloads() throws {
    let files = try DemoFiles()
    defer { files.clean() }
    let first = try files.runDemo(script: ["add Milk", "add Eggs", "done 1"])
    #expect(first.status == 0)
    let second = try files.runDemo(script: ["add Bread"])
    #expect(second.status == 0)
    let lines = files.normalized(second.standardOutput).split(separator: "\n")
    // A run that failed early printed less: fail the test, not the whole test process.
    try #require(lines.count > 5, "\(second.standardError)")
    #expect(lines[1] == "List: STATE (reloaded 2 items)")
    #expect(
      Array(lines[3...5]) == [
        "  1. [x] Milk", "  2. [ ] Eggs",
        "2 items, 1 open, 1 done | filter: all | can undo (Done) | cannot redo",
      ])
    #expect(lines.contains("* 3. [ ] Bread"))
    #expect(lines.contains("Saved 3 items to STATE."))
  }

  @Test(
    "the undo history is saved with the list: undo in a second run undoes the first run's edit",
    .timeLimit(.minutes(1)))
  func undoSurvivesRestart() throws {
    let files = try DemoFiles()
    defer { files.clean() }
    let first = try files.runDemo(script: ["add Milk", "add Eggs", "done 1"])
    #expect(first.status == 0)
    let second = try files.runDemo(script: ["history", "undo", "undo"])
    #expect(second.status == 0, "\(second.standardError)")
    let output = files.normalized(second.standardOutput)
    #expect(
      output.contains(
        "History: 3 steps to undo (next: Done); nothing to redo. At most 100 steps are kept."))
    #expect(output.contains("Undid Done.\n  1. [ ] Milk\n  2. [ ] Eggs\n"))
    #expect(output.contains("Undid Add.\n  1. [ ] Milk\n1 item, 1 open, 0 done"))
    #expect(try files.savedList().items.map(\.title) == ["Milk"])
    // The history went on to the file again: a third run can redo what the second undid.
    let third = try files.runDemo(script: ["redo"])
    #expect(files.normalized(third.standardOutput).contains("Redid Add."))
    #expect(try files.savedList().items.map(\.title) == ["Milk", "Eggs"])
  }

  @Test("reduce-audit verify accepts the audit log the demo wrote", .timeLimit(.minutes(1)))
  func auditLogVerifies() throws {
    let files = try DemoFiles()
    defer { files.clean() }
    let demo = try files.runDemo(script: everyCommand)
    #expect(demo.status == 0)
    let verify = try Executable.run("reduce-audit", ["verify", files.log])
    #expect(verify.status == 0)
    #expect(verify.standardOutput.hasSuffix(", chain intact\n"))
  }

  @Test("end of standard input saves the list and exits 0", .timeLimit(.minutes(1)))
  func endOfInputSaves() throws {
    let files = try DemoFiles()
    defer { files.clean() }
    let result = try Executable.run(
      "reduce-demo", ["--state", files.state, "--log", files.log], input: "add Milk\nadd Eggs\n")
    #expect(result.status == 0)
    #expect(
      files.normalized(result.standardOutput).hasSuffix(
        "Saved 2 items to STATE.\nAudit log: LOG (check it: reduce-audit verify LOG)\n"))
    let saved = try JSONDecoder().decode(
      SavedList.self, from: Data(contentsOf: URL(fileURLWithPath: files.state)))
    #expect(saved.items.map(\.title) == ["Milk", "Eggs"])
  }

  @Test(
    "a bad command line prints the usage on standard error and exits 64",
    arguments: [["--frobnicate"], ["--state"], ["--log", "--script"], ["stray"]])
  func badCommandLine(arguments: [String]) throws {
    let result = try Executable.run("reduce-demo", arguments)
    #expect(result.status == 64)
    #expect(result.standardOutput == "")
    #expect(
      result.standardError.hasSuffix(
        "usage: reduce-demo [--script FILE] [--state FILE] [--log FILE]\n"))
  }

  @Test(
    "a --state in a missing directory stops the demo before it reads a command",
    .timeLimit(.minutes(1)))
  func unwritableStateStops() throws {
    let files = try DemoFiles()
    defer { files.clean() }
    let missing = files.directory.appendingPathComponent("missing/todos.json").path
    let result = try Executable.run(
      "reduce-demo", ["--state", missing, "--log", files.log], input: "add Milk\n")
    #expect(result.status == 1)
    #expect(result.standardOutput == "")
    #expect(result.standardError.contains("cannot save the list to \(missing)"))
  }

  @Test(
    "a state file that is not a saved list stops the demo and is left as it was",
    .timeLimit(.minutes(1)))
  func corruptStateFileIsKept() throws {
    let files = try DemoFiles()
    defer { files.clean() }
    try Data("not json".utf8).write(to: URL(fileURLWithPath: files.state))
    let result = try files.runDemo(script: ["add Milk"])
    #expect(result.status == 1)
    #expect(result.standardError.contains("is not a saved to-do list"))
    #expect(try String(contentsOfFile: files.state, encoding: .utf8) == "not json")
  }
}
