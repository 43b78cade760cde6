import Reduce
import ReduceLogging
import ReduceThrottle
import ReduceThunk
import ReduceUndo

/// A log sink that formats each entry, as a real sink would, and then drops it.
struct DiscardingSink: LogSink {
  func write(_ record: LogRecord) throws {
    blackHole(record.text.utf8.count)
  }
}

/// An action no throttle rule of the benchmark's matches.
struct Scrolled: Action {}

/// The store of `counter` with one plugin in the chain, dispatching `Increment` through it.
func pluginWorkload(
  _ name: String, dispatches: Int = 200_000, target: Target?,
  plugin: @escaping () throws -> any Middleware<CounterState>
) -> Workload {
  Workload(
    name, dispatches: dispatches, target: target,
    store: { count in
      let store = try counterStore(middleware: [try plugin()])
      return { for _ in 0..<count { store.dispatch(Increment()) } }
    },
    baseline: counterBaseline)
}

func pluginWorkloads() -> [Workload] {
  [
    pluginWorkload("thunk", target: nil) { ThunkMiddleware<CounterState, Void>() },
    Workload(
      "thunk-sync", dispatches: 200_000, target: .instructions(8_000),
      store: { count in
        let store = try counterStore(middleware: [ThunkMiddleware<CounterState, Void>()])
        let thunk = Thunk<CounterState, Void> { context in context.dispatch(Increment()) }
        return { for _ in 0..<count { store.dispatch(thunk) } }
      },
      baseline: counterBaseline),
    pluginWorkload("throttle", target: nil) {
      try ThrottleMiddleware<CounterState>(rules: [
        .throttle(Scrolled.self, for: .seconds(1), latest: true)
      ])
    },
    pluginWorkload("logging-json", dispatches: 50_000, target: nil) {
      LoggingMiddleware<CounterState>(format: .jsonLines, sink: DiscardingSink())
    },
    pluginWorkload("logging-text", dispatches: 50_000, target: nil) {
      LoggingMiddleware<CounterState>(format: .text(style: .compact), sink: DiscardingSink())
    },
    pluginWorkload("undo", target: .instructions(7_000)) {
      try UndoMiddleware<CounterState>(limit: 10_000)
    },
    pluginWorkload("custom-recorder", target: .instructionsRelative(to: "undo", factor: 1.5)) {
      // The third-party recorder of Guides/WritingMiddleware.md, on the public API alone.
      ChangeRecorder<CounterState, Int>(watching: \.counter)
    },
    Workload(
      "undo-scoped", dispatches: 200_000,
      store: { count in
        // Undo of one substate of ten: one action in ten changes it and makes a step; the
        // other nine leave it equal.
        let undo = try UndoMiddleware<TenState>(scope: \.s0, limit: 10_000)
        let store = try Store(initialState: TenState(), mutators: tenMutators, middleware: [undo])
        return { for index in 0..<count { dispatchRoundRobin(store, index) } }
      },
      baseline: tenSubstatesBaseline),
  ]
}
