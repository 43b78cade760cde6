import Reduce
import ReduceThunk
import Testing

// The code of Guides/Thunks.md, kept here so that it keeps compiling. The guide's types are
// nested in `ThunksGuide` only to keep them apart from the other tests' types.

enum ThunksGuide {
  // MARK: Usage

  struct Todo: Equatable, Sendable {
    var title: String
    var done = false
  }

  enum Loading: Equatable, Sendable {
    case idle
    case loading
    case failed(String)
  }

  struct AppState: Equatable, Sendable {
    var todos: [Todo] = []
    var loading = Loading.idle
  }

  enum TodoAction: Action {
    case loadStarted
    case loaded([Todo])
    case loadFailed(String)
    case loadCancelled
  }

  static let todos = Mutator(\AppState.todos) { (todos: inout [Todo], action: TodoAction) in
    if case .loaded(let loaded) = action { todos = loaded }
  }

  static let loading = Mutator(\AppState.loading) {
    (loading: inout Loading, action: TodoAction) in
    switch action {
    case .loadStarted: loading = .loading
    case .loaded: loading = .idle
    case .loadFailed(let message): loading = .failed(message)
    case .loadCancelled: loading = .idle
    }
  }

  /// What thunks need from the outside world.
  ///
  /// The app passes the real clients; tests pass fakes.
  struct AppDependencies: Sendable {
    var fetchTodos: @Sendable () async throws -> [Todo]

    /// Fixed data, for previews (the app's `.live` would call its server).
    static let preview = AppDependencies(fetchTodos: { [Todo(title: "Milk")] })
  }

  typealias AppThunkContext = ThunkContext<AppState, AppDependencies>

  enum LoadID: Hashable, Sendable {
    case todos
  }

  /// Loads the to-do list: started, then loaded or failed; returns how many it loaded.
  static let loadTodos = Thunk(id: LoadID.todos, cancelInFlight: true) {
    (context: AppThunkContext) in
    context.dispatch(TodoAction.loadStarted)
    do {
      let todos = try await context.dependencies.fetchTodos()
      context.dispatch(TodoAction.loaded(todos))
      return todos.count
    } catch {
      context.dispatch(TodoAction.loadFailed("\(error)"))
      throw error
    }
  }

  /// Loads only when nothing is loaded or loading: a synchronous thunk that reads the state.
  static let loadIfNeeded = Thunk { (context: ThunkContext<AppState, Void>) in
    guard context.state.todos.isEmpty, context.state.loading != .loading else { return }
    context.dispatch(loadTodos)
  }

  static func makeStore(_ dependencies: AppDependencies) throws -> Store<AppState> {
    try Store(
      initialState: AppState(),
      mutators: [todos, loading],
      middleware: [ThunkMiddleware(dependencies: dependencies)])
  }

  // MARK: Async sequences

  enum ClockAction: Action {
    case ticked
  }

  /// RxReduce's `Observable<Action>`: a sequence of actions the store dispatches as they come.
  static func ticks(_ count: Int) -> AsyncStream<ClockAction> {
    AsyncStream { continuation in
      for _ in 0..<count { continuation.yield(.ticked) }
      continuation.finish()
    }
  }

  /// The same ticks as a thunk: cancellable by id, and free to read the state between them.
  static func tickThunk(_ count: Int) -> Thunk<Int, Void> {
    Thunk(id: "ticks") { context in
      for await tick in ticks(count) {
        context.dispatch(tick)
      }
    }
  }

  static let ticked = Mutator(\Int.self, key: "ticks") { (count: inout Int, _: ClockAction) in
    count += 1
  }

  static func makeClock() throws -> Store<Int> {
    try Store(initialState: 0, mutators: [ticked], middleware: [ThunkMiddleware<Int, Void>()])
  }
}

struct Offline: Error, CustomStringConvertible {
  var description: String { "offline" }
}

@Suite struct GuideExampleTests {
  typealias Guide = ThunksGuide

  @Test("the guide's loader: started, then loaded, and perform returns the count")
  func loader() async throws {
    let store = try Guide.makeStore(
      Guide.AppDependencies(fetchTodos: { [Guide.Todo(title: "Milk"), Guide.Todo(title: "Eggs")] }))
    let count = try await store.perform(Guide.loadTodos)
    #expect(count == 2)
    #expect(store.state.todos.map(\.title) == ["Milk", "Eggs"])
    #expect(store.state.loading == .idle)
  }

  @Test("the guide's loader with failing dependencies: started, then failed")
  func loaderFailure() async throws {
    let store = try Guide.makeStore(Guide.AppDependencies(fetchTodos: { throw Offline() }))
    await #expect(throws: Offline.self) { try await store.perform(Guide.loadTodos) }
    #expect(store.state.loading == .failed("offline"))
    #expect(store.state.todos.isEmpty)
  }

  @Test("the guide's loadIfNeeded starts the loader only when nothing is loaded")
  func loadIfNeeded() async throws {
    let (fetches, fetched) = AsyncStream<Void>.makeStream()
    let store = try Guide.makeStore(
      Guide.AppDependencies(fetchTodos: {
        fetched.yield()
        return [Guide.Todo(title: "Milk")]
      }))
    var calls = fetches.makeAsyncIterator()
    try await store.perform(Guide.loadIfNeeded)
    await calls.next()
    _ = await store.states(of: \.todos).first { !$0.isEmpty }
    try await store.perform(Guide.loadIfNeeded)
    #expect(store.state.loading == .idle)
    fetched.finish()
    #expect(await calls.next() == nil)
  }

  @Test("the guide's ticks: dispatch(contentsOf:) and the thunk form dispatch the same actions")
  func ticks() async throws {
    let clock = try Guide.makeClock()
    try await clock.dispatch(contentsOf: Guide.ticks(3)).value
    #expect(clock.state == 3)
    try await clock.perform(Guide.tickThunk(3))
    #expect(clock.state == 6)
  }

  @Test("the guide's preview store loads, and cancelling with a reset leaves it idle")
  func previewAndCancel() async throws {
    let store = try Guide.makeStore(.preview)
    #expect(try await store.perform(Guide.loadTodos) == 1)
    let gate = Gate()
    let slow = try Guide.makeStore(
      Guide.AppDependencies(fetchTodos: {
        await gate.wait()
        return []
      }))
    let load = Task { try await slow.perform(Guide.loadTodos) }
    _ = await slow.states(of: \.loading).first { $0 == .loading }
    slow.dispatch([CancelThunks(id: Guide.LoadID.todos), Guide.TodoAction.loadCancelled])
    await #expect(throws: CancellationError.self) { try await load.value }
    #expect(slow.state.loading == .idle)
    gate.open()
  }
}
