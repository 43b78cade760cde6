import Foundation
import ReduceExecutableSupport
import Testing

/// The signals that stop the demo, by name, for test arguments.
let stopSignals: [String: Int32] = ["SIGINT": SIGINT, "SIGTERM": SIGTERM, "SIGHUP": SIGHUP]

@Suite struct StopSignalTests {
  @Test(
    "an edit made just before a stop signal is saved, and the demo ends by that signal",
    .timeLimit(.minutes(1)), arguments: ["SIGINT", "SIGTERM", "SIGHUP"])
  func editBeforeSignalIsSaved(signal name: String) async throws {
    let number = try #require(stopSignals[name])
    let files = try DemoFiles()
    defer { files.clean() }
    try files.runDemo(script: ["add Milk"]).checkSucceeded()
    // The autosave debounce (a minute, see `Executable.environment`) cannot save the edit
    // before the signal: only the demo's handling of the signal can.
    let demo = try RunningDemo(["--state", files.state])
    try demo.send("done 1")
    try demo.send("add Eggs")
    #expect(try await demo.waitForOutput(containing: "Added \"Eggs\"."))
    demo.signal(number)
    #expect(try await demo.waitForExit())
    #expect(demo.terminationReason == .uncaughtSignal)
    #expect(demo.terminationStatus == number)
    #expect(demo.standardError == "")
    #expect(
      files.normalized(demo.standardOutput).hasSuffix(
        "Stopped by \(name): saved 2 items to STATE.\n"))
    let saved = try files.savedList()
    #expect(saved.items.map(\.title) == ["Milk", "Eggs"])
    #expect(saved.items.map(\.done) == [true, false])
    #expect(saved.nextID == 3)
  }

  @Test(
    "a stop signal before any edit leaves a new list unwritten and ends the demo by the signal",
    .timeLimit(.minutes(1)))
  func signalWithoutEdits() async throws {
    let files = try DemoFiles()
    defer { files.clean() }
    let demo = try RunningDemo(["--state", files.state])
    #expect(try await demo.waitForOutput(containing: "cannot redo\n"))
    demo.signal(SIGTERM)
    #expect(try await demo.waitForExit())
    #expect(demo.terminationReason == .uncaughtSignal)
    #expect(demo.terminationStatus == SIGTERM)
    #expect(
      files.normalized(demo.standardOutput).hasSuffix(
        "Stopped by SIGTERM: nothing changed; STATE was not written.\n"))
    #expect(!FileManager.default.fileExists(atPath: files.state))
  }

  @Test(
    "a stop signal whose save fails ends the demo with status 1 and says so",
    .timeLimit(.minutes(1)))
  func failedSaveOnSignal() async throws {
    let files = try DemoFiles()
    defer { files.clean() }
    let demo = try RunningDemo(["--state", files.state])
    try demo.send("add Milk")
    #expect(try await demo.waitForOutput(containing: "Added \"Milk\"."))
    // A directory where the file should go makes the write fail.
    try FileManager.default.createDirectory(
      atPath: files.state, withIntermediateDirectories: false)
    demo.signal(SIGTERM)
    #expect(try await demo.waitForExit())
    #expect(demo.terminationReason == .exit)
    #expect(demo.terminationStatus == 1)
    #expect(
      files.normalized(demo.standardError).hasPrefix(
        "error: stopped by SIGTERM; the list was not saved: cannot write STATE"))
  }
}

extension ExecutableRun {
  /// Checks that the run exited with status 0 and wrote nothing on standard error.
  func checkSucceeded(sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(status == 0, sourceLocation: sourceLocation)
    #expect(standardError == "", sourceLocation: sourceLocation)
  }
}
