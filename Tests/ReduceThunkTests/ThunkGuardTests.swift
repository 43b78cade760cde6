import Reduce
import ReduceThunk
import Testing

/// No way around a guard through a thunk (issue 13): every action a thunk dispatches goes through
/// the chain from the top, so a guard placed after `ThunkMiddleware` checks it before it can reach
/// the reducers. (A thunk inside a `Batch` is rejected: `ThunkTests.batchWithThunk`.)
@Suite struct ThunkGuardTests {
  /// A store with a count of 10 and, after `ThunkMiddleware`, a guard that refuses an increment
  /// taking the count below zero.
  func bank() throws -> Store<AppState> {
    let overdraftGuard = AnyMiddleware<AppState>(name: "guard") { action, context, next in
      if case .incremented(let amount)? = action as? CountAction, context.state.count + amount < 0 {
        throw Failure(code: 13)
      }
      try next(action)
    }
    let store = try makeStore(dependencies: (), after: [overdraftGuard])
    _ = try store.dispatch(CountAction.incremented(by: 10)).get()
    return store
  }

  @Test(
    "an action a synchronous thunk dispatches is stopped, and the failure is published",
    .timeLimit(.minutes(1)))
  func synchronousThunk() async throws {
    let store = try bank()
    var errors = store.errors.makeAsyncIterator()
    let thunk = Thunk<AppState, Void> { context in
      context.dispatch(CountAction.incremented(by: -20))
    }
    #expect(!thunk.isAsync)
    store.dispatch(thunk)
    try #require(store.state == AppState(count: 10, seen: ["CountAction"]))
    let error = try #require(await errors.next())
    guard case .rejected("guard", let action, let underlying) = error else {
      Issue.record("expected the guard's rejection, got \(error)")
      return
    }
    #expect(String(describing: action) == "incremented(by: -20)")
    #expect(underlying as? Failure == Failure(code: 13))
  }

  @Test("an action an async thunk dispatches is stopped", .timeLimit(.minutes(1)))
  func asyncThunk() async throws {
    let store = try bank()
    let thunk = Thunk<AppState, Result<AppState, DispatchError>> { context in
      await Task.yield()
      return context.dispatch(CountAction.incremented(by: -20))
    }
    #expect(thunk.isAsync)
    let result = try await store.perform(thunk)
    guard case .failure(.rejected("guard", let action, let underlying)) = result else {
      Issue.record("expected the guard's rejection, got \(result)")
      return
    }
    #expect(String(describing: action) == "incremented(by: -20)")
    #expect(underlying as? Failure == Failure(code: 13))
    #expect(store.state == AppState(count: 10, seen: ["CountAction"]))
  }
}
