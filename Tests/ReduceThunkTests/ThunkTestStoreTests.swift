import Reduce
import ReduceTesting
import ReduceThunk
import Testing

@Suite struct ThunkTestStoreTests {
  typealias Guide = ThunksGuide

  @Test(
    "a TestStore receives an async thunk's actions in order, with their exact changes",
    .timeLimit(.minutes(1)))
  func receiveAsync() async throws {
    let store = try TestStore(
      initialState: Guide.AppState(),
      mutators: [Guide.todos, Guide.loading],
      middleware: [ThunkMiddleware(dependencies: Guide.AppDependencies.preview)])
    store.send(Guide.loadTodos)
    await store.receive(Guide.TodoAction.self) { $0.loading = .loading }
    await store.receive(Guide.TodoAction.self) {
      $0.todos = [Guide.Todo(title: "Milk")]
      $0.loading = .idle
    }
    store.finish()
  }

  @Test(
    "a TestStore receives the failure path when the dependencies fail", .timeLimit(.minutes(1)))
  func receiveFailure() async throws {
    let store = try TestStore(
      initialState: Guide.AppState(),
      mutators: [Guide.todos, Guide.loading],
      middleware: [
        ThunkMiddleware(dependencies: Guide.AppDependencies(fetchTodos: { throw Offline() }))
      ])
    await #expect(throws: Offline.self) { try await store.store.perform(Guide.loadTodos) }
    await store.receive(Guide.TodoAction.self) { $0.loading = .loading }
    await store.receive(Guide.TodoAction.self) { $0.loading = .failed("offline") }
    store.finish()
  }
}
