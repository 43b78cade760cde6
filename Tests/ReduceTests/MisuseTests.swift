import ReduceExecutableSupport
import Testing

/// The mistakes a store stops for, each run in a child process: the program must say how to fix it.
///
/// The child is `Tests/ReduceMisuse`. `.ci/run` checks the same messages in a release build,
/// where a failed `precondition` would stop without one.
@Suite struct MisuseTests {
  @Test(
    "a reducer's misuse stops the program with a message saying how to fix it",
    arguments: [
      ("reducer-dispatches", "A reducer dispatched to the store."),
      ("reducer-reads-state", "A reducer read the store's state or dispatched to it."),
      ("reducer-subscribes", "A reducer subscribed to the store."),
    ])
  func misuseStopsWithMessage(mistake: String, message: String) throws {
    // No backtrace: it is slow to make and not what the test checks.
    let run = try Executables.run(
      "ReduceMisuse", [mistake], environment: ["SWIFT_BACKTRACE": "enable=no"])
    #expect(run.status != 0)
    #expect(!run.standardError.contains("was not noticed"))
    #expect(run.standardError.contains("Fatal error: \(message)"), "\(run.standardError)")
    #expect(
      run.standardError.contains(
        "dispatch follow-up actions from a middleware or an observer instead"))
  }
}
