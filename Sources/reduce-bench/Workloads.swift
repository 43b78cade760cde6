import Reduce

// MARK: Shared state, actions and reducers
//
// Each reducer is written once and used twice: registered in a store, and called by the
// baseline loop on a plain value.

struct CounterState: Equatable, Sendable {
  var counter = 0
}

struct Increment: Action {
  var amount = 1
}

let incrementCounter: @Sendable (inout Int, Increment) -> Void = { $0 &+= $1.amount }

struct Sub: Equatable, Sendable {
  var count = 0
  var label = "substate"
}

struct TenState: Equatable, Sendable {
  var s0 = Sub()
  var s1 = Sub()
  var s2 = Sub()
  var s3 = Sub()
  var s4 = Sub()
  var s5 = Sub()
  var s6 = Sub()
  var s7 = Sub()
  var s8 = Sub()
  var s9 = Sub()
  /// Storage for the mutators of `mutators-100` that never handle the measured action.
  var others: [Int] = Array(repeating: 0, count: 100)
}

/// One of ten action types, `Bump<T0>` to `Bump<T9>`.
struct Bump<Tag>: Action {}
enum T0 {}
enum T1 {}
enum T2 {}
enum T3 {}
enum T4 {}
enum T5 {}
enum T6 {}
enum T7 {}
enum T8 {}
enum T9 {}

/// An action type none of the measured dispatches uses.
struct Unrelated: Action {}

func bump<Tag>(_ sub: inout Sub, _ action: Bump<Tag>) {
  sub.count &+= 1
}

let tenMutators: [Mutator<TenState>] = [
  Mutator(\TenState.s0, bump as @Sendable (inout Sub, Bump<T0>) -> Void),
  Mutator(\TenState.s1, bump as @Sendable (inout Sub, Bump<T1>) -> Void),
  Mutator(\TenState.s2, bump as @Sendable (inout Sub, Bump<T2>) -> Void),
  Mutator(\TenState.s3, bump as @Sendable (inout Sub, Bump<T3>) -> Void),
  Mutator(\TenState.s4, bump as @Sendable (inout Sub, Bump<T4>) -> Void),
  Mutator(\TenState.s5, bump as @Sendable (inout Sub, Bump<T5>) -> Void),
  Mutator(\TenState.s6, bump as @Sendable (inout Sub, Bump<T6>) -> Void),
  Mutator(\TenState.s7, bump as @Sendable (inout Sub, Bump<T7>) -> Void),
  Mutator(\TenState.s8, bump as @Sendable (inout Sub, Bump<T8>) -> Void),
  Mutator(\TenState.s9, bump as @Sendable (inout Sub, Bump<T9>) -> Void),
]

let tenPaths: [KeyPath<TenState, Sub> & Sendable] = [
  \.s0, \.s1, \.s2, \.s3, \.s4, \.s5, \.s6, \.s7, \.s8, \.s9,
]

/// Dispatches the `index`-th action of the round robin over the ten action types.
@inline(__always)
func dispatchRoundRobin(_ store: Store<TenState>, _ index: Int) {
  switch index % 10 {
  case 0: store.dispatch(Bump<T0>())
  case 1: store.dispatch(Bump<T1>())
  case 2: store.dispatch(Bump<T2>())
  case 3: store.dispatch(Bump<T3>())
  case 4: store.dispatch(Bump<T4>())
  case 5: store.dispatch(Bump<T5>())
  case 6: store.dispatch(Bump<T6>())
  case 7: store.dispatch(Bump<T7>())
  case 8: store.dispatch(Bump<T8>())
  default: store.dispatch(Bump<T9>())
  }
}

/// The baseline of the round robin: the same reducers called on a plain value.
func tenSubstatesBaseline(_ count: Int) -> () -> Void {
  let reducers = opaque(
    (
      bump as (inout Sub, Bump<T0>) -> Void, bump as (inout Sub, Bump<T1>) -> Void,
      bump as (inout Sub, Bump<T2>) -> Void, bump as (inout Sub, Bump<T3>) -> Void,
      bump as (inout Sub, Bump<T4>) -> Void, bump as (inout Sub, Bump<T5>) -> Void,
      bump as (inout Sub, Bump<T6>) -> Void, bump as (inout Sub, Bump<T7>) -> Void,
      bump as (inout Sub, Bump<T8>) -> Void, bump as (inout Sub, Bump<T9>) -> Void
    ))
  return {
    var state = TenState()
    for index in 0..<count {
      switch index % 10 {
      case 0: reducers.0(&state.s0, Bump())
      case 1: reducers.1(&state.s1, Bump())
      case 2: reducers.2(&state.s2, Bump())
      case 3: reducers.3(&state.s3, Bump())
      case 4: reducers.4(&state.s4, Bump())
      case 5: reducers.5(&state.s5, Bump())
      case 6: reducers.6(&state.s6, Bump())
      case 7: reducers.7(&state.s7, Bump())
      case 8: reducers.8(&state.s8, Bump())
      default: reducers.9(&state.s9, Bump())
      }
    }
    blackHole(state)
  }
}

func counterBaseline(_ count: Int) -> () -> Void {
  let reduce = opaque(incrementCounter)
  return {
    var state = CounterState()
    for _ in 0..<count { reduce(&state.counter, Increment()) }
    blackHole(state)
  }
}

func counterStore(middleware: [any Middleware<CounterState>] = []) throws -> Store<CounterState> {
  try Store(
    initialState: CounterState(), mutators: [Mutator(\CounterState.counter, incrementCounter)],
    middleware: middleware)
}

/// A middleware that passes every action on.
func passThrough(_ name: String) -> AnyMiddleware<CounterState> {
  AnyMiddleware(name: name) { action, _, next in try next(action) }
}

// MARK: Large array

struct ListState: Sendable {
  var items: [Int] = []
}

struct Append: Action {
  var value: Int
}

let appendItem: @Sendable (inout [Int], Append) -> Void = { $0.append($1.value) }

/// Times each tenth of a growing run, store and baseline, so that an O(n) copy per dispatch
/// would show as a ratio growing with the array.
func largeArraySegments(_ count: Int) throws -> (store: [Double], baseline: [Double]) {
  let segment = max(count / 10, 1)
  let store = try Store(
    initialState: ListState(), mutators: [Mutator(\ListState.items, appendItem)])
  var storeTimes: [Double] = []
  for part in 0..<10 {
    storeTimes.append(
      time {
        for value in (part * segment)..<((part + 1) * segment) {
          store.dispatch(Append(value: value))
        }
      } / Double(segment))
  }
  let reduce = opaque(appendItem)
  var state = ListState()
  var baselineTimes: [Double] = []
  for part in 0..<10 {
    baselineTimes.append(
      time {
        for value in (part * segment)..<((part + 1) * segment) {
          reduce(&state.items, Append(value: value))
        }
      } / Double(segment))
  }
  blackHole(state)
  return (storeTimes, baselineTimes)
}

// MARK: The workloads

func coreWorkloads() -> [Workload] {
  [
    Workload(
      "counter", target: .instructions(2_600),
      store: { count in
        let store = try counterStore()
        return { for _ in 0..<count { store.dispatch(Increment()) } }
      },
      baseline: counterBaseline),
    Workload(
      "counter+3mw", target: .instructionsAbove("counter", by: 1_800),
      store: { count in
        let store = try counterStore(middleware: [
          passThrough("a"), passThrough("b"), passThrough("c"),
        ])
        return { for _ in 0..<count { store.dispatch(Increment()) } }
      },
      baseline: counterBaseline),
    Workload(
      "ten-substates", target: .instructions(3_500),
      store: { count in
        let store = try Store(initialState: TenState(), mutators: tenMutators)
        return { for index in 0..<count { dispatchRoundRobin(store, index) } }
      },
      baseline: tenSubstatesBaseline),
    subscribersWorkload(100, target: nil),
    subscribersWorkload(1000, target: .instructionsRelative(to: "subscribers-100", factor: 2.5)),
    Workload(
      "idle-subscribers-1000", target: .relative(to: "ten-substates", factor: 2),
      store: { count in
        // A thousand observers of a value no dispatched action touches: the store skips their
        // key path without even reading it.
        let store = try Store(initialState: TenState(), mutators: tenMutators)
        let subscriptions = (0..<1000).map { _ in store.subscribe(to: \.others) { blackHole($0) } }
        return {
          for index in 0..<count { dispatchRoundRobin(store, index) }
          blackHole(subscriptions)
        }
      },
      baseline: tenSubstatesBaseline),
    Workload(
      "mutators-100", target: .relative(to: "ten-substates", factor: 1.5),
      store: { count in
        let store = try Store(initialState: TenState(), mutators: tenMutators)
        for index in 10..<100 {
          let slot = index
          let lens = Lens<TenState, Int>(get: { $0.others[slot] }, set: { $0.others[slot] = $1 })
          try store.register(
            Mutator(key: "other-\(index)", lens: lens) { (value: inout Int, _: Unrelated) in
              value += 1
            })
        }
        return { for index in 0..<count { dispatchRoundRobin(store, index) } }
      },
      baseline: tenSubstatesBaseline),
    Workload(
      "large-array", target: .flat(2),
      store: { count in
        let store = try Store(
          initialState: ListState(), mutators: [Mutator(\ListState.items, appendItem)])
        return { for value in 0..<count { store.dispatch(Append(value: value)) } }
      },
      baseline: { count in
        let reduce = opaque(appendItem)
        return {
          var state = ListState()
          for value in 0..<count { reduce(&state.items, Append(value: value)) }
          blackHole(state)
        }
      },
      segments: largeArraySegments),
  ]
}

func subscribersWorkload(_ subscribers: Int, target: Target?) -> Workload {
  Workload(
    "subscribers-\(subscribers)", target: target,
    store: { count in
      let store = try Store(initialState: TenState(), mutators: tenMutators)
      let subscriptions = (0..<subscribers).map { index in
        store.subscribe(to: tenPaths[index % 10]) { blackHole($0) }
      }
      return {
        for index in 0..<count { dispatchRoundRobin(store, index) }
        blackHole(subscriptions)
      }
    },
    baseline: tenSubstatesBaseline)
}

func allWorkloads() -> [Workload] {
  coreWorkloads() + compositionWorkloads() + concurrentWorkloads() + pluginWorkloads()
    + auditWorkloads()
}
