import Foundation
import Testing

/// Runs the built `reduce-bench` executable, found next to the test binary.
struct BenchCommand {
  struct Output {
    var status: Int32
    var standardOutput: String
    var standardError: String
  }

  static func executable() throws -> URL {
    var directory = Bundle.main.bundleURL
    for _ in 0..<4 {
      let candidate = directory.appendingPathComponent("reduce-bench")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      directory.deleteLastPathComponent()
    }
    let fromArgument = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("reduce-bench")
    return try #require(
      FileManager.default.isExecutableFile(atPath: fromArgument.path) ? fromArgument : nil,
      "reduce-bench was not found next to the tests; `swift test` builds it")
  }

  static func run(_ arguments: [String]) throws -> Output {
    let process = Process()
    process.executableURL = try executable()
    process.arguments = arguments
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    // Read both pipes to their ends concurrently, so that neither can fill up and block.
    let errorData = ErrorOutput()
    let finished = DispatchSemaphore(value: 0)
    Thread {
      errorData.set(error.fileHandleForReading.readDataToEndOfFile())
      finished.signal()
    }.start()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    finished.wait()
    return Output(
      status: process.terminationStatus,
      standardOutput: String(decoding: outputData, as: UTF8.self),
      standardError: String(decoding: errorData.value, as: UTF8.self))
  }
}

/// Standard error of a run, written by the thread that reads it.
final class ErrorOutput: @unchecked Sendable {
  // `@unchecked`: every access holds `lock`.
  private let lock = NSLock()
  private var data = Data()

  func set(_ value: Data) {
    lock.withLock { data = value }
  }

  var value: Data { lock.withLock { data } }
}

@Suite struct ReduceBenchTests {
  @Test("--quick --json runs the chosen workloads and prints one JSON object with their figures")
  func quickJSON() throws {
    let result = try BenchCommand.run([
      "--quick", "--json", "--repetitions", "1", "--filter", "counter", "--filter", "large-array",
    ])
    #expect(result.status == 0, "\(result.standardError)")
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    let workloads = try #require(json["workloads"] as? [[String: Any]])
    #expect(
      workloads.compactMap { $0["name"] as? String } == ["counter", "counter+3mw", "large-array"])
    for workload in workloads {
      for field in ["store_ns", "baseline_ns", "ratio"] {
        let value = try #require(workload[field] as? Double, "\(field) of \(workload)")
        #expect(value > 0)
      }
      #expect((workload["dispatches"] as? Int ?? 0) >= 100)
    }
  }

  @Test("the table names every workload it ran, with a header")
  func table() throws {
    let result = try BenchCommand.run([
      "--quick", "--repetitions", "1", "--filter", "ten-substates",
    ])
    #expect(result.status == 0, "\(result.standardError)")
    let lines = result.standardOutput.split(separator: "\n").map(String.init)
    #expect(lines.first?.hasPrefix("workload") == true)
    #expect(lines.contains { $0.hasPrefix("ten-substates ") })
  }

  @Test("--list names every workload, the core ones and one per plugin")
  func list() throws {
    let result = try BenchCommand.run(["--list"])
    #expect(result.status == 0)
    let names = Set(result.standardOutput.split(separator: "\n").map(String.init))
    let expected: Set = [
      "counter", "counter+3mw", "ten-substates", "subscribers-100", "subscribers-1000",
      "mutators-100", "large-array", "thunk", "throttle", "logging-json", "logging-text", "undo",
    ]
    #expect(expected.isSubset(of: names))
  }

  @Test(
    "a bad argument exits 64 with a usage line", arguments: [["--bogus"], ["--repetitions", "0"]])
  func usageError(arguments: [String]) throws {
    let result = try BenchCommand.run(arguments)
    #expect(result.status == 64)
    #expect(result.standardError.contains("usage: reduce-bench"))
  }
}
