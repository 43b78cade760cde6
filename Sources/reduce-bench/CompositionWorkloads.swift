import Reduce

// MARK: Scoped stores: 100 children, 1,000 scoped observers

/// One child feature's state.
///
/// Plain values, no reference-counted field: `dispatch` returns a copy of the state, and a
/// hundred strings would make each copy cost more than the observers measured here (see "The
/// returned state" in Guides/Performance.md; `family-100` is the same store without observers).
struct Kid: Equatable, Sendable {
  var count = 0
  var tag = 7
}

/// Ten children, stored properties, so that each child has its own bytes in the state.
struct TenKids: Equatable, Sendable {
  var k0 = Kid()
  var k1 = Kid()
  var k2 = Kid()
  var k3 = Kid()
  var k4 = Kid()
  var k5 = Kid()
  var k6 = Kid()
  var k7 = Kid()
  var k8 = Kid()
  var k9 = Kid()
}

/// A hundred children in ten groups of ten.
struct Family: Equatable, Sendable {
  var g0 = TenKids()
  var g1 = TenKids()
  var g2 = TenKids()
  var g3 = TenKids()
  var g4 = TenKids()
  var g5 = TenKids()
  var g6 = TenKids()
  var g7 = TenKids()
  var g8 = TenKids()
  var g9 = TenKids()
}

/// Bumps one child of a group: the group's mutator handles `Poke<Tag>`.
struct Poke<Tag>: Action {
  var kid: Int
}

func poke<Tag>(_ kids: inout TenKids, _ action: Poke<Tag>) {
  switch action.kid {
  case 0: kids.k0.count &+= 1
  case 1: kids.k1.count &+= 1
  case 2: kids.k2.count &+= 1
  case 3: kids.k3.count &+= 1
  case 4: kids.k4.count &+= 1
  case 5: kids.k5.count &+= 1
  case 6: kids.k6.count &+= 1
  case 7: kids.k7.count &+= 1
  case 8: kids.k8.count &+= 1
  default: kids.k9.count &+= 1
  }
}

let familyMutators: [Mutator<Family>] = [
  Mutator(\Family.g0, poke as @Sendable (inout TenKids, Poke<T0>) -> Void),
  Mutator(\Family.g1, poke as @Sendable (inout TenKids, Poke<T1>) -> Void),
  Mutator(\Family.g2, poke as @Sendable (inout TenKids, Poke<T2>) -> Void),
  Mutator(\Family.g3, poke as @Sendable (inout TenKids, Poke<T3>) -> Void),
  Mutator(\Family.g4, poke as @Sendable (inout TenKids, Poke<T4>) -> Void),
  Mutator(\Family.g5, poke as @Sendable (inout TenKids, Poke<T5>) -> Void),
  Mutator(\Family.g6, poke as @Sendable (inout TenKids, Poke<T6>) -> Void),
  Mutator(\Family.g7, poke as @Sendable (inout TenKids, Poke<T7>) -> Void),
  Mutator(\Family.g8, poke as @Sendable (inout TenKids, Poke<T8>) -> Void),
  Mutator(\Family.g9, poke as @Sendable (inout TenKids, Poke<T9>) -> Void),
]

let familyGroups: [KeyPath<Family, TenKids> & Sendable] = [
  \.g0, \.g1, \.g2, \.g3, \.g4, \.g5, \.g6, \.g7, \.g8, \.g9,
]

let kidPaths: [KeyPath<TenKids, Kid> & Sendable] = [
  \.k0, \.k1, \.k2, \.k3, \.k4, \.k5, \.k6, \.k7, \.k8, \.k9,
]

/// Dispatches the `index`-th poke: group `index % 10`, child `index / 10 % 10`, so that each
/// dispatch changes one child and the hundred take turns.
@inline(__always)
func dispatchPoke(_ store: Store<Family>, _ index: Int) {
  let kid = index / 10 % 10
  switch index % 10 {
  case 0: store.dispatch(Poke<T0>(kid: kid))
  case 1: store.dispatch(Poke<T1>(kid: kid))
  case 2: store.dispatch(Poke<T2>(kid: kid))
  case 3: store.dispatch(Poke<T3>(kid: kid))
  case 4: store.dispatch(Poke<T4>(kid: kid))
  case 5: store.dispatch(Poke<T5>(kid: kid))
  case 6: store.dispatch(Poke<T6>(kid: kid))
  case 7: store.dispatch(Poke<T7>(kid: kid))
  case 8: store.dispatch(Poke<T8>(kid: kid))
  default: store.dispatch(Poke<T9>(kid: kid))
  }
}

func familyBaseline(_ count: Int) -> () -> Void {
  let reducers = opaque(
    (
      poke as (inout TenKids, Poke<T0>) -> Void, poke as (inout TenKids, Poke<T1>) -> Void,
      poke as (inout TenKids, Poke<T2>) -> Void, poke as (inout TenKids, Poke<T3>) -> Void,
      poke as (inout TenKids, Poke<T4>) -> Void, poke as (inout TenKids, Poke<T5>) -> Void,
      poke as (inout TenKids, Poke<T6>) -> Void, poke as (inout TenKids, Poke<T7>) -> Void,
      poke as (inout TenKids, Poke<T8>) -> Void, poke as (inout TenKids, Poke<T9>) -> Void
    ))
  return {
    var state = Family()
    for index in 0..<count {
      let kid = index / 10 % 10
      switch index % 10 {
      case 0: reducers.0(&state.g0, Poke(kid: kid))
      case 1: reducers.1(&state.g1, Poke(kid: kid))
      case 2: reducers.2(&state.g2, Poke(kid: kid))
      case 3: reducers.3(&state.g3, Poke(kid: kid))
      case 4: reducers.4(&state.g4, Poke(kid: kid))
      case 5: reducers.5(&state.g5, Poke(kid: kid))
      case 6: reducers.6(&state.g6, Poke(kid: kid))
      case 7: reducers.7(&state.g7, Poke(kid: kid))
      case 8: reducers.8(&state.g8, Poke(kid: kid))
      default: reducers.9(&state.g9, Poke(kid: kid))
      }
    }
    blackHole(state)
  }
}

// MARK: Memoized selectors

/// The value `selector-readers-*` derive from `s0`, which one dispatch in ten changes: about a
/// microsecond of work, what a real derived value (a filtered, sorted list) costs; the value
/// itself changes once in a hundred changes of `s0`.
@Sendable func slowDerive(_ sub: Sub) -> Int {
  var hash = sub.count / 100
  for step in 0..<1_000 { hash = (hash &* 31 &+ step) & 0xFFFF }
  return hash
}

func compositionWorkloads() -> [Workload] {
  [
    Workload(
      "scoped-1000", target: .instructionsRelative(to: "subscribers-100", factor: 3),
      store: { count in
        // A hundred child features, each scoped twice (group, then child) and observed ten
        // times through its scope; one child changes per dispatch.
        let store = try Store(initialState: Family(), mutators: familyMutators)
        var subscriptions: [Subscription] = []
        for group in familyGroups {
          let groupScope = store.scope(group)
          for kid in kidPaths {
            let kidScope = groupScope.scope(kid)
            for _ in 0..<10 { subscriptions.append(kidScope.subscribe { blackHole($0) }) }
          }
        }
        return {
          for index in 0..<count { dispatchPoke(store, index) }
          blackHole(subscriptions)
        }
      },
      baseline: familyBaseline),
    Workload(
      "family-100",
      store: { count in
        // `scoped-1000`'s store without its observers: what its dispatches cost by themselves.
        let store = try Store(initialState: Family(), mutators: familyMutators)
        return { for index in 0..<count { dispatchPoke(store, index) } }
      },
      baseline: familyBaseline),
    selectorWorkload(readers: 1, target: nil),
    selectorWorkload(
      readers: 1_000, target: .instructionsRelative(to: "selector-readers-1", factor: 1.5)),
    Workload(
      "closure-readers-1000", dispatches: 1_000,
      store: { count in
        // The same derived value observed through 1,000 closures instead of one selector:
        // each computes it, after every dispatch. For comparison only.
        let store = try Store(initialState: TenState(), mutators: tenMutators)
        let subscriptions = (0..<1_000).map { _ in
          store.subscribe(to: { slowDerive($0.s0) }) { blackHole($0) }
        }
        return {
          for index in 0..<count { dispatchRoundRobin(store, index) }
          blackHole(subscriptions)
        }
      },
      baseline: tenSubstatesBaseline),
  ]
}

func selectorWorkload(readers: Int, target: Target?) -> Workload {
  Workload(
    "selector-readers-\(readers)", target: target,
    store: { count in
      let store = try Store(initialState: TenState(), mutators: tenMutators)
      let selector = MemoizedSelector(\TenState.s0, compute: slowDerive)
      let subscriptions = (0..<readers).map { _ in
        store.subscribe(to: selector) { blackHole($0) }
      }
      return {
        for index in 0..<count { dispatchRoundRobin(store, index) }
        blackHole(subscriptions)
        blackHole(selector.computations)
      }
    },
    baseline: tenSubstatesBaseline)
}
