import Reduce
import Testing

/// A value whose storage counts the copies that changing it made: a copy-on-write value like the
/// standard library's collections, which tells when a change found its storage shared.
struct CountedStorage: Sendable {
  final class Storage: @unchecked Sendable {
    var value: Int

    init(_ value: Int) {
      self.value = value
    }
  }

  private var storage = Storage(0)
  let copies: Box<Int>

  init(copies: Box<Int>) {
    self.copies = copies
  }

  var value: Int { storage.value }

  mutating func add(_ amount: Int) {
    if !isKnownUniquelyReferenced(&storage) {
      copies.update { $0 += 1 }
      storage = Storage(storage.value)
    }
    storage.value += amount
  }
}

struct CountedState: Sendable {
  var counted: CountedStorage
  var slots = [Int](repeating: 0, count: 8)
}

/// Adds to the counted value and to one slot.
struct Deposit: Action {
  var slot: Int
}

let countedMutator = Mutator(\CountedState.counted) { (counted: inout CountedStorage, _: Deposit) in
  counted.add(1)
}

let slotsMutator = Mutator(\CountedState.slots) { (slots: inout [Int], action: Deposit) in
  slots[action.slot] += 1
}

/// A store of `CountedState` whose changes count their copies in `copies`.
func makeCountedStore(copies: Box<Int>) throws -> Store<CountedState> {
  try Store(
    initialState: CountedState(counted: CountedStorage(copies: copies)),
    mutators: [countedMutator, slotsMutator])
}

/// `dispatch(_:returning:)` and `send(_:returning:)`: a value read from the state the action
/// produced, instead of the state.
@Suite struct ReadingDispatchTests {
  @Test("the value is read from the state the action produced, follow-ups included")
  func readsTheProducedState() throws {
    // On each `Increment` of 1, a follow-up appends the counter: queued, it runs before the
    // dispatch returns.
    let follow = AnyMiddleware<TestState>(name: "follow") { action, context, next in
      try next(action)
      if (action as? Increment)?.by == 1 { context.dispatch(Append(value: context.state.counter)) }
    }
    let store = try makeStore(mutators: [counterMutator, itemsMutator], middleware: [follow])
    let read = store.dispatch(Increment(by: 1)) { state in "\(state.counter) \(state.items)" }
    #expect(try read.get() == "1 [1]")
    #expect(try store.dispatch(Increment(by: 5)) { $0.counter }.get() == 6)
  }

  @Test("a failed action returns its failure, and the value is not read")
  func failureIsNotRead() throws {
    let reads = Probe<Int>()
    let store = try makeStore(mutators: [counterMutator, throwingItemsMutator])
    let result = store.dispatch(Append(value: -1)) { state in
      reads.append(state.counter)
      return state.items
    }
    guard case .failure(.reducerFailed) = result else {
      Issue.record("expected reducerFailed, got \(result)")
      return
    }
    #expect(reads.values.isEmpty)
    #expect(try store.dispatch(Append(value: 4)) { $0.items }.get() == [4])
  }

  @Test("from inside a dispatch, the action is queued and the value read from the state now")
  func reentrant() throws {
    let inner = Probe<Int>()
    let box = StoreBox()
    let nested = AnyMiddleware<TestState>(name: "nested") { action, _, next in
      try next(action)
      guard (action as? Increment)?.by == 10, let store = box.store else { return }
      inner.append(try store.dispatch(Increment(by: 1)) { $0.counter }.get())
    }
    let store = try makeStore(middleware: [nested])
    box.store = store
    #expect(try store.dispatch(Increment(by: 10)) { $0.counter }.get() == 11)
    #expect(inner.values == [10])
  }

  @Test("an action dispatched from the reader, which it should not do, still runs before returning")
  func readerDispatches() throws {
    let box = StoreBox()
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    box.store = store
    let read = store.dispatch(Increment(by: 1)) { state in
      box.store?.dispatch(Append(value: 9))
      return state.counter
    }
    #expect(try read.get() == 1)
    #expect(store.state.items == [9])
  }

  @Test("work asked for before returning runs first, and its failure fails the dispatch")
  func beforeReturning() throws {
    let ran = Probe<Int>()
    let waiter = returnWaiter { action in
      guard let increment = action as? Increment else { return }
      ran.append(increment.by)
      if increment.by == 2 { throw TestError(reason: "flush") }
    }
    let store = try makeStore(middleware: [waiter])
    #expect(try store.dispatch(Increment(by: 1)) { $0.counter }.get() == 1)
    #expect(ran.values == [1])
    let failed = store.dispatch(Increment(by: 2)) { $0.counter }
    guard case .failure(.middlewareFailed(let name, _, _)) = failed else {
      Issue.record("expected middlewareFailed, got \(failed)")
      return
    }
    #expect(name == "waiter" && store.state.counter == 3)
  }

  @Test("a state returned by dispatch(_:) and still held makes the next change copy")
  func heldStateCopies() throws {
    // What the tests of many dispatchers below rule out, shown on one thread; it also shows
    // that the copy counting they rely on counts.
    let copies = Box(0)
    let store = try makeCountedStore(copies: copies)
    let held = try store.dispatch(Deposit(slot: 0)).get()
    #expect(copies.value == 0)
    _ = try store.dispatch(Deposit(slot: 0)) { $0.slots[0] }.get()
    #expect(copies.value == 1)
    #expect(held.counted.value == 1 && store.state.counted.value == 2)
    _ = try store.dispatch(Deposit(slot: 0)) { $0.slots[0] }.get()
    #expect(copies.value == 1)
  }

  @Test("send(_:returning:) reads the state its action produced")
  func send() async throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    #expect(try await store.send(Increment(by: 4)) { $0.counter }.get() == 4)
    #expect(try await store.send(Append(value: 7)) { $0.items }.get() == [7])
  }
}

/// Under ThreadSanitizer in CI: reading dispatches carried out by another thread's turn.
@Suite(.serialized) struct ReadingDispatchConcurrencyTests {
  @Test(
    "8 threads: each reads its own action's state, and no change copies the state",
    .timeLimit(.minutes(1)))
  func threads() async throws {
    let perThread = 2_000
    let copies = Box(0)
    let store = try makeCountedStore(copies: copies)
    let mismatches = Probe<String>()
    await onThreads(8) { thread in
      for count in 1...perThread {
        let read = store.dispatch(Deposit(slot: thread)) { $0.slots[thread] }
        if read.success != count { mismatches.append("thread \(thread): \(count) -> \(read)") }
      }
    }
    #expect(mismatches.values.isEmpty)
    #expect(store.state.counted.value == 8 * perThread)
    // Nothing kept the state while the store changed it: not a caller, not a served request.
    #expect(copies.value == 0)
  }

  @Test(
    "1,000 tasks sending: each reads its own action's state, and no change copies the state",
    .timeLimit(.minutes(1)))
  func tasks() async throws {
    let copies = Box(0)
    let store = try makeCountedStore(copies: copies)
    let reads = await withTaskGroup(of: Int?.self) { group in
      for task in 0..<1_000 {
        group.addTask { await store.send(Deposit(slot: task % 8)) { $0.counted.value }.success }
      }
      var reads: [Int] = []
      for await read in group { reads.append(read ?? -1) }
      return reads
    }
    // Each action added one: every value from 1 to 1,000 was read once, by the task whose action
    // produced it.
    #expect(reads.sorted() == Array(1...1_000))
    #expect(copies.value == 0)
  }

  @Test(
    "200 threads queued behind a held turn, more than one holder serves: each reads its own action",
    .timeLimit(.minutes(1)))
  func threadsQueuedBehindHeldTurn() async throws {
    let (store, gate) = try await storeWithTurnHeld()
    let readers = 200
    let mismatches = Probe<String>()
    let started = Probe<Int>()
    let running = Task {
      await onThreads(readers) { id in
        started.append(id)
        let read = store.dispatch(Stamp(id: id)) { $0.last }
        if read.success != id { mismatches.append("\(id) read \(read)") }
      }
    }
    // Every reader is about to dispatch, or waits for the turn already: none can take it.
    await waitUntil { started.count == readers }
    #expect(store.state.count == 0, "the readers are still waiting")
    gate.signal()
    await running.value
    #expect(mismatches.values.isEmpty)
    #expect(store.state.count == readers)
  }

  @Test(
    "1,000 tasks queued behind a held turn: each reads its own action",
    .timeLimit(.minutes(1)))
  func tasksQueuedBehindHeldTurn() async throws {
    let (store, gate) = try await storeWithTurnHeld()
    let senders = 1_000
    let started = Probe<Int>()
    let group = Task {
      await withTaskGroup(of: (id: Int, read: Int?).self) { group in
        for id in 0..<senders {
          group.addTask {
            started.append(id)
            return (id, await store.send(Stamp(id: id)) { $0.last }.success)
          }
        }
        return await group.reduce(into: []) { $0.append($1) }
      }
    }
    await waitUntil { started.count == senders }
    #expect(store.state.count == 0, "the senders are still waiting")
    gate.signal()
    let reads = await group.value
    #expect(reads.count == senders)
    #expect(reads.allSatisfy { $0.id == $0.read })
  }
}
