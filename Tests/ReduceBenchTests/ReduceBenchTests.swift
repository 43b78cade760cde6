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
      "mutators-100", "large-array", "contended-8", "send-1000", "thunk", "thunk-sync", "throttle",
      "logging-json", "logging-text", "undo", "custom-recorder", "scoped-1000",
      "selector-readers-1", "selector-readers-1000", "closure-readers-1000",
    ]
    #expect(expected.isSubset(of: names))
  }

  @Test(
    "a workload of many threads or tasks runs in quick mode, with counter, and reports its throughput",
    arguments: ["contended-8", "send-1000"])
  func concurrent(name: String) throws {
    let result = try BenchCommand.run([
      "--quick", "--json", "--repetitions", "1", "--filter", name,
    ])
    #expect(result.status == 0, "\(result.standardError)")
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    let workloads = try #require(json["workloads"] as? [[String: Any]])
    #expect(workloads.first?["name"] as? String == "counter", "the workload it compares with")
    let workload = try #require(workloads.first { $0["name"] as? String == name })
    #expect(workload["dispatches"] as? Int == 1000)
    #expect((workload["dispatches_per_second"] as? Double ?? 0) > 0)
    #expect((workload["target"] as? String)?.hasSuffix("× counter") == true)
    #expect(workload["met"] is Bool, "compared with counter of the same run")
  }

  @Test("the durable workloads report their entries per flush, and 8 writers' target uses it")
  func durableFlushes() throws {
    let result = try BenchCommand.run([
      "--quick", "--json", "--repetitions", "1", "--filter", "audit-durable-8",
    ])
    #expect(result.status == 0, "\(result.standardError)")
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    let workloads = try #require(json["workloads"] as? [[String: Any]])
    let names = workloads.compactMap { $0["name"] as? String }
    #expect(names == ["audit-durable-1", "audit-durable-8"])
    let one = try #require(workloads.first)
    // One writer waits for its own entry each time: one flush a dispatch.
    #expect(one["entries_per_flush"] as? Double == 1)
    let eight = try #require(workloads.last)
    let shared = try #require(eight["entries_per_flush"] as? Double)
    #expect(shared >= 1 && shared <= 8)
    #expect(eight["target"] as? String == "≥ 7.5 entries a flush, ≤ 0.4× audit-durable-1")
    #expect(eight["met"] is Bool, "compared with audit-durable-1 of the same run")
  }

  @Test("instruction budgets: the timed table leaves them to callgrind")
  func budgetsInTable() throws {
    let result = try BenchCommand.run([
      "--quick", "--repetitions", "1", "--filter", "counter",
    ])
    #expect(result.status == 0, "\(result.standardError)")
    let counter = result.standardOutput.split(separator: "\n").first { $0.hasPrefix("counter ") }
    #expect(counter?.contains("≤ 2,600 instructions") == true)
    #expect(counter?.contains("callgrind") == true)
  }

  @Test("--list-budgets names the workloads callgrind counts, references included")
  func listBudgets() throws {
    let result = try BenchCommand.run(["--list-budgets"])
    #expect(result.status == 0)
    let names = result.standardOutput.split(separator: "\n").map(String.init)
    #expect(
      names == [
        "counter", "counter+3mw", "ten-substates", "subscribers-100", "subscribers-1000",
        "scoped-1000",
        "selector-readers-1", "selector-readers-1000", "thunk-sync", "undo", "custom-recorder",
        "audit-ledger-10",
      ])
  }

  @Test("--check-instructions prints the budgets table and exits 1 on a miss")
  func checkInstructions() throws {
    let met = try BenchCommand.run([
      "--check-instructions", "counter=400", "--check-instructions", "counter+3mw=1300",
      "--check-instructions", "undo=1000", "--check-instructions", "custom-recorder=1500",
    ])
    #expect(met.status == 0, "\(met.standardOutput)")
    let lines = met.standardOutput.split(separator: "\n").map(String.init)
    #expect(lines.first?.hasPrefix("workload") == true)
    #expect(
      lines.contains { $0.hasPrefix("counter ") && $0.contains("≤ 2,600") && $0.hasSuffix("yes") })
    #expect(
      lines.contains {
        $0.hasPrefix("counter+3mw ") && $0.contains("≤ counter + 1,800 = 2,200")
          && $0.hasSuffix("yes")
      })
    #expect(
      lines.contains { $0.hasPrefix("custom-recorder ") && $0.contains("≤ 1.5× undo = 1,500") })

    let missed = try BenchCommand.run([
      "--check-instructions", "counter=2601", "--check-instructions", "custom-recorder=10",
    ])
    #expect(missed.status == 1)
    #expect(
      missed.standardOutput.split(separator: "\n").contains {
        $0.hasPrefix("counter ") && $0.contains("NO")
      })
    #expect(
      missed.standardOutput.contains("(not counted)"),
      "a budget whose reference was not counted is missed")
  }

  @Test("--help prints the usage on standard output and exits 0")
  func help() throws {
    let result = try BenchCommand.run(["--help"])
    #expect(result.status == 0)
    #expect(result.standardOutput.contains("usage: reduce-bench"))
    #expect(result.standardOutput.contains("--profile NAME --dispatches N"))
  }

  @Test(
    "a bad argument exits 64 with a usage line",
    arguments: [
      ["--bogus"], ["--repetitions", "0"], ["--check-instructions", "counter"],
      ["--check-instructions", "nobody=1"],
    ])
  func usageError(arguments: [String]) throws {
    let result = try BenchCommand.run(arguments)
    #expect(result.status == 64)
    #expect(result.standardError.contains("usage: reduce-bench"))
  }
}
