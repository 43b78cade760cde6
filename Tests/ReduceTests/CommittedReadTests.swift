import Foundation
import Reduce
import Testing

/// Another thread reads committed states only: never a batch's first actions, nor a change a
/// commit observer is about to refuse.
@Suite struct CommittedReadTests {
  /// Starts a thread that reads the counter through `read`, and returns a wait for its value.
  func readOnAnotherThread(_ read: @escaping @Sendable () -> Int) -> @Sendable () -> Int {
    let value = Probe<Int>()
    let done = DispatchSemaphore(value: 0)
    Thread {
      value.append(read())
      done.signal()
    }.start()
    return {
      done.wait()
      return value.values[0]
    }
  }

  @Test("a read during a batch that fails sees the state before the batch")
  func batch() throws {
    let box = StoreBox()
    let pending = Probe<@Sendable () -> Int>()
    let spy = AnyMiddleware<TestState>(name: "spy") { action, _, next in
      if (action as? Increment)?.by == 2, let store = box.store {
        // The batch's first action is reduced already; the read must not see it.
        pending.append(readOnAnotherThread { store.state.counter })
        throw TestError(reason: "refused")
      }
      try next(action)
    }
    let store = try makeStore(middleware: [spy])
    box.store = store
    #expect(store.dispatch(Batch([Increment(by: 1), Increment(by: 2)])).failure != nil)
    #expect(pending.values[0]() == 0)
    #expect(store.state.counter == 0)
  }

  @Test("a read while a change is shown to willCommit, which refuses it, sees the state before")
  func refusedChange() throws {
    let box = StoreBox()
    let pending = Probe<@Sendable () -> Int>()
    let mayThrow = Mutator(\TestState.counter) { (counter: inout Int, action: Increment) throws in
      counter += action.by
    }
    let refusing = AnyRecorder(
      name: "wal",
      observer: CommitObserver(willCommit: { _ in
        if let store = box.store { pending.append(readOnAnotherThread { store.state.counter }) }
        throw TestError(reason: "disk full")
      }))
    let store = try Store(initialState: TestState(), mutators: [mayThrow], middleware: [refusing])
    box.store = store
    #expect(store.dispatch(Increment(by: 5)).failure != nil)
    #expect(pending.values[0]() == 0)
    #expect(store.state.counter == 0)
  }
}
