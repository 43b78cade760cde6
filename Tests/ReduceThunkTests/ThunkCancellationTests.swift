import Foundation
import Reduce
import ReduceThunk
import Synchronization
import Testing

@Suite struct ThunkCancellationTests {
  /// A thunk that says when it starts, then waits for its cancellation and says so.
  static func waiting(
    _ name: String, id: String, cancelInFlight: Bool = false,
    started: AsyncStream<String>.Continuation, ended: AsyncStream<String>.Continuation
  ) -> Thunk<AppState, Int> {
    Thunk(id: id, cancelInFlight: cancelInFlight) { _ in
      started.yield(name)
      do {
        try await suspendUntilCancelled()
      } catch {
        ended.yield(name)
        throw error
      }
      return 0
    }
  }

  @Test(
    "CancelThunks(id:) cancels the thunks with that id, and their perform throws CancellationError",
    .timeLimit(.minutes(1)))
  func cancelByID() async throws {
    let store = try makeStore()
    let (started, startedInput) = AsyncStream<String>.makeStream()
    let (ended, endedInput) = AsyncStream<String>.makeStream()
    var startedNames = started.makeAsyncIterator()
    var endedNames = ended.makeAsyncIterator()
    let a1 = Task {
      try await store.perform(
        Self.waiting("a1", id: "a", started: startedInput, ended: endedInput))
    }
    let a2 = Task {
      try await store.perform(
        Self.waiting("a2", id: "a", started: startedInput, ended: endedInput))
    }
    let b = Task {
      try await store.perform(Self.waiting("b", id: "b", started: startedInput, ended: endedInput))
    }
    var names: Set<String> = []
    for _ in 0..<3 { names.insert(try #require(await startedNames.next())) }
    #expect(names == ["a1", "a2", "b"])

    store.dispatch(CancelThunks(id: "a"))
    await #expect(throws: CancellationError.self) { try await a1.value }
    await #expect(throws: CancellationError.self) { try await a2.value }
    let endedFirst = [await endedNames.next(), await endedNames.next()]
    #expect(Set(endedFirst.compactMap { $0 }) == ["a1", "a2"])

    store.dispatch(CancelThunks.all)
    await #expect(throws: CancellationError.self) { try await b.value }
    #expect(await endedNames.next() == "b")
  }

  @Test("cancelInFlight cancels the running thunk with the same id", .timeLimit(.minutes(1)))
  func cancelInFlight() async throws {
    let store = try makeStore()
    let (started, startedInput) = AsyncStream<String>.makeStream()
    let (ended, endedInput) = AsyncStream<String>.makeStream()
    var startedNames = started.makeAsyncIterator()
    let first = Task {
      try await store.perform(
        Self.waiting(
          "first", id: "search", cancelInFlight: true, started: startedInput, ended: endedInput))
    }
    #expect(await startedNames.next() == "first")
    let second = Thunk<AppState, Int>(id: "search", cancelInFlight: true) { _ in
      await Task.yield()
      return 2
    }
    #expect(try await store.perform(second) == 2)
    await #expect(throws: CancellationError.self) { try await first.value }
    var endedNames = ended.makeAsyncIterator()
    #expect(await endedNames.next() == "first")
  }

  @Test("cancelling the calling task cancels the thunk it performs", .timeLimit(.minutes(1)))
  func callerCancellation() async throws {
    let store = try makeStore()
    let (started, startedInput) = AsyncStream<String>.makeStream()
    let (ended, endedInput) = AsyncStream<String>.makeStream()
    var startedNames = started.makeAsyncIterator()
    var endedNames = ended.makeAsyncIterator()
    let task = Task {
      try await store.perform(
        Self.waiting("load", id: "load", started: startedInput, ended: endedInput))
    }
    #expect(await startedNames.next() == "load")
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(await endedNames.next() == "load")
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
    let (started, startedInput) = AsyncStream<String>.makeStream()
    let (ended, endedInput) = AsyncStream<String>.makeStream()
    var startedNames = started.makeAsyncIterator()
    var endedNames = ended.makeAsyncIterator()
    for name in ["one", "two"] {
      store?.dispatch(Self.waiting(name, id: name, started: startedInput, ended: endedInput))
    }
    #expect(await startedNames.next() != nil)
    #expect(await startedNames.next() != nil)

    store = nil
    #expect(weakStore == nil)
    let endedBoth = [await endedNames.next(), await endedNames.next()]
    #expect(Set(endedBoth.compactMap { $0 }) == ["one", "two"])
  }

  @Test(
    "one ThunkMiddleware serves two stores, and cancelling in one leaves the other's thunks",
    .timeLimit(.minutes(1)))
  func sharedMiddleware() async throws {
    let thunks = ThunkMiddleware<AppState, Void>()
    let first = try Store(initialState: AppState(), middleware: [thunks])
    var second: Store<AppState>? = try Store(initialState: AppState(), middleware: [thunks])
    let (started, startedInput) = AsyncStream<String>.makeStream()
    let (ended, endedInput) = AsyncStream<String>.makeStream()
    var startedNames = started.makeAsyncIterator()
    var endedNames = ended.makeAsyncIterator()
    let inFirst = Task {
      try await first.perform(
        Self.waiting("first", id: "load", started: startedInput, ended: endedInput))
    }
    #expect(await startedNames.next() == "first")
    second?.dispatch(Self.waiting("second", id: "load", started: startedInput, ended: endedInput))
    #expect(await startedNames.next() == "second")

    second?.dispatch(CancelThunks(id: "load"))
    #expect(await endedNames.next() == "second")
    second?.dispatch(Self.waiting("third", id: "load", started: startedInput, ended: endedInput))
    #expect(await startedNames.next() == "third")
    second = nil
    #expect(await endedNames.next() == "third")

    first.dispatch(CancelThunks(id: "load"))
    await #expect(throws: CancellationError.self) { try await inFirst.value }
    #expect(await endedNames.next() == "first")
  }

  @Test("removing the ThunkMiddleware cancels its running thunks", .timeLimit(.minutes(1)))
  func removeMiddleware() async throws {
    let store = try makeStore()
    let (started, startedInput) = AsyncStream<String>.makeStream()
    let (ended, endedInput) = AsyncStream<String>.makeStream()
    var startedNames = started.makeAsyncIterator()
    let task = Task {
      try await store.perform(
        Self.waiting("load", id: "load", started: startedInput, ended: endedInput))
    }
    #expect(await startedNames.next() == "load")
    #expect(store.removeMiddleware(named: "ThunkMiddleware"))
    await #expect(throws: CancellationError.self) { try await task.value }
    var endedNames = ended.makeAsyncIterator()
    #expect(await endedNames.next() == "load")
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
    let outcome = try #require(await outcomes.next())
    guard case .failure(.rejected("ThunkMiddleware", _, let underlying)) = outcome else {
      Issue.record("expected a dropped dispatch, got \(outcome)")
      return
    }
    #expect(underlying is CancellationError)
    #expect(store.state.count == 0)
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
    let outcome = try #require(await outcomes.next())
    guard case .failure(.rejected("ThunkMiddleware", _, let underlying)) = outcome else {
      Issue.record("expected a dropped dispatch, got \(outcome)")
      return
    }
    #expect(underlying is CancellationError)
    #expect(store.state.count == 0)
    #expect(!store.state.seen.contains("CountAction"))
  }
}
