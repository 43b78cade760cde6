import ReduceExecutableSupport
import Testing

/// Smoke-runs `reduce-journal-bench` (the figures themselves come from a release build).
@Suite struct JournalBenchSmokeTests {
  @Test("reduce-journal-bench prints the standby lag and the replay times", .timeLimit(.minutes(2)))
  func smoke() throws {
    let run = try Executables.run(
      "reduce-journal-bench", ["--entries", "200", "--dispatches", "16", "--snapshot-every", "50"])
    #expect(run.status == 0, "\(run.standardError)")
    #expect(run.standardOutput.contains("lag from commit on the primary to application"))
    #expect(run.standardOutput.contains("from the newest snapshot"))
    #expect(!run.standardOutput.contains("MISMATCH"))
    let usage = try Executables.run("reduce-journal-bench", ["--entries"])
    #expect(usage.status == 64)
  }
}
