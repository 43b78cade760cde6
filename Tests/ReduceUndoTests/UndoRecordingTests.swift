import Reduce
import ReduceUndo
import Synchronization
import Testing

/// Makes an undo middleware in generic code, where the state type is a generic parameter.
func makeGenericUndo<S: Equatable & Sendable>(_: S.Type, limit: Int) throws -> UndoMiddleware<S> {
  try UndoMiddleware<S>(limit: limit)
}

/// A middleware for after undo that holds back the actions it is made for until ``release()``,
/// then passes each on from a task: a reduction, or a restore, that commits late.
struct HoldingBack: Sendable {
  let middleware: AnyMiddleware<Editor>
  private let gate = AsyncGate()
  private let tasks = TaskList()

  /// Holds back the actions for which `holds` is true; passes the others on at once.
  init(_ holds: @escaping @Sendable (any Action) -> Bool) {
    let (gate, tasks) = (gate, tasks)
    middleware = AnyMiddleware<Editor>(name: "hold") { action, _, next in
      guard holds(action) else { return try next(action) }
      tasks.add(
        Task {
          await gate.wait()
          try next(action)
        })
    }
  }

  /// Passes the held-back actions on and waits until they have gone down the chain.
  func release() async throws {
    await gate.open()
    try await tasks.waitForAll()
  }
}

/// The recording path: the starting point, store membership during a dispatch, and the same
/// behaviour whether the middleware was made in generic code or not.
@Suite struct UndoRecordingTests {
  @Test("actions that change nothing before the first step still fix the starting point")
  func baselineFromUnchangedActions() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document, filter: { !($0 is Select) })
    let store = try makeStore(undo, initialState: Editor(document: Document(text: "start")))
    // Seen first: the document as it is now, though these actions make no step.
    try store.dispatchAll(Edit.touch, Select.at(3))
    try store.dispatchAll(Edit.type("!"))
    #expect(undo.pastCount == 1)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "start")
    #expect(store.state.selection == 3)
  }

  @Test("after clearHistory an unchanged action keeps the present as the starting point")
  func baselineAfterClear() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.type("b"), UndoAction.clearHistory, Edit.touch)
    try store.dispatchAll(Edit.type("c"))
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "ab")
    #expect(!undo.canUndo)
  }

  @Test("an action of a store the middleware left during its dispatch joins no other history")
  func leftDuringDispatch() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let other = try Store(initialState: Editor(), mutators: [documentMutator, selectionMutator])
    let first = Mutex<Store<Editor>?>(nil)
    // Before undo in the first store's chain: on `rename`, moves undo to the other store, then
    // passes the action on. The dispatch keeps the chain it started with, undo included.
    let mover = AnyMiddleware<Editor>(name: "mover") { action, _, next in
      if case .rename = action as? Edit, let store = first.withLock({ $0 }) {
        store.removeMiddleware(named: undo.name)
        try other.use(undo)
      }
      try next(action)
    }
    let store = try makeStore(undo, before: [mover])
    first.withLock { $0 = store }

    try store.dispatchAll(Edit.type("a"))
    #expect(undo.pastCount == 1)
    try store.dispatchAll(Edit.rename("moved"))
    #expect(store.state.document == Document(text: "a", title: "moved"))
    #expect(undo.pastCount == 0)

    try other.dispatchAll(Edit.type("b"))
    #expect(undo.pastCount == 1)
    try other.dispatchAll(UndoAction.undo)
    #expect(other.state.document == Document())
    #expect(store.state.document == Document(text: "a", title: "moved"))
    first.withLock { $0 = nil }
  }

  @Test("undo records every commit, whatever action made it: a ReplaceState from the app too")
  func recordsEveryCommit() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"))
    try store.dispatchAll(ReplaceState(Editor(document: Document(text: "loaded"), selection: 4)))
    #expect(undo.pastCount == 2)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state == Editor(document: Document(text: "a"), selection: 4))
  }

  @Test(
    "a restore that a middleware after undo defers leaves the history; it commits later as a new step",
    .timeLimit(.minutes(1)))
  func deferredRestore() async throws {
    let restores = HoldingBack { $0 is ReplaceState<Editor> }
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo, after: [restores.middleware])
    try store.dispatchAll(Edit.type("a"), Edit.type("b"))
    try store.dispatchAll(UndoAction.undo)
    // Not committed yet: the history has not moved.
    #expect(store.state.document.text == "ab")
    #expect(undo.status == UndoStatus(pastCount: 2))
    try await restores.release()
    // Committed outside the command: a change like any other, which undo reverts.
    #expect(store.state.document.text == "a")
    #expect(undo.status == UndoStatus(pastCount: 3))
  }

  @Test("a late reduction of a store the middleware left before it happened joins no history")
  func leftBeforeDeferredReduction() async throws {
    let edits = HoldingBack { $0 is Edit }
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo, after: [edits.middleware])
    let other = try Store(initialState: Editor(), mutators: [documentMutator, selectionMutator])

    try store.dispatchAll(Edit.type("a"))
    // Held back: not reduced until after the middleware left.
    #expect(store.state.document.text == "")
    store.removeMiddleware(named: undo.name)
    try other.use(undo)
    try await edits.release()
    #expect(store.state.document.text == "a")
    #expect(undo.pastCount == 0)

    try other.dispatchAll(Edit.type("b"))
    #expect(undo.pastCount == 1)
    try other.dispatchAll(UndoAction.undo)
    #expect(other.state.document == Document())
  }

  @Test("a late reduction of a store the middleware left and came back to joins its new history")
  func leftAndCameBack() async throws {
    let edits = HoldingBack { $0 is Edit }
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo, after: [edits.middleware])

    try store.dispatchAll(Edit.type("a"))
    // Held back: not reduced until after the middleware came back.
    #expect(store.state.document.text == "")
    store.removeMiddleware(named: undo.name)
    try store.use(undo)
    try await edits.release()
    // Reduced in the store the middleware serves again: a step of its new history.
    #expect(store.state.document.text == "a")
    #expect(undo.pastCount == 1)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document == Document())
  }

  @Test("an action whose reducer throws makes no step, and the next change records from before it")
  func throwingReducer() throws {
    struct Refused: Error {}
    let document = Mutator(\Editor.document) {
      (document: inout Document, edit: Edit) throws(Refused) in
      apply(edit, to: &document)
      if case .rename("refused") = edit { throw Refused() }
    }
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try Store(
      initialState: Editor(), mutators: [document, selectionMutator], middleware: [undo])
    try store.dispatchAll(Edit.type("a"))
    #expect(throws: DispatchError.self) { try store.dispatchAll(Edit.rename("refused")) }
    #expect(undo.pastCount == 1)
    try store.dispatchAll(Edit.type("b"))
    #expect(undo.pastCount == 2)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document == Document(text: "a"))
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document == Document())
  }

  @Test("a full history still publishes the label of each new step, and the counts stay")
  func fullHistoryPublishesLabels() throws {
    let undo = try UndoMiddleware<Editor>(
      scope: \.document, limit: 2,
      label: { action in
        guard case .type(let text) = action as? Edit else { return nil }
        return "Type \(text)"
      })
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.type("b"))
    #expect(undo.status == UndoStatus(pastCount: 2, undoLabel: "Type b"))
    try store.dispatchAll(Edit.type("c"))
    #expect(undo.status == UndoStatus(pastCount: 2, undoLabel: "Type c"))
    try store.dispatchAll(Edit.rename("untitled"))
    #expect(undo.status == UndoStatus(pastCount: 2, undoLabel: nil))
    try store.dispatchAll(UndoAction.undo)
    #expect(undo.status == UndoStatus(pastCount: 1, futureCount: 1, undoLabel: "Type c"))
    try store.dispatchAll(Edit.type("d"))
    #expect(undo.status == UndoStatus(pastCount: 2, undoLabel: "Type d"))
  }

  @Test("a middleware made in generic code records, drops and restores the same steps")
  func genericRecorder() throws {
    let undo = try makeGenericUndo(Editor.self, limit: 3)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.type("b"), Select.at(1), Edit.type("c"), Edit.touch)
    #expect(undo.pastCount == 3)
    try store.dispatchAll(UndoAction.undo, UndoAction.undo, UndoAction.undo)
    #expect(store.state == Editor(document: Document(text: "a"), selection: 0))
    #expect(!undo.canUndo)
    try store.dispatchAll(UndoAction.redo)
    #expect(store.state == Editor(document: Document(text: "ab"), selection: 0))
  }
}
