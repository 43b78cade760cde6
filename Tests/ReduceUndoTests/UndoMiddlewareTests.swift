import Observation
import Reduce
import ReduceUndo
import Synchronization
import Testing

@Suite struct UndoMiddlewareTests {
  @Test("undo restores the tracked state before the newest step, redo the state after it")
  func undoRedo() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.type("b"))

    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "a")
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "")
    try store.dispatchAll(UndoAction.redo)
    #expect(store.state.document.text == "a")
    try store.dispatchAll(UndoAction.redo)
    #expect(store.state.document.text == "ab")
  }

  @Test("counts follow every step, undo and redo; restoring records no step")
  func counts() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    #expect(!undo.canUndo && !undo.canRedo && undo.pastCount == 0 && undo.futureCount == 0)
    try store.dispatchAll(Edit.type("a"), Edit.type("b"))
    #expect(undo.canUndo && !undo.canRedo && undo.pastCount == 2 && undo.futureCount == 0)
    try store.dispatchAll(UndoAction.undo)
    #expect(undo.canUndo && undo.canRedo && undo.pastCount == 1 && undo.futureCount == 1)
    try store.dispatchAll(UndoAction.undo)
    #expect(!undo.canUndo && undo.canRedo && undo.pastCount == 0 && undo.futureCount == 2)
  }

  @Test("undo with no step and redo with no step change nothing")
  func nothingToMove() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let changes = Recorder<Editor>(name: "inner")
    let store = try makeStore(undo, after: [changes], initialState: Editor(selection: 3))
    try store.dispatchAll(UndoAction.undo, UndoAction.redo, UndoAction.jump(-4), UndoAction.jump(4))
    #expect(store.state == Editor(selection: 3))
    #expect(changes.actions.isEmpty)
  }

  @Test("an action that leaves the tracked state equal adds no step")
  func equalStateNoStep() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.touch, Edit.type(""), Select.at(2))
    #expect(undo.pastCount == 1)
  }

  @Test("a new step clears the redo future")
  func newStepClearsFuture() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.type("b"), UndoAction.undo)
    #expect(undo.canRedo)
    try store.dispatchAll(Edit.type("c"))
    #expect(!undo.canRedo)
    try store.dispatchAll(UndoAction.redo)
    #expect(store.state.document.text == "ac")
  }

  @Test("a Batch is one step")
  func batchIsOneStep() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    try store.dispatchAll(Batch([Edit.type("a"), Edit.type("b"), Edit.rename("T")]))
    #expect(undo.pastCount == 1)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document == Document())
  }

  @Test("the actions of a Batch, nested ones too, make no step and reach no option of their own")
  func batchActionsMakeNoStep() throws {
    let seen = Mutex<[String]>([])
    let undo = try UndoMiddleware<Editor>(
      scope: \.document,
      filter: { action in
        seen.withLock { $0.append("filter \(type(of: action))") }
        return true
      },
      label: { action in
        seen.withLock { $0.append("label \(type(of: action))") }
        return action is Batch ? "Batch" : nil
      })
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"))
    seen.withLock { $0 = [] }
    try store.dispatchAll(Batch([Edit.type("b"), Batch([Edit.rename("T"), Select.at(2)])]))
    #expect(seen.withLock { $0 } == ["filter Batch", "label Batch"])
    #expect(undo.status == UndoStatus(pastCount: 2, undoLabel: "Batch"))
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state == Editor(document: Document(text: "a"), selection: 2))
    try store.dispatchAll(UndoAction.redo)
    #expect(store.state.document == Document(text: "ab", title: "T"))
  }

  @Test(
    "a Batch holding an undo command, at any depth, is rejected and changes nothing",
    arguments: [
      Batch([Edit.type("b"), UndoAction.undo]),
      Batch([Edit.type("b"), Batch([UndoAction.undo])]),
      Batch([Batch([Edit.type("b")]), Batch([Select.at(1), Batch([UndoAction.clearHistory])])]),
      Batch([UndoAction.beginGroup(label: "Group"), Edit.type("b")]),
    ])
  func batchWithCommand(batch: Batch) throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.type("c"), UndoAction.undo)
    let status = undo.status
    let result = store.dispatch(batch)
    guard case .failure(.rejected(let name, _, let underlying)) = result else {
      Issue.record("expected a rejection, got \(result)")
      return
    }
    #expect(name == "UndoMiddleware")
    #expect(underlying as? UndoError == .commandInBatch)
    #expect(store.state == Editor(document: Document(text: "a")))
    #expect(undo.status == status)
    // No group was opened: the next two edits are two steps.
    try store.dispatchAll(Edit.type("x"), Edit.type("y"))
    #expect(undo.pastCount == 3)
  }

  @Test("scoped undo and redo leave the other substates as they are now")
  func scopedLeavesOthers() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Select.at(5), Edit.rename("T"), Select.at(7))

    try store.dispatchAll(UndoAction.undo, UndoAction.undo)
    #expect(store.state == Editor(document: Document(), selection: 7))
    try store.dispatchAll(Select.at(9), UndoAction.redo)
    #expect(store.state == Editor(document: Document(text: "a"), selection: 9))
  }

  @Test("a lens scope records and restores through the lens")
  func lensScope() throws {
    let title = Lens<Editor, String>(
      get: { $0.document.title }, set: { $0.document.title = $1 })
    let undo = try UndoMiddleware<Editor>(scope: title)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.rename("One"), Edit.type("x"), Edit.rename("Two"))
    #expect(undo.pastCount == 2)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document == Document(text: "x", title: "One"))
  }

  @Test("whole-state undo restores every substate")
  func wholeState() throws {
    let undo = try UndoMiddleware<Editor>()
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Select.at(4))
    #expect(undo.pastCount == 2)
    try store.dispatchAll(UndoAction.undo, UndoAction.undo)
    #expect(store.state == Editor())
  }

  @Test("a ReplaceState dispatched by the app is recorded like any change")
  func replaceStateRecorded() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    try store.dispatchAll(ReplaceState(Editor(document: Document(text: "loaded"), selection: 1)))
    #expect(undo.pastCount == 1)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state == Editor(document: Document(), selection: 1))
  }

  @Test("an action rejected further down the chain records no step")
  func rejectedRecordsNothing() throws {
    struct Refused: Error {}
    let guardian = AnyMiddleware<Editor>(name: "guard") { action, _, next in
      if let edit = action as? Edit, edit == .rename("forbidden") { throw Refused() }
      try next(action)
    }
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo, after: [guardian])
    #expect(throws: DispatchError.self) { try store.dispatchAll(Edit.rename("forbidden")) }
    #expect(undo.pastCount == 0)
  }

  @Test("middleware before undo see the command; middleware after it see only ReplaceState")
  func commandsStayOutOfTheReducers() throws {
    let outer = Recorder<Editor>(name: "outer")
    let inner = Recorder<Editor>(name: "inner")
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo, before: [outer], after: [inner])
    try store.dispatchAll(
      UndoAction.beginGroup(label: "G"), Edit.type("a"), UndoAction.endGroup, UndoAction.undo,
      UndoAction.redo, UndoAction.jump(-1), UndoAction.clearHistory)

    #expect(outer.actions.filter { $0 is UndoAction }.count == 6)
    #expect(!inner.actions.contains { $0 is UndoAction })
    #expect(inner.actions.count { $0 is ReplaceState<Editor> } == 3)
    #expect(inner.actions.count { $0 is Edit } == 1)
  }

  @Test("clearHistory forgets past and future and keeps the present")
  func clearHistory() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.type("b"), Edit.type("c"), UndoAction.undo)
    try store.dispatchAll(UndoAction.clearHistory)
    #expect(store.state.document.text == "ab")
    #expect(undo.status == UndoStatus())
    try store.dispatchAll(Edit.type("d"), UndoAction.undo, UndoAction.undo)
    #expect(store.state.document.text == "ab")
  }

  @Test(
    "jump moves several steps with one ReplaceState and clamps to what exists",
    arguments: [
      (-1, ""), (-2, ""), (-99, ""), (Int.min, ""), (1, "ab"), (2, "abc"), (99, "abc"),
      (Int.max, "abc"), (0, "a"),
    ])
  func jump(offset: Int, expected: String) throws {
    let inner = Recorder<Editor>(name: "inner")
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo, after: [inner])
    try store.dispatchAll(Edit.type("a"), Edit.type("b"), Edit.type("c"), UndoAction.jump(-2))
    let replacementsBefore = inner.actions.count { $0 is ReplaceState<Editor> }

    try store.dispatchAll(UndoAction.jump(offset))
    #expect(store.state.document.text == expected)
    #expect(undo.pastCount == expected.count)
    #expect(undo.futureCount == 3 - expected.count)
    let replacements = inner.actions.count { $0 is ReplaceState<Editor> } - replacementsBefore
    #expect(replacements == (expected == "a" ? 0 : 1))
  }

  @Test("labels name the next step to undo and to redo")
  func labels() throws {
    let undo = try UndoMiddleware<Editor>(
      scope: \.document,
      label: { action in
        switch action as? Edit {
        case .type: "Typing"
        case .rename: "Rename"
        default: nil
        }
      })
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.rename("T"))
    #expect(undo.undoLabel == "Rename" && undo.redoLabel == nil)
    try store.dispatchAll(UndoAction.undo)
    #expect(undo.undoLabel == "Typing" && undo.redoLabel == "Rename")
    try store.dispatchAll(UndoAction.undo)
    #expect(undo.undoLabel == nil && undo.redoLabel == "Typing")
    try store.dispatchAll(Edit.deleteLast, Edit.type("z"))
    #expect(undo.undoLabel == "Typing" && undo.redoLabel == nil)
    try store.dispatchAll(UndoAction.undo)
    #expect(undo.undoLabel == nil && undo.redoLabel == "Typing")
  }

  @Test("a limit below 1 is an init error", arguments: [0, -1, Int.min])
  func invalidLimit(limit: Int) {
    #expect(throws: UndoError.invalidLimit(limit)) {
      try UndoMiddleware<Editor>(scope: \.document, limit: limit)
    }
    #expect(throws: UndoError.invalidLimit(limit)) { try UndoMiddleware<Editor>(limit: limit) }
  }

  @Test("one instance serves one store; a second store is refused with a typed error")
  func oneStore() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let first = try makeStore(undo)
    let reason = UndoError.alreadyAttached(name: "UndoMiddleware").description
    #expect(throws: RegistrationError.middlewareRefused(name: "UndoMiddleware", reason: reason)) {
      try makeStore(undo)
    }
    let second = try Store(initialState: Editor(), mutators: [documentMutator])
    #expect(throws: RegistrationError.middlewareRefused(name: "UndoMiddleware", reason: reason)) {
      try second.use(undo)
    }
    try first.dispatchAll(Edit.type("a"))
    #expect(undo.pastCount == 1)
  }

  @Test("leaving a store forgets its history and frees the middleware for another store")
  func detach() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    var first: Store<Editor>? = try makeStore(undo)
    try first?.dispatchAll(Edit.type("a"), Edit.type("b"), UndoAction.undo)
    first = nil
    #expect(undo.status == UndoStatus())

    let second = try makeStore(undo, initialState: Editor(document: Document(text: "x")))
    try second.dispatchAll(Edit.type("y"))
    #expect(undo.pastCount == 1)
    #expect(second.removeMiddleware(named: "UndoMiddleware"))
    #expect(undo.status == UndoStatus())
    try second.use(undo)
    try second.dispatchAll(UndoAction.undo)
    #expect(second.state.document.text == "xy")
  }

  @Test("two undo middleware with their own names track their own scopes")
  func twoScopes() throws {
    let documentUndo = try UndoMiddleware<Editor>(scope: \.document, name: "documentUndo")
    let selectionUndo = try UndoMiddleware<Editor>(scope: \.selection, name: "selectionUndo")
    let store = try Store(
      initialState: Editor(), mutators: [documentMutator, selectionMutator],
      middleware: [documentUndo, selectionUndo])
    try store.dispatchAll(Edit.type("a"), Select.at(3))
    #expect(documentUndo.pastCount == 1 && selectionUndo.pastCount == 1)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state == Editor(document: Document(), selection: 3))
    #expect(selectionUndo.pastCount == 1)
  }

  @Test("statuses yields the current status, then each change", .timeLimit(.minutes(1)))
  func statuses() async throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document, label: { _ in "Edit" })
    let store = try makeStore(undo)
    var iterator = undo.statuses.makeAsyncIterator()
    #expect(await iterator.next() == UndoStatus())
    try store.dispatchAll(Edit.type("a"))
    #expect(await iterator.next() == UndoStatus(pastCount: 1, undoLabel: "Edit"))
    try store.dispatchAll(UndoAction.undo)
    #expect(await iterator.next() == UndoStatus(futureCount: 1, redoLabel: "Edit"))
  }

  @Test("statuses ends when the middleware is deinitialised", .timeLimit(.minutes(1)))
  func statusesEnd() async throws {
    var undo: UndoMiddleware<Editor>? = try UndoMiddleware<Editor>(scope: \.document)
    var iterator = undo?.statuses.makeAsyncIterator()
    #expect(await iterator?.next() == UndoStatus())
    undo = nil
    #expect(await iterator?.next() == nil)
  }

  @Test("reading canUndo inside withObservationTracking is told of the change")
  func observation() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    let changed = Flag()
    withObservationTracking({ _ = undo.canUndo }, onChange: { changed.set() })
    try store.dispatchAll(Select.at(1))
    #expect(!changed.isSet)
    try store.dispatchAll(Edit.type("a"))
    #expect(changed.isSet)
  }

  @Test(
    "an error describes the problem and the fix",
    arguments: [
      (UndoError.invalidLimit(0), "pass a limit of 1 or more"),
      (UndoError.alreadyAttached(name: "u"), "one UndoMiddleware per store"),
      (UndoError.unmatchedEndGroup, "pair every endGroup with a beginGroup"),
      (UndoError.commandInBatch, "dispatch undo commands on their own"),
    ])
  func descriptions(error: UndoError, fix: String) {
    #expect(error.description.contains(fix))
  }
}
