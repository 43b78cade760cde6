import Foundation
import ReducePostgresCluster
import Testing

@Suite(.timeLimit(.minutes(2))) struct BenchmarkTests {
  @Test("the benchmark runs its three workloads and prints their figures")
  func smokeRun() async throws {
    let cluster = try sharedCluster.get()
    let bench = try ChildProcess(
      "reduce-postgres-bench", arguments: ["--seconds", "0.3", "--socket", cluster.socketPath])
    await offPool { bench.waitForExit() }
    #expect(bench.process.terminationStatus == 0, "\(bench.standardError)")
    let lines = bench.lines
    #expect(lines.contains { $0.hasPrefix("durable-1: 1 client, ") })
    #expect(lines.contains { $0.hasPrefix("durable-8: 8 clients, ") })
    #expect(lines.contains { $0.hasPrefix("standby-lag-8: p50 ") })
  }

  @Test("the benchmark refuses an unknown argument")
  func unknownArgument() async throws {
    let bench = try ChildProcess("reduce-postgres-bench", arguments: ["--fast"])
    await offPool { bench.waitForExit() }
    #expect(bench.process.terminationStatus == 1)
    #expect(bench.standardError.contains("unknown argument --fast"))
  }
}
