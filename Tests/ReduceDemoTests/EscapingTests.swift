import Foundation
import ReduceExecutableSupport
import Testing

@testable import reduce_demo

/// Whether a terminal may act on a scalar instead of showing it: C0, DEL or C1.
private func isControl(_ scalar: Unicode.Scalar) -> Bool {
  scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
}

@Suite struct EscapingTests {
  @Test(
    "control characters are written as \\u{..} escapes, everything else is kept",
    arguments: [
      ("Buy milk", "Buy milk"),
      ("\u{1B}[2J\u{1B}[H", "\\u{1B}[2J\\u{1B}[H"),
      ("bell\u{07}", "bell\\u{07}"),
      ("nul\u{0}", "nul\\u{00}"),
      ("tab\there", "tab\\u{09}here"),
      ("line\r\nbreak", "line\\u{0D}\\u{0A}break"),
      ("del\u{7F}", "del\\u{7F}"),
      ("csi\u{9B}31m nel\u{85}", "csi\\u{9B}31m nel\\u{85}"),
      ("no-break\u{A0}space, café, 😀", "no-break\u{A0}space, café, 😀"),
      ("C:\\temp", "C:\\temp"),
    ])
  func escapesControlCharacters(text: String, shown: String) {
    #expect(text.escapingControlCharacters() == shown)
  }

  @Test(
    "titles from the state file, a script and load FILE reach the terminal escaped",
    .timeLimit(.minutes(1)))
  func titlesAreEscapedOnTheTerminal() throws {
    let files = try DemoFiles()
    defer { files.clean() }
    // A title that would clear the screen and set the window title, saved by someone else.
    try files.writeState(
      """
      {"version": 1, "nextID": 2, "items": [
        {"id": 1, "title": "Milk\\u001b[2J\\u001b]0;pwned\\u0007", "done": false}]}
      """)
    let loadFile = files.directory.appendingPathComponent("items.txt").path
    try Data("Eggs\u{9B}8m hidden\u{7F}\n".utf8).write(to: URL(fileURLWithPath: loadFile))
    let result = try files.runDemo(script: [
      "add Bread\u{1B}[31m red",
      "rename 2 Bread\u{07}\u{08}",
      "load \(loadFile)",
      "frobnicate\u{1B}c",
      "log 2",
    ])
    result.checkSucceeded()
    let output = files.normalized(result.standardOutput)
    #expect(!output.unicodeScalars.contains { isControl($0) && $0 != "\n" })
    for expected in [
      "  1. [ ] Milk\\u{1B}[2J\\u{1B}]0;pwned\\u{07}\n",
      "> add Bread\\u{1B}[31m red\nAdded \"Bread\\u{1B}[31m red\".\n",
      "Renamed to \"Bread\\u{07}\\u{08}\".\n",
      "* 2. [ ] Bread\\u{07}\\u{08}\n",
      "  3. [ ] Eggs\\u{9B}8m hidden\\u{7F}\n",
      "error: unknown command \"frobnicate\\u{1B}c\"; type help for the list\n",
      "\"titles\":[\"Eggs\\u{9B}8m hidden\\u{7F}\"]",
    ] {
      #expect(output.contains(expected))
    }
  }
}
