import Reduce
import Testing

@Suite struct SequenceTests {
  @Test("states starts with the current state, then yields each new state", .timeLimit(.minutes(1)))
  func statesYieldsNewStates() async throws {
    let store = try makeStore()
    store.dispatch(Increment(by: 2))
    var states = store.states.makeAsyncIterator()
    #expect(await states.next() == TestState(counter: 2))
    store.dispatch(Increment())
    #expect(await states.next() == TestState(counter: 3))
    store.dispatch(Increment())
    #expect(await states.next() == TestState(counter: 4))
  }

  @Test(
    "a slow consumer of states gets the newest state, and never the same state twice in a row",
    .timeLimit(.minutes(1)))
  func statesNewestAndDistinct() async throws {
    let store = try makeStore()
    var states = store.states.makeAsyncIterator()
    #expect(await states.next()?.counter == 0)
    store.dispatch(Increment())
    store.dispatch(Increment())
    #expect(await states.next()?.counter == 2)
    store.dispatch(Increment())
    store.dispatch(Increment(by: -1))
    store.dispatch(Increment(by: 5))
    #expect(await states.next()?.counter == 7)
  }

  @Test(
    "states(of:) starts with the current value, then yields each new value", .timeLimit(.minutes(1))
  )
  func statesOfKeyPath() async throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    var counters = store.states(of: \.counter).makeAsyncIterator()
    #expect(await counters.next() == 0)
    store.dispatch(Append(value: 1))
    store.dispatch(Increment())
    #expect(await counters.next() == 1)
    store.dispatch(Increment())
    store.dispatch(Increment(by: -1))
    store.dispatch(Append(value: 2))
    store.dispatch(Increment(by: 3))
    #expect(await counters.next() == 4)
  }

  @Test(
    "a sequence of a non-Equatable state yields a value for every notification",
    .timeLimit(.minutes(1)))
  func statesOfNonEquatableState() async throws {
    let counter = Mutator(\PlainState.counter) { (c: inout Int, a: Increment) in c += a.by }
    let store = try Store(initialState: PlainState(), mutators: [counter])
    var states = store.states.makeAsyncIterator()
    #expect(await states.next()?.counter == 0)
    store.dispatch(Increment(by: 0))
    #expect(await states.next()?.counter == 0)
  }

  @Test("two iterators of states each get every value from their creation", .timeLimit(.minutes(1)))
  func independentIterators() async throws {
    let store = try makeStore()
    var first = store.states(of: \.counter).makeAsyncIterator()
    #expect(await first.next() == 0)
    store.dispatch(Increment())
    var second = store.states(of: \.counter).makeAsyncIterator()
    #expect(await second.next() == 1)
    #expect(await first.next() == 1)
    store.dispatch(Increment())
    #expect(await first.next() == 2)
    #expect(await second.next() == 2)
  }

  @Test("states ends when the store is deinitialised", .timeLimit(.minutes(1)))
  func statesEndsWithStore() async throws {
    var store: Store<TestState>? = try makeStore()
    var states = try #require(store).states.makeAsyncIterator()
    #expect(await states.next() == TestState())
    store = nil
    #expect(await states.next() == nil)
  }

  @Test("states(of:) ends when the store is deinitialised", .timeLimit(.minutes(1)))
  func statesOfEndsWithStore() async throws {
    var store: Store<TestState>? = try makeStore()
    var counters = try #require(store).states(of: \.counter).makeAsyncIterator()
    #expect(await counters.next() == 0)
    store = nil
    #expect(await counters.next() == nil)
  }

  @Test(
    "a for-await loop over states ends when the store is deinitialised", .timeLimit(.minutes(1)))
  func forAwaitEndsWithStore() async throws {
    var store: Store<TestState>? = try makeStore()
    let states = try #require(store).states(of: \.counter)
    let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
    let loop = Task {
      var seen: [Int] = []
      for await value in states {
        seen.append(value)
        startedContinuation.yield()
      }
      return seen
    }
    for await _ in started { break }
    store = nil
    #expect(await loop.value == [0])
  }

  @Test("a sequence made after the store is gone is empty", .timeLimit(.minutes(1)))
  func sequenceOfGoneStore() async throws {
    var store: Store<TestState>? = try makeStore()
    let states = try #require(store).states
    let errors = try #require(store).errors
    store = nil
    var stateIterator = states.makeAsyncIterator()
    var errorIterator = errors.makeAsyncIterator()
    #expect(await stateIterator.next() == nil)
    #expect(await errorIterator.next() == nil)
  }

  @Test("cancelling the task that iterates states ends the iteration", .timeLimit(.minutes(1)))
  func cancellingIteration() async throws {
    let store = try makeStore()
    let states = store.states
    let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
    let loop = Task {
      var count = 0
      for await _ in states {
        count += 1
        startedContinuation.yield()
      }
      return count
    }
    for await _ in started { break }
    loop.cancel()
    #expect(await loop.value == 1)
    store.dispatch(Increment())
  }

  @Test("errors ends when the store is deinitialised", .timeLimit(.minutes(1)))
  func errorsEndsWithStore() async throws {
    var store: Store<TestState>? = try makeStore(mutators: [throwingItemsMutator])
    var errors = try #require(store).errors.makeAsyncIterator()
    store?.dispatch(Append(value: -1))
    #expect(await errors.next()?.failedKey == "\\TestState.items")
    store = nil
    #expect(await errors.next() == nil)
  }

  @Test("an iterator of errors that falls behind keeps the newest ones", .timeLimit(.minutes(1)))
  func errorsKeepNewest() async throws {
    let store = try makeStore(mutators: [throwingItemsMutator])
    var errors = store.errors.makeAsyncIterator()
    let total = ErrorSequence.bufferLimit + 10
    for index in 0..<total { store.dispatch(Append(value: -1 - index)) }
    var values: [Int] = []
    for _ in 0..<ErrorSequence.bufferLimit {
      values.append((await errors.next()?.action as? Append)?.value ?? 0)
    }
    #expect(values.first == -11)
    #expect(values.last == -total)
    #expect(isConsecutive(values.map { -$0 }))
  }

  @Test("each iterator of errors receives every failure", .timeLimit(.minutes(1)))
  func errorsToEveryIterator() async throws {
    let store = try makeStore(mutators: [throwingItemsMutator])
    var first = store.errors.makeAsyncIterator()
    var second = store.errors.makeAsyncIterator()
    store.dispatch(Append(value: -1))
    #expect(await first.next()?.failedKey == "\\TestState.items")
    #expect(await second.next()?.failedKey == "\\TestState.items")
  }
}
