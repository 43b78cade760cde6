import Foundation
import Reduce
import Testing

/// A middleware that asks each dispatch to run `body` before it returns.
func returnWaiter(
  name: String = "waiter", _ body: @escaping @Sendable (any Action) throws -> Void
) -> AnyMiddleware<TestState> {
  AnyMiddleware(name: name) { action, context, next in
    try next(action)
    context.beforeReturning { try body(action) }
  }
}

/// `MiddlewareContext.beforeReturning(_:)`: work run on the dispatcher's thread after the turn,
/// before the dispatch returns.
@Suite struct BeforeReturningTests {
  @Test("the work runs before dispatch returns, on the dispatching thread, with the turn free")
  func runsBeforeReturn() throws {
    let seen = Probe<String>()
    let box = StoreBox()
    let waiter = returnWaiter { action in
      // The turn is free: a dispatch from here runs at once, as any other thread's would.
      if action is Increment, let store = box.store {
        seen.append("free \(store.dispatch(Append(value: 1)).map(\.items.count))")
      }
      seen.append("thread \(Thread.current.isMainThread ? "main" : "other") \(type(of: action))")
    }
    let store = try makeStore(mutators: [counterMutator, itemsMutator], middleware: [waiter])
    box.store = store
    let thread = Thread.current.isMainThread ? "main" : "other"
    let state = try store.dispatch(Increment(by: 1)).get()
    #expect(state.counter == 1)
    #expect(
      seen.values == ["thread \(thread) Append", "free success(1)", "thread \(thread) Increment"])
  }

  @Test("a failure fails the dispatch, is published, and leaves the change made")
  func failure() async throws {
    let waiter = returnWaiter { action in
      if (action as? Increment)?.by == 2 { throw TestError(reason: "flush") }
    }
    let store = try makeStore(middleware: [waiter])
    var errors = store.errors.makeAsyncIterator()
    let result = store.dispatch(Increment(by: 2))
    guard case .failure(.middlewareFailed(let name, _, let underlying)) = result else {
      Issue.record("expected middlewareFailed, got \(result)")
      return
    }
    #expect(name == "waiter" && underlying as? TestError == TestError(reason: "flush"))
    #expect(store.state.counter == 2)
    let published = await errors.next()
    #expect(published?.underlying as? TestError == TestError(reason: "flush"))
    #expect(try store.dispatch(Increment(by: 1)).get().counter == 3)
  }

  @Test("send runs the work on its task before it returns")
  func send() async throws {
    let count = Probe<Int>()
    let waiter = returnWaiter { _ in count.append(1) }
    let store = try makeStore(middleware: [waiter])
    let state = try await store.send(Increment(by: 3)).get()
    #expect(state.counter == 3 && count.values == [1])
  }
}

/// Under ThreadSanitizer in CI: the work of dispatches carried out by another thread.
@Suite struct BeforeReturningConcurrencyTests {
  @Test("each of many threads runs its own dispatch's work before its dispatch returns")
  func concurrentDispatchers() async throws {
    let done = Probe<Int>()
    let waiter = returnWaiter { action in
      if let increment = action as? Increment { done.append(increment.by) }
    }
    let store = try makeStore(middleware: [waiter])
    await withTaskGroup(of: Bool.self) { group in
      for thread in 1...8 {
        group.addTask {
          await Task.detached {
            for round in 0..<200 {
              let by = thread * 1000 + round
              _ = store.dispatch(Increment(by: by))
              if !done.values.contains(by) { return false }
            }
            return true
          }.value
        }
      }
      for await ranBeforeReturn in group { #expect(ranBeforeReturn) }
    }
    #expect(done.values.count == 1600)
  }
}

/// A store reference set after the store is made.
///
/// Weak: the store's middleware holds the box, and a strong reference would make a cycle that
/// keeps the store alive (leak detection found it).
final class StoreBox: @unchecked Sendable {
  weak var store: Store<TestState>?
}
