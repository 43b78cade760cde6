import Reduce
import ReduceUndo
import Synchronization
import Testing

/// A clock that moves only when told: the time `groupWithin` reads.
///
/// ReduceTesting's `ManualClock` does the same and more, but this target does not depend on
/// ReduceTesting, and `groupWithin` only reads the time. The persistence tests use
/// `ManualClock` with `groupWithin` (`groupedByPauseRoundTrip`).
final class SteppedClock: Clock, Sendable {
  struct Instant: InstantProtocol {
    var offset: Duration

    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private let time = Mutex(Duration.zero)

  var now: Instant { Instant(offset: time.withLock { $0 }) }
  var minimumResolution: Duration { .zero }

  /// Not used by undo: returns at once.
  func sleep(until deadline: Instant, tolerance: Duration?) async throws {}

  /// Moves the time on.
  func advance(by duration: Duration) {
    time.withLock { $0 += duration }
  }
}

@Suite struct UndoGroupWithinTests {
  /// An undo middleware of the document that groups changes within 500 ms, and its store.
  func makeGrouped(
    groupBy: (@Sendable (any Action) -> (any Hashable & Sendable)?)? = nil
  ) throws -> (UndoMiddleware<Editor>, Store<Editor>, SteppedClock) {
    let clock = SteppedClock()
    let undo = try UndoMiddleware<Editor>(
      scope: \.document, groupBy: groupBy, groupWithin: .milliseconds(500), clock: clock)
    return (undo, try makeStore(undo), clock)
  }

  @Test("changes within the window make one step; a pause of the window or more starts another")
  func window() throws {
    let (undo, store, clock) = try makeGrouped()
    try store.dispatchAll(Edit.type("a"))
    clock.advance(by: .milliseconds(200))
    try store.dispatchAll(Edit.type("b"))
    #expect(undo.pastCount == 1)
    clock.advance(by: .milliseconds(500))
    try store.dispatchAll(Edit.type("c"))
    #expect(undo.pastCount == 2)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "ab")
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "")
  }

  @Test("the window runs from the step's last change: a steady burst stays one step")
  func slidingWindow() throws {
    let (undo, store, clock) = try makeGrouped()
    for text in ["a", "b", "c", "d", "e"] {
      try store.dispatchAll(Edit.type(text))
      clock.advance(by: .milliseconds(400))
    }
    #expect(undo.pastCount == 1)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "")
  }

  @Test("with groupBy, a change merges only when its key matches and it comes within the window")
  func withGroupBy() throws {
    let (undo, store, clock) = try makeGrouped(groupBy: { action in
      switch action as? Edit {
      case .type: "text"
      case .rename: "title"
      default: nil
      }
    })
    try store.dispatchAll(Edit.type("a"))
    clock.advance(by: .milliseconds(100))
    try store.dispatchAll(Edit.rename("T"))  // another key: a new step
    clock.advance(by: .milliseconds(100))
    try store.dispatchAll(Edit.type("b"))  // another key again
    clock.advance(by: .milliseconds(100))
    try store.dispatchAll(Edit.type("c"))  // same key, within the window: merges
    #expect(undo.pastCount == 3)
    clock.advance(by: .seconds(1))
    try store.dispatchAll(Edit.type("d"))  // same key, after a pause: a new step
    #expect(undo.pastCount == 4)
    try store.dispatchAll(UndoAction.undo, UndoAction.undo)
    #expect(store.state.document == Document(text: "a", title: "T"))
  }

  @Test("undo and explicit groups end the window's step")
  func commandsEndTheStep() throws {
    let (undo, store, clock) = try makeGrouped()
    try store.dispatchAll(Edit.type("a"), UndoAction.undo)
    clock.advance(by: .milliseconds(100))
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
