import Reduce
import ReduceTesting
import ReduceUndo
import Testing

@Suite struct UndoGroupWithinTests {
  /// An undo middleware of the document that groups changes within 500 ms, and its store.
  func makeGrouped(
    groupBy: (@Sendable (any Action) -> (any Hashable & Sendable)?)? = nil
  ) throws -> (UndoMiddleware<Editor>, Store<Editor>, ManualClock) {
    let clock = ManualClock()
    let undo = try UndoMiddleware<Editor>(
      scope: \.document, groupBy: groupBy, groupWithin: .milliseconds(500), clock: clock)
    return (undo, try makeStore(undo), clock)
  }

  @Test("changes within the window make one step; a pause of the window or more starts another")
  func window() async throws {
    let (undo, store, clock) = try makeGrouped()
    try store.dispatchAll(Edit.type("a"))
    await clock.advance(by: .milliseconds(200))
    try store.dispatchAll(Edit.type("b"))
    #expect(undo.pastCount == 1)
    await clock.advance(by: .milliseconds(500))
    try store.dispatchAll(Edit.type("c"))
    #expect(undo.pastCount == 2)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "ab")
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "")
  }

  @Test("the window runs from the step's last change: a steady burst stays one step")
  func slidingWindow() async throws {
    let (undo, store, clock) = try makeGrouped()
    for text in ["a", "b", "c", "d", "e"] {
      try store.dispatchAll(Edit.type(text))
      await clock.advance(by: .milliseconds(400))
    }
    #expect(undo.pastCount == 1)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "")
  }

  @Test("with groupBy, a change merges only when its key matches and it comes within the window")
  func withGroupBy() async throws {
    let (undo, store, clock) = try makeGrouped(groupBy: { action in
      switch action as? Edit {
      case .type: "text"
      case .rename: "title"
      default: nil
      }
    })
    try store.dispatchAll(Edit.type("a"))
    await clock.advance(by: .milliseconds(100))
    try store.dispatchAll(Edit.rename("T"))  // another key: a new step
    await clock.advance(by: .milliseconds(100))
    try store.dispatchAll(Edit.type("b"))  // another key again
    await clock.advance(by: .milliseconds(100))
    try store.dispatchAll(Edit.type("c"))  // same key, within the window: merges
    #expect(undo.pastCount == 3)
    await clock.advance(by: .seconds(1))
    try store.dispatchAll(Edit.type("d"))  // same key, after a pause: a new step
    #expect(undo.pastCount == 4)
    try store.dispatchAll(UndoAction.undo, UndoAction.undo)
    #expect(store.state.document == Document(text: "a", title: "T"))
  }

  @Test("undo and explicit groups end the window's step")
  func commandsEndTheStep() async throws {
    let (undo, store, clock) = try makeGrouped()
    try store.dispatchAll(Edit.type("a"), UndoAction.undo)
    await clock.advance(by: .milliseconds(100))
    try store.dispatchAll(Edit.type("b"))
    #expect(undo.status == UndoStatus(pastCount: 1))
    try store.dispatchAll(UndoAction.beginGroup(label: "Group"), Edit.type("c"))
    try store.dispatchAll(UndoAction.endGroup, Edit.type("d"))
    #expect(undo.pastCount == 3)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "bc")
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "b")
  }

  @Test("a window that is not positive is refused", arguments: [Duration.zero, .seconds(-1)])
  func invalidWindow(window: Duration) {
    #expect(throws: UndoError.invalidGroupingWindow(window)) {
      try UndoMiddleware<Editor>(scope: \.document, groupWithin: window)
    }
  }
}
