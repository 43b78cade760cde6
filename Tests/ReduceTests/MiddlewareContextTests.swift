import Foundation
import Reduce
import Testing

/// Keeps the context of every `handle` call and passes the action on.
func contextKeeper(_ kept: Probe<MiddlewareContext<TestState>>) -> AnyMiddleware<TestState> {
  AnyMiddleware(name: "keeper") { action, context, next in
    kept.append(context)
    try next(action)
  }
}

/// Reads a context's state on a new thread and returns what it read.
func readOnAnotherThread(_ context: MiddlewareContext<TestState>) -> (state: Int, read: Int) {
  let result = Box((state: -1, read: -1))
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    result.value = (context.state.counter, context.state.counter)
    done.signal()
  }
  thread.start()
  done.wait()
  return result.value
}

/// The state a middleware context reads: in `handle` on the dispatching thread, and from a
/// context kept for later or read on another thread.
@Suite struct MiddlewareContextTests {
  @Test("a context read on another thread during handle gets the state before the action")
  func readOnAnotherThreadDuringHandle() throws {
    let seen = Probe<String>()
    let spy = AnyMiddleware<TestState>(name: "spy") { action, context, next in
      let before = readOnAnotherThread(context)
      seen.append("before \(before.state) \(before.read)")
      try next(action)
      let after = readOnAnotherThread(context)
      seen.append("after \(after.state) \(after.read)")
    }
    let store = try makeStore(middleware: [spy])
    store.dispatch(Increment(by: 1))
    store.dispatch(Increment(by: 2))
    #expect(seen.values == ["before 0 0", "after 1 1", "before 1 1", "after 3 3"])
  }

  @Test("a context kept after its dispatch reads the current state, here and on another thread")
  func keptContextReadsCurrentState() throws {
    let kept = Probe<MiddlewareContext<TestState>>()
    let store = try makeStore(middleware: [contextKeeper(kept)])
    store.dispatch(Increment(by: 2))
    let first = try #require(kept.values.first)
    #expect(first.state.counter == 2)
    store.dispatch(Increment(by: 3))
    #expect(first.state.counter == 5)
    #expect(first.state.counter == 5)
    let elsewhere = readOnAnotherThread(first)
    #expect(elsewhere.state == 5)
    #expect(elsewhere.read == 5)
  }

  @Test("a context kept from an earlier dispatch, read during a later one, sees the later state")
  func keptContextReadDuringLaterDispatch() throws {
    let kept = Box<MiddlewareContext<TestState>?>(nil)
    let seen = Probe<String>()
    let spy = AnyMiddleware<TestState>(name: "spy") { action, context, next in
      guard let earlier = kept.value else {
        kept.value = context
        try next(action)
        return
      }
      seen.append(
        "before \(earlier.state.counter) \(earlier.state.counter)")
      try next(action)
      seen.append(
        "after \(earlier.state.counter) \(earlier.state.counter)")
    }
    let store = try makeStore(middleware: [spy])
    store.dispatch(Increment(by: 2))
    store.dispatch(Increment(by: 3))
    #expect(seen.values == ["before 2 2", "after 5 5"])
  }

  @Test("a context read by an observer of its own dispatch sees the committed state")
  func contextReadByObserver() throws {
    let kept = Probe<MiddlewareContext<TestState>>()
    let store = try makeStore(middleware: [contextKeeper(kept)])
    let seen = Probe<String>()
    let subscription = store.subscribe(to: \.counter) { counter in
      guard let context = kept.last else { return }
      seen.append(
        "\(counter) \(context.state.counter) \(context.state.counter)")
    }
    store.dispatch(Increment(by: 6))
    #expect(seen.values == ["6 6 6"])
    subscription.cancel()
  }
}

// Runs alone, and CI reruns it under ThreadSanitizer, as every `...ConcurrencyTests` suite.
@Suite(.serialized) struct MiddlewareContextConcurrencyTests {
  @Test(
    "threads dispatching through a middleware that reads its context, while others read a kept one",
    .timeLimit(.minutes(1)))
  func contextReadsUnderContention() async throws {
    let perThread = 1_000
    let mismatches = Probe<String>()
    let kept = Box<MiddlewareContext<TestState>?>(nil)
    let reader = AnyMiddleware<TestState>(name: "reader") { action, context, next in
      if kept.value == nil { kept.value = context }
      let before = context.state.counter
      let borrowed = context.state.counter
      try next(action)
      let after = context.state.counter
      let borrowedAfter = context.state.counter
      if borrowed != before || after != before + 1 || borrowedAfter != after {
        mismatches.append("\(before) \(borrowed) \(after) \(borrowedAfter)")
      }
    }
    let store = try makeStore(middleware: [reader])
    store.dispatch(Increment())
    let old = try #require(kept.value)
    let lastSeen = Probe<Int>()
    await onThreads(4) { thread in
      if thread < 2 {
        for _ in 0..<perThread { store.dispatch(Increment()) }
      } else {
        // Readers of a kept context: the state only grows.
        var last = 0
        for _ in 0..<perThread {
          let now = thread == 2 ? old.state.counter : old.state.counter
          if now < last { mismatches.append("went back from \(last) to \(now)") }
          last = now
        }
        lastSeen.append(last)
      }
    }
    #expect(mismatches.values.isEmpty)
    #expect(store.state.counter == 2 * perThread + 1)
    #expect(old.state.counter == 2 * perThread + 1)
    #expect(lastSeen.count == 2)
  }

  @Test(
    "readers on other threads see whole actions only while dispatches through middleware commit",
    .timeLimit(.minutes(1)), arguments: [false, true])
  func readersWhileChainDispatchesCommit(mayThrow: Bool) async throws {
    // One handler that cannot throw takes the direct reduction; a throwing one the general one.
    // Through middleware, both commit without the lock and wake readers waiting for the commit.
    let writers = 3
    let perWriter = 2_000
    let both = Mutator(\TwinState.twin) { (twin: inout Twin, _: Step) in
      twin.first += 1
      twin.second += 1
    }
    let failing = Mutator(\TwinState.failures) { (_: inout Int, step: Step) throws(TestError) in
      if step.fail { throw TestError() }
    }
    let relay = AnyMiddleware<TwinState>(name: "relay") { action, _, next in try next(action) }
    let store = try Store(
      initialState: TwinState(), mutators: mayThrow ? [both, failing] : [both],
      middleware: [relay])
    let finished = Box(0)
    let violations = Probe<String>()
    let reads = Box(0)
    await onThreads(writers + 2) { thread in
      if thread < writers {
        for index in 0..<perWriter { store.dispatch(Step(fail: mayThrow && index % 5 == 0)) }
        finished.update { $0 += 1 }
        return
      }
      var last = 0
      var count = 0
      while finished.value < writers {
        let twin = store.state.twin
        count += 1
        if twin.first != twin.second { violations.append("torn: \(twin)") }
        if twin.first < last { violations.append("went back: \(last) -> \(twin.first)") }
        last = twin.first
      }
      reads.update { $0 += count }
    }
    #expect(violations.values.isEmpty)
    #expect(reads.value > 0)
    let succeeded = writers * perWriter * (mayThrow ? 4 : 5) / 5
    #expect(store.state.twin == Twin(first: succeeded, second: succeeded))
  }
}

/// Two counters one action changes together: a reader must never see them differ.
struct Twin: Equatable, Sendable {
  var first = 0
  var second = 0
}

/// A state with a ``Twin`` and a substate whose mutator may throw.
struct TwinState: Equatable, Sendable {
  var twin = Twin()
  var failures = 0
}

/// Steps both counters of a ``Twin``; with `fail`, the throwing mutator throws afterwards.
struct Step: Action {
  var fail = false
}
