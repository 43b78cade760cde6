import Foundation
import ReduceLogging
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The built `ledger-server`, run as a process.
final class ServerProcess: @unchecked Sendable {
  // Unchecked: `output` and `errors` are read and written under `condition` only; `process`
  // is set up before the reading threads start.
  let process = Process()
  private let condition = NSCondition()
  private var output = ""
  private var errors = ""

  init(arguments: [String]) throws {
    process.executableURL = try Self.executable()
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    for (pipe, isOutput) in [(out, true), (err, false)] {
      Thread { [self] in
        while case let data = pipe.fileHandleForReading.availableData, !data.isEmpty {
          condition.lock()
          if isOutput {
            output += String(decoding: data, as: UTF8.self)
          } else {
            errors += String(decoding: data, as: UTF8.self)
          }
          condition.broadcast()
          condition.unlock()
        }
      }.start()
    }
    try process.run()
  }

  /// The port the server printed once it listened; nil at the deadline.
  func port(until deadline: Date) -> Int? {
    condition.lock()
    defer { condition.unlock() }
    let prefix = "ledger-server listening on http://127.0.0.1:"
    while true {
      if let line = output.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) {
        return Int(line.dropFirst(prefix.count))
      }
      if !process.isRunning || !condition.wait(until: deadline) { return nil }
    }
  }

  /// What the server wrote on standard error.
  var standardError: String {
    condition.lock()
    defer { condition.unlock() }
    return errors
  }

  /// Waits for the process to end; false at the deadline.
  func waitForExit(until deadline: Date) -> Bool {
    while process.isRunning {
      if Date() > deadline { return false }
      Thread.sleep(forTimeInterval: 0.01)
    }
    return true
  }

  /// `ledger-server`, next to the test binary.
  static func executable() throws -> URL {
    var directory = Bundle.main.bundleURL
    for _ in 0..<4 {
      let candidate = directory.appendingPathComponent("ledger-server")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      directory.deleteLastPathComponent()
    }
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("ledger-server")
    try #require(FileManager.default.isExecutableFile(atPath: beside.path))
    return beside
  }
}

@Suite("The ledger-server executable", .serialized, .timeLimit(.minutes(2)))
struct ServerProcessTests {
  @Test("it serves on a free port, and SIGTERM flushes the journal and exits 0")
  func serveAndTerminate() async throws {
    let fixture = try JournalFixture()
    let server = try ServerProcess(arguments: ["--port", "0", "--log", fixture.path])
    defer { if server.process.isRunning { server.process.terminate() } }
    let port = try #require(
      server.port(until: Date().addingTimeInterval(60)), "\(server.standardError)")

    var request = URLRequest(
      url: try #require(URL(string: "http://127.0.0.1:\(port)/accounts/ada/deposit")))
    request.httpMethod = "POST"
    request.setValue("teller-1", forHTTPHeaderField: "X-Principal")
    request.httpBody = Data(#"{"amount":80}"#.utf8)
    let (data, response) = try await URLSession.shared.data(for: request)
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
    #expect(String(decoding: data, as: UTF8.self) == #"{"account":"ada","balance":80}"#)

    kill(server.process.processIdentifier, SIGTERM)
    #expect(server.waitForExit(until: Date().addingTimeInterval(30)))
    #expect(server.process.terminationReason == .exit)
    #expect(server.process.terminationStatus == 0)
    #expect(server.standardError.contains("journal flushed"))
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: fixture.path)) == 1)
  }

  @Test("a wrong option exits 64 with the usage")
  func wrongOption() throws {
    let server = try ServerProcess(arguments: ["--durability", "sometimes"])
    #expect(server.waitForExit(until: Date().addingTimeInterval(30)))
    #expect(server.process.terminationStatus == 64)
    #expect(server.standardError.contains("--durability does not take \"sometimes\""))
  }

  @Test("a journal that does not verify stops the server before it listens")
  func tamperedJournal() throws {
    let fixture = try JournalFixture()
    try Data("{\"seq\":1,\"prev\":\"nope\"}\n".utf8).write(to: URL(fileURLWithPath: fixture.path))
    let server = try ServerProcess(arguments: ["--port", "0", "--log", fixture.path])
    #expect(server.waitForExit(until: Date().addingTimeInterval(30)))
    #expect(server.process.terminationStatus == 1)
    #expect(server.standardError.contains("the journal cannot be replayed"))
  }
}
