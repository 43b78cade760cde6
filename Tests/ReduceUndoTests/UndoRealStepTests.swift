import Reduce
import ReduceUndo
import Testing

/// A counter whose undo history records only decrements: the repro of "a step from the value to
/// the same value".
struct Tally: Equatable, Sendable {
  var count = 0
}

enum Increment: Action { case once }
enum Decrement: Action { case once }

let tallyMutator = Mutator(\Tally.count) { (count: inout Int, _: Increment) in count += 1 }
  .on(Decrement.self) { (count: inout Int, _) in count -= 1 }

@Suite struct UndoRealStepTests {
  /// Records only `Decrement`.
  func makeTally() throws -> (Store<Tally>, UndoMiddleware<Tally>) {
    let undo = try UndoMiddleware<Tally>(filter: { $0 is Decrement })
    let store = try Store(initialState: Tally(), mutators: [tallyMutator], middleware: [undo])
    return (store, undo)
  }

  @Test("a recorded action that brings the value back to the last recorded one makes no step")
  func backToRecorded() throws {
    let (store, undo) = try makeTally()
    _ = try store.dispatch(Increment.once).get()
    _ = try store.dispatch(Decrement.once).get()
    #expect(store.state.count == 0)
    #expect(undo.pastCount == 0)
    #expect(!undo.canUndo)
  }

  @Test("the redo future survives a recorded action that lands on the last recorded value")
  func redoFutureKept() throws {
    let (store, undo) = try makeTally()
    try store.dispatchAll(Decrement.once, UndoAction.undo)
    #expect(store.state.count == 0)
    #expect(undo.futureCount == 1)
    try store.dispatchAll(Increment.once, Decrement.once)
    #expect(undo.futureCount == 1)
    #expect(undo.pastCount == 0)
    try store.dispatchAll(UndoAction.redo)
    #expect(store.state.count == -1)
  }

  @Test("a recorded action that moves the value elsewhere still makes a step")
  func realStepRecorded() throws {
    let (store, undo) = try makeTally()
    try store.dispatchAll(Increment.once, Increment.once, Decrement.once)
    #expect(store.state.count == 1)
    #expect(undo.pastCount == 1)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.count == 0)
  }

  @Test("the scoped form: typing filtered out, then a recorded delete back to the recorded text")
  func scopedBackToRecorded() throws {
    let undo = try UndoMiddleware<Editor>(
      scope: \.document,
      filter: { action in
        guard case .type? = action as? Edit else { return true }
        return false
      })
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.rename("T"), Edit.type("x"), Edit.deleteLast)
    #expect(store.state.document == Document(text: "", title: "T"))
    #expect(undo.pastCount == 1)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document == Document())
  }
}
