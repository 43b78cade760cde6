import Foundation
import Testing

/// The end of the input while a save is in flight: the final flush writes the last edit
/// whatever the slow save does (`PersistenceMiddleware.flush()`).
@Suite struct SaveInFlightTests {
  /// What a slowed save says on standard error before it waits (`REDUCE_DEMO_SAVE_DELAY_MS`).
  static let slowSave = "reduce-demo: a save waits"

  @Test(
    "a long title, a long unknown command, then add: both items are saved though a save of the last edit is in flight at the end",
    .timeLimit(.minutes(2)))
  func lastEditSavedWhileASaveIsInFlight() async throws {
    let files = try DemoFiles()
    defer { files.clean() }
    let long = String(repeating: "x", count: 200_000)
    // Every save takes a second and a half; the autosave starts one a millisecond after an
    // edit.
    let demo = try RunningDemo(
      ["--state", files.state],
      environment: ["REDUCE_DEMO_AUTOSAVE_MS": "1", "REDUCE_DEMO_SAVE_DELAY_MS": "1500"])
    try demo.send("add " + long)
    // The autosave of the first item is in flight: the next edit comes while it waits.
    #expect(try await demo.waitForErrors(containing: Self.slowSave, times: 1))
    try demo.send(long)
    try demo.send("add small")
    #expect(try await demo.waitForOutput(containing: "Added \"small\"."))
    // The autosave's second save, of both items, is in flight: the input ends now.
    #expect(try await demo.waitForErrors(containing: Self.slowSave, times: 2))
    try demo.closeInput()
    #expect(try await demo.waitForExit())
    #expect(demo.terminationReason == .exit)
    #expect(demo.terminationStatus == 0)
    let output = files.normalized(demo.standardOutput)
    #expect(output.contains("error: unknown command"))
    #expect(output.hasSuffix("Saved 2 items to STATE.\n"))
    let saved = try files.savedList()
    #expect(saved.items.map(\.title) == [long, "small"])
    #expect(saved.nextID == 3)
  }

  @Test(
    "the input ends while the autosave of the only edit is in flight: the edit is saved",
    .timeLimit(.minutes(2)))
  func onlyEditSavedWhileItsSaveIsInFlight() async throws {
    let files = try DemoFiles()
    defer { files.clean() }
    let demo = try RunningDemo(
      ["--state", files.state],
      environment: ["REDUCE_DEMO_AUTOSAVE_MS": "1", "REDUCE_DEMO_SAVE_DELAY_MS": "1500"])
    try demo.send("add Milk")
    #expect(try await demo.waitForErrors(containing: Self.slowSave, times: 1))
    try demo.closeInput()
    #expect(try await demo.waitForExit())
    #expect(demo.terminationStatus == 0)
    #expect(files.normalized(demo.standardOutput).hasSuffix("Saved 1 item to STATE.\n"))
    #expect(try files.savedList().items.map(\.title) == ["Milk"])
  }
}
