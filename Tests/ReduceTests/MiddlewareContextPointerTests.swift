import Foundation
import Reduce
import Testing

/// `MiddlewareContext.withUnsafeState`, the pointer form of `read` the undo plugin uses.
@Suite struct MiddlewareContextPointerTests {
  @Test("withUnsafeState reads the state before next, and after it once next returned")
  func aroundNext() throws {
    let seen = Probe<Int>()
    let spy = AnyMiddleware<TestState>(name: "spy") { action, context, next in
      seen.append(context.withUnsafeState { $0.pointee.counter })
      try next(action)
      seen.append(context.withUnsafeState { $0.pointee.counter })
    }
    let store = try makeStore(middleware: [spy])
    store.dispatch(Increment(by: 5))
    store.dispatch(Increment(by: 2))
    #expect(seen.values == [0, 5, 5, 7])
  }

  @Test("a context kept after its dispatch reads the current state through the pointer")
  func keptContext() throws {
    let kept = Probe<MiddlewareContext<TestState>>()
    let store = try makeStore(middleware: [contextKeeper(kept)])
    store.dispatch(Increment(by: 2))
    let first = try #require(kept.values.first)
    store.dispatch(Increment(by: 3))
    #expect(first.withUnsafeState { $0.pointee.counter } == 5)
    let elsewhere = Box(-1)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      elsewhere.value = first.withUnsafeState { $0.pointee.counter }
      done.signal()
    }
    thread.start()
    done.wait()
    #expect(elsewhere.value == 5)
  }
}
