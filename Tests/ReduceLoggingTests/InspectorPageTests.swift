import Foundation
import ReduceExecutableSupport
import ReduceLogging
import Testing

/// A page that `reduce-audit html` wrote, read back as a file.
///
/// What the page does in a browser is checked by Scripts/inspector-check.sh, in headless
/// Chromium.
struct InspectorPageFile {
  /// The embedded logs: each one's `data-name` and decoded bytes, in the page's order.
  var logs: [(name: String, bytes: Data)]
  /// The whole page.
  var text: String

  init(path: String) throws {
    text = try String(contentsOfFile: path, encoding: .utf8)
    logs = []
    let opening = "<script type=\"application/octet-stream\" class=\"log-file\" data-name=\""
    var rest = text[...]
    while let start = rest.range(of: opening) {
      let afterName = try #require(rest[start.upperBound...].range(of: "\""))
      let name = String(rest[start.upperBound..<afterName.lowerBound])
      let contentStart = try #require(rest[afterName.upperBound...].range(of: ">"))
      let end = try #require(rest[contentStart.upperBound...].range(of: "</script>"))
      let base64 = String(rest[contentStart.upperBound..<end.lowerBound])
      logs.append((name, try #require(Data(base64Encoded: base64))))
      rest = rest[end.upperBound...]
    }
  }
}

@Suite struct InspectorPageTests {
  @Test("html embeds each log's exact bytes, in the order given", .timeLimit(.minutes(1)))
  func embedsExactBytes() throws {
    let first = try writeChainedLog(count: 3, name: "first")
    let second = try writeChainedLog(count: 2, name: "second")
    let page = temporaryLogPath() + ".html"
    defer { [first, second, page].forEach(removeLog) }
    let result = try AuditCommand.run(["html", first, second, "-o", page])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput == "\(page): 5 lines in 2 files; open it in a browser\n")
    let file = try InspectorPageFile(path: page)
    #expect(file.logs.map(\.name) == [first, second])
    #expect(
      file.logs.map(\.bytes) == [first, second].map { FileManager.default.contents(atPath: $0) })
  }

  @Test("the page loads nothing from the network", .timeLimit(.minutes(1)))
  func selfContained() throws {
    let log = try writeChainedLog(count: 2)
    let page = log + ".html"
    defer { [log, page].forEach(removeLog) }
    #expect(try AuditCommand.run(["html", log, "-o", page]).status == 0)
    let text = try InspectorPageFile(path: page).text
    #expect(
      text.contains(
        "content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\""))
    for reference in ["src=", "<link", "@import", "url(", "http://", "https://", "fetch("] {
      #expect(!text.contains(reference), "\(reference)")
    }
  }

  @Test("a log's text that looks like markup is embedded as bytes", .timeLimit(.minutes(1)))
  func markupInTheLog() throws {
    let log = temporaryLogPath()
    let page = log + ".html"
    defer { [log, page].forEach(removeLog) }
    let line = #"{"seq":1,"prev":"0","ts":"2024-05-01T12:00:00.000Z","action":"</script><b>x</b>"}"#
    try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: log))
    #expect(try AuditCommand.run(["html", log, "-o", page]).status == 0)
    let file = try InspectorPageFile(path: page)
    #expect(file.logs.first?.bytes == Data((line + "\n").utf8))
    #expect(!file.text.contains("<b>x</b>"))
  }

  @Test("a file name is escaped in the page", .timeLimit(.minutes(1)))
  func escapedName() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("inspector-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let log = directory.appendingPathComponent(#"a<b>&"c'.log"#).path
    try Data("{}\n".utf8).write(to: URL(fileURLWithPath: log))
    let page = directory.appendingPathComponent("page.html").path
    #expect(try AuditCommand.run(["html", log, "-o", page]).status == 0)
    let text = try InspectorPageFile(path: page).text
    #expect(text.contains("a&lt;b&gt;&amp;&quot;c&#39;.log"))
    #expect(!text.contains(#"a<b>&"c'.log"#))
  }

  @Test("a rotated log from the real audit trail, snapshot and all", .timeLimit(.minutes(1)))
  func rotatedLog() throws {
    let log = temporaryLogPath()
    let page = log + ".html"
    defer { [log, log + ".1", page].forEach(removeLog) }
    let writer = try Executables.run("InspectorLogWriter", [log, "30", "--rotate-after", "20"])
    #expect(writer.status == 0, "\(writer.standardError)")
    #expect(try AuditCommand.run(["verify", log + ".1", log]).status == 0)
    let result = try AuditCommand.run(["html", log + ".1", log, "-o", page])
    #expect(result.standardOutput == "\(page): 31 lines in 2 files; open it in a browser\n")
    let file = try InspectorPageFile(path: page)
    #expect(file.logs.map(\.name) == [log + ".1", log])
    let current = String(decoding: try #require(file.logs.last?.bytes), as: UTF8.self)
    #expect(current.hasPrefix(#"{"seq":21,"prev":""#))
    #expect(current.split(separator: "\n").first?.contains(#""snapshot":{"accounts":"#) == true)
  }

  @Test(
    "bad arguments are usage errors",
    arguments: [[], ["log"], ["-o", "page.html"], ["log", "-o"], ["log", "--frobnicate"]])
  func usage(_ arguments: [String]) throws {
    let result = try AuditCommand.run(["html"] + arguments)
    #expect(result.status == 64)
    #expect(result.standardError.contains("usage: reduce-audit verify FILE"))
  }

  @Test("a missing or unreadable log exits 66 and writes nothing", .timeLimit(.minutes(1)))
  func unreadableLog() throws {
    let missing = temporaryLogPath()
    let page = missing + ".html"
    let result = try AuditCommand.run(["html", missing, "-o", page])
    #expect(result.status == 66)
    #expect(result.standardError == "\(missing): cannot read it: no such file or directory\n")
    #expect(!FileManager.default.fileExists(atPath: page))
    let directory = FileManager.default.temporaryDirectory.path
    let notAFile = try AuditCommand.run(["html", directory, "-o", page])
    #expect(notAFile.status == 66)
    #expect(notAFile.standardError.contains("it is a directory, not a log file"))
  }

  @Test("a page that cannot be written exits 73 and says why", .timeLimit(.minutes(1)))
  func unwritablePage() throws {
    let log = try writeChainedLog(count: 1)
    defer { removeLog(log) }
    let nowhere = log + ".missing/page.html"
    let result = try AuditCommand.run(["html", log, "-o", nowhere])
    #expect(result.status == 73)
    #expect(result.standardError == "\(nowhere): cannot write it: no such file or directory\n")
    let directory = FileManager.default.temporaryDirectory.path
    let onDirectory = try AuditCommand.run(["html", log, "-o", directory])
    #expect(onDirectory.status == 73)
    #expect(onDirectory.standardError == "\(directory): cannot write it: is a directory\n")
  }

  @Test("the page may not overwrite one of the logs", .timeLimit(.minutes(1)))
  func outputIsALog() throws {
    let log = try writeChainedLog(count: 2)
    defer { removeLog(log) }
    let before = FileManager.default.contents(atPath: log)
    let result = try AuditCommand.run(["html", log, "-o", log])
    #expect(result.status == 64)
    #expect(result.standardError.contains("would overwrite one of the logs"))
    let link = log + ".link"
    defer { removeLog(link) }
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: log)
    let throughLink = try AuditCommand.run(["html", log, "-o", link])
    #expect(throughLink.status == 64)
    #expect(FileManager.default.contents(atPath: log) == before)
  }
}
