import Foundation
import ReduceExecutableSupport
import Testing

/// Runs the built `reduce-bench` executable.
enum BenchCommand {
  static func run(_ arguments: [String]) throws -> ExecutableRun {
    try Executables.run("reduce-bench", arguments)
  }
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

  @Test("--help prints the usage on standard output and exits 0")
  func help() throws {
    let result = try BenchCommand.run(["--help"])
    #expect(result.status == 0)
    #expect(result.standardOutput.contains("usage: reduce-bench"))
    #expect(result.standardOutput.contains("--profile NAME --dispatches N"))
  }

  @Test(
    "a bad argument exits 64 with a usage line", arguments: [["--bogus"], ["--repetitions", "0"]])
  func usageError(arguments: [String]) throws {
    let result = try BenchCommand.run(arguments)
    #expect(result.status == 64)
    #expect(result.standardError.contains("usage: reduce-bench"))
  }
}
