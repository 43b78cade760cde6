import Foundation
import Reduce
import ReduceThunk
import Synchronization
import Testing

/// Thunks that say by name when they start, then wait for their cancellation and say so too.
struct WaitingThunks {
  private let startedInput: AsyncStream<String>.Continuation
  private let endedInput: AsyncStream<String>.Continuation
  private var startedNames: AsyncStream<String>.AsyncIterator
  private var endedNames: AsyncStream<String>.AsyncIterator

  init() {
    let (started, startedInput) = AsyncStream<String>.makeStream()
    let (ended, endedInput) = AsyncStream<String>.makeStream()
    self.startedInput = startedInput
    self.endedInput = endedInput
    startedNames = started.makeAsyncIterator()
    endedNames = ended.makeAsyncIterator()
  }

  /// A thunk named `name` that waits until it is cancelled, then throws `CancellationError`.
  func thunk(_ name: String, id: String, cancelInFlight: Bool = false) -> Thunk<AppState, Int> {
    Thunk(id: id, cancelInFlight: cancelInFlight) { [startedInput, endedInput] _ in
      startedInput.yield(name)
      do {
        try await suspendUntilCancelled()
      } catch {
        endedInput.yield(name)
        throw error
      }
      return 0
    }
  }

  /// Performs the thunk `thunk(name, id:, cancelInFlight:)` on `store` in a task of its own.
  func perform(
    _ name: String, id: String, cancelInFlight: Bool = false, on store: Store<AppState>
  ) -> Task<Int, any Error> {
    let thunk = thunk(name, id: id, cancelInFlight: cancelInFlight)
    return Task { try await store.perform(thunk) }
  }

  /// The name of the next thunk that started.
  mutating func nextStarted() async -> String? { await startedNames.next() }

  /// The name of the next thunk that ended on its cancellation.
  mutating func nextEnded() async -> String? { await endedNames.next() }

  /// The names of the next `count` thunks that ended on their cancellation, in any order.
  mutating func nextEnded(_ count: Int) async -> Set<String> {
    var names: Set<String> = []
    for _ in 0..<count {
      if let name = await endedNames.next() { names.insert(name) }
    }
    return names
  }
}

/// Checks that `outcome` is a dispatch the thunk middleware dropped because its thunk was
/// cancelled, and that the store's count is still 0.
func expectDroppedForCancellation(
  _ outcome: Result<AppState, DispatchError>, in store: Store<AppState>,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  guard case .failure(.rejected("ThunkMiddleware", _, let underlying)) = outcome else {
    Issue.record("expected a dropped dispatch, got \(outcome)", sourceLocation: sourceLocation)
    return
  }
  #expect(underlying is CancellationError, sourceLocation: sourceLocation)
  #expect(store.state.count == 0, sourceLocation: sourceLocation)
}

@Suite struct ThunkCancellationTests {
  @Test(
    "CancelThunks(id:) cancels the thunks with that id, and their perform throws CancellationError",
    .timeLimit(.minutes(1)))
  func cancelByID() async throws {
    let store = try makeStore()
    var waiting = WaitingThunks()
    let a1 = waiting.perform("a1", id: "a", on: store)
    let a2 = waiting.perform("a2", id: "a", on: store)
    let b = waiting.perform("b", id: "b", on: store)
    var names: Set<String> = []
    for _ in 0..<3 { names.insert(try #require(await waiting.nextStarted())) }
    #expect(names == ["a1", "a2", "b"])

    store.dispatch(CancelThunks(id: "a"))
    await #expect(throws: CancellationError.self) { try await a1.value }
    await #expect(throws: CancellationError.self) { try await a2.value }
    #expect(await waiting.nextEnded(2) == ["a1", "a2"])

    store.dispatch(CancelThunks.all)
    await #expect(throws: CancellationError.self) { try await b.value }
    #expect(await waiting.nextEnded() == "b")
  }

  @Test("cancelInFlight cancels the running thunk with the same id", .timeLimit(.minutes(1)))
  func cancelInFlight() async throws {
    let store = try makeStore()
    var waiting = WaitingThunks()
    let first = waiting.perform("first", id: "search", cancelInFlight: true, on: store)
    #expect(await waiting.nextStarted() == "first")
    let second = Thunk<AppState, Int>(id: "search", cancelInFlight: true) { _ in
      await Task.yield()
      return 2
    }
    #expect(try await store.perform(second) == 2)
    await #expect(throws: CancellationError.self) { try await first.value }
    #expect(await waiting.nextEnded() == "first")
  }

  @Test("cancelling the calling task cancels the thunk it performs", .timeLimit(.minutes(1)))
  func callerCancellation() async throws {
    let store = try makeStore()
    var waiting = WaitingThunks()
    let task = waiting.perform("load", id: "load", on: store)
    #expect(await waiting.nextStarted() == "load")
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(await waiting.nextEnded() == "load")
  }

  @Test("perform from a cancelled task throws CancellationError without running the thunk")
  func alreadyCancelled() async throws {
    let store = try makeStore()
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await store.perform(
        Thunk<AppState, Void> { context in context.dispatch(CountAction.incremented(by: 1)) })
    }
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(store.state.count == 0)
  }

  @Test(
    "perform throws CancellationError at once even when the body ignores cancellation",
    .timeLimit(.minutes(1)))
  func bodyIgnoresCancellation() async throws {
    let store = try makeStore()
    let gate = Gate()
    let (started, startedInput) = AsyncStream<Void>.makeStream()
    var starts = started.makeAsyncIterator()
    let stubborn = Thunk<AppState, Int>(id: "stubborn") { _ in
      startedInput.yield()
      await gate.wait()
      return 1
    }
    let byID = Task { try await store.perform(stubborn) }
    await starts.next()
    store.dispatch(CancelThunks(id: "stubborn"))
    await #expect(throws: CancellationError.self) { try await byID.value }

    let byCaller = Task { try await store.perform(stubborn) }
    await starts.next()
    byCaller.cancel()
    await #expect(throws: CancellationError.self) { try await byCaller.value }
    gate.open()
  }

  @Test(
    "deinitialising the store cancels its running thunks, which do not keep it alive",
    .timeLimit(.minutes(1)))
  func storeDeinit() async throws {
    var store: Store<AppState>? = try makeStore()
    weak let weakStore = store
    var waiting = WaitingThunks()
    for name in ["one", "two"] { store?.dispatch(waiting.thunk(name, id: name)) }
    #expect(await waiting.nextStarted() != nil)
    #expect(await waiting.nextStarted() != nil)

    store = nil
    #expect(weakStore == nil)
    #expect(await waiting.nextEnded(2) == ["one", "two"])
  }

  @Test(
    "one ThunkMiddleware serves two stores, and cancelling in one leaves the other's thunks",
    .timeLimit(.minutes(1)))
  func sharedMiddleware() async throws {
    let thunks = ThunkMiddleware<AppState, Void>()
    let first = try Store(initialState: AppState(), middleware: [thunks])
    var second: Store<AppState>? = try Store(initialState: AppState(), middleware: [thunks])
    var waiting = WaitingThunks()
    let inFirst = waiting.perform("first", id: "load", on: first)
    #expect(await waiting.nextStarted() == "first")
    second?.dispatch(waiting.thunk("second", id: "load"))
    #expect(await waiting.nextStarted() == "second")

    second?.dispatch(CancelThunks(id: "load"))
    #expect(await waiting.nextEnded() == "second")
    second?.dispatch(waiting.thunk("third", id: "load"))
    #expect(await waiting.nextStarted() == "third")
    second = nil
    #expect(await waiting.nextEnded() == "third")

    first.dispatch(CancelThunks(id: "load"))
    await #expect(throws: CancellationError.self) { try await inFirst.value }
    #expect(await waiting.nextEnded() == "first")
  }

  @Test("removing the ThunkMiddleware cancels its running thunks", .timeLimit(.minutes(1)))
  func removeMiddleware() async throws {
    let store = try makeStore()
    var waiting = WaitingThunks()
    let task = waiting.perform("load", id: "load", on: store)
    #expect(await waiting.nextStarted() == "load")
    #expect(store.removeMiddleware(named: "ThunkMiddleware"))
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(await waiting.nextEnded() == "load")
  }

  @Test("a cancelled thunk's dispatches are dropped and not published", .timeLimit(.minutes(1)))
  func cancelledDispatchesDropped() async throws {
    let store = try makeStore()
    var errors = store.errors.makeAsyncIterator()
    let (started, startedInput) = AsyncStream<Void>.makeStream()
    let (results, resultInput) = AsyncStream<Result<AppState, DispatchError>>.makeStream()
    var starts = started.makeAsyncIterator()
    var outcomes = results.makeAsyncIterator()
    store.dispatch(
      Thunk<AppState, Void>(id: "late") { context in
        startedInput.yield()
        try? await suspendUntilCancelled()
        resultInput.yield(context.dispatch(CountAction.incremented(by: 1)))
      })
    await starts.next()
    store.dispatch(CancelThunks(id: "late"))
    expectDroppedForCancellation(try #require(await outcomes.next()), in: store)
    // The next published error is a later one: the dropped dispatch published nothing.
    store.dispatch(Thunk<AppState, Void> { _ in throw Failure(code: 9) })
    #expect(try #require(await errors.next()).underlying as? Failure == Failure(code: 9))
  }

  @Test(
    "a thunk cancelled while its dispatch waits for the store's turn has that action dropped",
    .timeLimit(.minutes(1)))
  func cancelledWhileWaitingForTheTurn() async throws {
    // Holds the store's turn on a thread of its own until the test opens `release`.
    let holding = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let holdTurn = AnyMiddleware<AppState>(name: "hold") { action, _, next in
      if action is NoteAction {
        holding.signal()
        release.wait()
      }
      try next(action)
    }
    let store = try makeStore(dependencies: (), before: [holdTurn])
    let (started, startedInput) = AsyncStream<Void>.makeStream()
    let (results, resultInput) = AsyncStream<Result<AppState, DispatchError>>.makeStream()
    let gate = Gate()
    var starts = started.makeAsyncIterator()
    var outcomes = results.makeAsyncIterator()
    let task = Task {
      try await store.perform(
        Thunk<AppState, Int> { context in
          startedInput.yield()
          await gate.wait()
          resultInput.yield(context.dispatch(CountAction.incremented(by: 1)))
          return 1
        })
    }
    await starts.next()
    let holder = Thread { store.dispatch(NoteAction.noted("hold")) }
    holder.start()
    holding.wait()
    gate.open()
    // Give the thunk's dispatch time to start waiting for the turn; if it has not by then, the
    // check made before it waits drops it instead: the outcome is the same.
    try await Task.sleep(for: .milliseconds(50))
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    release.signal()
    expectDroppedForCancellation(try #require(await outcomes.next()), in: store)
    #expect(!store.state.seen.contains("CountAction"))
  }
}
