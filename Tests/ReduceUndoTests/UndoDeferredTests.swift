import Reduce
import ReduceUndo
import Testing

/// An action a thunk-like middleware turns into work that dispatches an edit later.
struct LoadStarter: Action {}

/// Actions held back by a throttle or created by a thunk reach the undo middleware later.
///
/// They arrive in their own dispatch turn. `ReduceThrottle` and `ReduceThunk` are simulated here by small middleware
/// of the same shape, placed before the undo middleware as the guides recommend (the throttle
/// also after it, where undo records the late action all the same).
@Suite struct UndoDeferredTests {
  @Test(
    "an action whose next is called later from a task (a throttle) records normally, the throttle before undo or after it",
    .timeLimit(.minutes(1)), arguments: [true, false])
  func deferredNext(throttleBeforeUndo: Bool) async throws {
    let tasks = TaskList()
    let throttle = AnyMiddleware<Editor>(name: "throttle") { action, _, next in
      guard action is Edit else { return try next(action) }
      tasks.add(Task { try next(action) })
    }
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    // Before undo the throttle hands undo the edit late; after it, undo's watch sees the late
    // reduction of the edit it passed on. Either way the edit makes its step.
    let store =
      throttleBeforeUndo
      ? try makeStore(undo, before: [throttle]) : try makeStore(undo, after: [throttle])

    try store.dispatchAll(Edit.type("a"))
    try await tasks.waitForAll()
    #expect(store.state.document.text == "a")
    #expect(undo.pastCount == 1)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "")
    try store.dispatchAll(UndoAction.redo)
    #expect(store.state.document.text == "a")
  }

  @Test(
    "an action dispatched by middleware from a task (a thunk) records normally",
    .timeLimit(.minutes(1)))
  func dispatchedFromTask() async throws {
    let tasks = TaskList()
    let thunk = AnyMiddleware<Editor>(name: "thunk") { action, context, next in
      guard action is LoadStarter else { return try next(action) }
      tasks.add(
        Task {
          _ = try context.dispatch(Batch([Edit.rename("Starter"), Edit.type("milk")])).get()
          _ = try context.dispatch(Edit.type(", eggs")).get()
        })
    }
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo, before: [thunk])

    try store.dispatchAll(LoadStarter())
    try await tasks.waitForAll()
    #expect(store.state.document == Document(text: "milk, eggs", title: "Starter"))
    #expect(undo.pastCount == 2)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document == Document(text: "milk", title: "Starter"))
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document == Document())
  }

  @Test("an action a middleware dispatches while handling another records as its own step")
  func dispatchedDuringHandle() throws {
    let autocorrect = AnyMiddleware<Editor>(name: "autocorrect") { action, context, next in
      try next(action)
      if action is Edit, context.state.document.text.hasSuffix("teh") {
        context.dispatch(Batch([Edit.deleteLast, Edit.deleteLast, Edit.type("he")]))
      }
    }
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo, before: [autocorrect])
    try store.dispatchAll(Edit.type("teh"))
    #expect(store.state.document.text == "the")
    #expect(undo.pastCount == 2)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "teh")
  }
}
