import Reduce
import ReduceTesting
import Testing

@Suite struct RecordingMiddlewareTests {
  @Test("records every action it sees, in order, and passes each on")
  func recordsInOrder() throws {
    let recorder = RecordingMiddleware<Counter>()
    let store = try Store(
      initialState: Counter(), mutators: [counterMutator], middleware: [recorder])
    store.dispatch(CounterAction.incremented(by: 1))
    store.dispatch(Echo.ping)
    store.dispatch(CounterAction.incremented(by: 2))
    #expect(recorder.count == 3)
    #expect(recorder.actions(of: CounterAction.self) == [.incremented(by: 1), .incremented(by: 2)])
    #expect(recorder.actions(of: Echo.self) == [.ping])
    #expect(recorder.actions.last is CounterAction)
    #expect(store.state.count == 3)
    #expect(store.middlewareNames == ["RecordingMiddleware"])
  }

  @Test("removeAll forgets what was recorded; names can be chosen")
  func removeAllAndName() throws {
    let outer = RecordingMiddleware<Counter>(name: "outer")
    let inner = RecordingMiddleware<Counter>(name: "inner")
    let swallow = AnyMiddleware<Counter>(name: "swallow") { action, _, next in
      if action is Echo { return }
      try next(action)
    }
    let store = try Store(initialState: Counter(), middleware: [outer, swallow, inner])
    store.dispatch(Echo.ping)
    store.dispatch(CounterAction.reset)
    #expect(outer.count == 2)
    #expect(inner.actions(of: CounterAction.self) == [.reset])
    #expect(inner.actions(of: Echo.self).isEmpty)
    outer.removeAll()
    #expect(outer.actions.isEmpty)
  }
}
