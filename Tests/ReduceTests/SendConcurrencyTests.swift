import Foundation
import Reduce
import Testing

/// A state that says which action was reduced last, so a caller can tell its own result.
struct Tape: Equatable, Sendable {
  var count = 0
  var last = -1
  var followUps = 0
  var extra = 0
}

/// Stamps the tape with a caller's id.
struct Stamp: Action {
  var id: Int
}

/// Queued by an observer after some stamps.
struct FollowUp: Action {}

/// Holds the turn in a middleware until the test lets it go.
struct Hold: Action {}

let tapeMutators: [Mutator<Tape>] = [
  Mutator(\Tape.count) { (count: inout Int, _: Stamp) in count += 1 },
  Mutator(\Tape.last) { (last: inout Int, stamp: Stamp) in last = stamp.id },
  Mutator(\Tape.followUps) { (count: inout Int, _: FollowUp) in count += 1 },
]

/// Checks that each result is the state right after its own action: it names that action, and
/// no two results share a count.
func expectExact(_ results: [(id: Int, state: Tape?)], total: Int) {
  #expect(results.count == total)
  for (id, state) in results {
    #expect(state?.last == id, "the result of \(id) is the state after its own action")
  }
  #expect(Set(results.compactMap { $0.state?.count }).count == total)
}

/// A store whose turn a thread of its own holds, in a middleware, until `gate` is signalled.
func storeWithTurnHeld() async throws -> (Store<Tape>, DispatchSemaphore) {
  let gate = DispatchSemaphore(value: 0)
  let holding = Box<CheckedContinuation<Void, Never>?>(nil)
  let holder = AnyMiddleware<Tape>(name: "holder") { action, _, next in
    if action is Hold {
      holding.value?.resume()
      gate.wait()
    }
    try next(action)
  }
  let store = try Store(initialState: Tape(), mutators: tapeMutators, middleware: [holder])
  await withCheckedContinuation { continuation in
    holding.value = continuation
    Thread { store.dispatch(Hold()) }.start()
  }
  return (store, gate)
}

// Runs alone, and under ThreadSanitizer in CI, like every `...ConcurrencyTests` suite.
@Suite(.serialized) struct SendConcurrencyTests {
  @Test(
    "10,000 concurrent tasks sending to one store all finish, each with its exact result",
    .timeLimit(.minutes(1)))
  func tenThousandSenders() async throws {
    let total = 10_000
    let store = try Store(initialState: Tape(), mutators: tapeMutators)
    let results = await withTaskGroup(of: (id: Int, state: Tape?).self) { group in
      for id in 0..<total {
        group.addTask { (id, await store.send(Stamp(id: id)).success) }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    expectExact(results, total: total)
    #expect(store.state.count == total)
  }

  @Test(
    "senders waiting for a busy store suspend: other tasks keep running meanwhile",
    .timeLimit(.minutes(1)))
  func waitingSendersDoNotStarveThePool() async throws {
    let (store, gate) = try await storeWithTurnHeld()
    let senders = 1_000
    let group = Task {
      await withTaskGroup(of: (id: Int, state: Tape?).self) { group in
        for id in 0..<senders {
          group.addTask { (id, await store.send(Stamp(id: id)).success) }
        }
        return await group.reduce(into: []) { $0.append($1) }
      }
    }
    // With a thousand senders waiting, work that needs the cooperative pool still runs.
    let progress = await Task.detached {
      var steps = 0
      for _ in 0..<1_000 {
        await Task.yield()
        steps += 1
      }
      return steps
    }.value
    #expect(progress == 1_000)
    #expect(store.state.count == 0, "the senders are still waiting")
    gate.signal()
    expectExact(await group.value, total: senders)
  }

  @Test("a send whose task is cancelled while it waits still runs, whole")
  func cancelledSendStillRuns() async throws {
    let (store, gate) = try await storeWithTurnHeld()
    let sender = Task { await store.send(Stamp(id: 7)) }
    sender.cancel()
    gate.signal()
    let result = await sender.value
    #expect(result.success?.last == 7)
    #expect(store.state.count == 1)
  }

  @Test(
    "a combined dispatch returns its follow-ups, and its observers ran before it returned",
    .timeLimit(.minutes(1)))
  func combinedResultsIncludeFollowUpsAndObservers() async throws {
    let perThread = 2_000
    let threads = 8
    let store = try Store(initialState: Tape(), mutators: tapeMutators)
    let seen = Box(Set<Int>())
    let subscription = store.subscribe(to: \.last) { last in
      seen.update { _ = $0.insert(last) }
      if last >= 0, last % 10 == 0 { store.dispatch(FollowUp()) }
    }
    let results = Probe<(id: Int, state: Tape?)>()
    let missed = Box(0)
    await onThreads(threads) { thread in
      for index in 0..<perThread {
        let id = thread * perThread + index
        let state = store.dispatch(Stamp(id: id)).success
        results.append((id, state))
        // The observer of this action ran before dispatch returned, on whichever thread.
        if !seen.update({ $0.contains(id) }) { missed.update { $0 += 1 } }
        if id % 10 == 0, let state, state.followUps < 1 { missed.update { $0 += 1 } }
      }
    }
    expectExact(results.values, total: threads * perThread)
    #expect(missed.value == 0)
    #expect(store.state.followUps == threads * perThread / 10)
    subscription.cancel()
  }

  @Test(
    "8 threads and 1,000 tasks mixing dispatch, send, subscriptions, registration and middleware changes",
    .timeLimit(.minutes(1)))
  func mixedStress() async throws {
    let threads = 8
    let perThread = 500
    let senders = 1_000
    let store = try Store(initialState: Tape(), mutators: tapeMutators)
    let relayed = Box(0)
    let results = Probe<(id: Int, state: Tape?)>()
    async let threadWork: Void = onThreads(threads) { thread in
      for index in 0..<perThread {
        let id = thread * perThread + index
        results.append((id, store.dispatch(Stamp(id: id)).success))
        guard index % 25 == 0 else { continue }
        switch thread {
        case 0:
          let key = MutatorKey("extra-\(index)")
          let extra = Mutator(\Tape.extra, key: key) { (extra: inout Int, _: FollowUp) in
            extra += 1
          }
          try? store.register(extra)
          store.unregister(key)
        case 1:
          let name = "relay-\(index)"
          let relay = AnyMiddleware<Tape>(name: name) { action, _, next in
            relayed.update { $0 += 1 }
            try next(action)
          }
          try? store.use(relay)
          store.removeMiddleware(named: name)
        case 2:
          let values = Probe<Int>()
          let subscription = store.subscribe(to: \.count) { values.append($0) }
          store.dispatch(FollowUp())
          subscription.cancel()
          #expect(isConsecutive(values.values) || values.values.count <= 1)
        default:
          break
        }
      }
    }
    let sent = await withTaskGroup(of: (id: Int, state: Tape?).self) { group in
      for index in 0..<senders {
        let id = threads * perThread + index
        group.addTask { (id, await store.send(Stamp(id: id)).success) }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    await threadWork
    expectExact(results.values + sent, total: threads * perThread + senders)
    #expect(store.state.count == threads * perThread + senders)
    #expect(store.mutatorKeys.count == tapeMutators.count)
    #expect(store.middlewareNames.isEmpty)
  }
}
