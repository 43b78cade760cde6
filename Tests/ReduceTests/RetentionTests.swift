import Reduce
import Testing

/// Sets a flag when it is deinitialised: captured by one part of a store (its fallback, a
/// middleware), it tells when that part is gone.
final class DeinitProbe: Sendable {
  let gone: Box<Bool>

  init(_ gone: Box<Bool>) {
    self.gone = gone
  }

  deinit {
    gone.value = true
  }
}

/// A middleware that keeps the `next` and the context of every action it handles, and does not
/// clear them when it is detached.
final class Keeper: Middleware {
  let name: String
  let keptNext = Locked<Next<TestState>?>(nil)
  let keptContext = Locked<MiddlewareContext<TestState>?>(nil)
  let keepsNext: Bool
  let probe: DeinitProbe

  init(_ name: String = "keeper", keepsNext: Bool, probe: DeinitProbe) {
    self.name = name
    self.keepsNext = keepsNext
    self.probe = probe
  }

  func handle(_ action: any Action, context: MiddlewareContext<TestState>, next: Next<TestState>)
    throws
  {
    if keepsNext {
      keptNext.withLock { $0 = next }
    } else {
      keptContext.withLock { $0 = context }
    }
    try next(action)
  }
}

@Suite struct RetentionTests {
  @Test(
    "a middleware that keeps its next or its context keeps neither the store nor its engine alive",
    arguments: [true, false])
  func keptNextOrContextReleasesStore(keepsNext: Bool) throws {
    let middlewareGone = Box(false)
    let engineGone = Box(false)
    let innerGone = Box(false)
    weak var weakStore: Store<TestState>?
    do {
      let keeper = Keeper(keepsNext: keepsNext, probe: DeinitProbe(middlewareGone))
      // Only the engine holds the fallback, and the fallback holds this probe.
      let engineProbe = DeinitProbe(engineGone)
      let inner = Keeper("inner", keepsNext: !keepsNext, probe: DeinitProbe(innerGone))
      let store = try makeStore(
        middleware: [keeper, inner],
        fallback: { _ in
          _ = engineProbe
          return nil
        })
      weakStore = store
      #expect(store.dispatch(Increment()).success?.counter == 1)
      let kept =
        keepsNext
        ? keeper.keptNext.withLock { $0 != nil } : keeper.keptContext.withLock { $0 != nil }
      #expect(kept)
    }
    #expect(weakStore == nil)
    #expect(engineGone.value, "the store's engine (and its fallback) outlived the store")
    #expect(middlewareGone.value, "the outer middleware outlived the store")
    #expect(innerGone.value, "the inner middleware outlived the store")
  }

  @Test("a context kept after its store is gone reads the state the store ended with")
  func keptContextAfterStoreIsGone() throws {
    let keeper = Keeper(keepsNext: false, probe: DeinitProbe(Box(false)))
    let engineGone = Box(false)
    var storeID: ObjectIdentifier?
    do {
      let engineProbe = DeinitProbe(engineGone)
      let store = try makeStore(
        middleware: [keeper],
        fallback: { _ in
          _ = engineProbe
          return nil
        })
      store.dispatch(Increment(by: 2))
      store.dispatch(Increment(by: 3))
      storeID = keeper.keptContext.withLock { $0 }?.storeID
    }
    #expect(engineGone.value)
    let context = try #require(keeper.keptContext.withLock { $0 })
    #expect(context.state.counter == 5)
    #expect(context.dispatch(Increment()).success?.counter == 5)
    #expect(context.dispatch([Increment(), Increment()]).success?.counter == 5)
    #expect(context.state.counter == 5)
    #expect(context.storeID == storeID)
    #expect(context.middlewareName == "keeper")
    context.report(TestError())
  }

  @Test("a kept next of a deinitialised store delivers nothing, also for an action of another type")
  func keptNextAfterStoreIsGone() throws {
    let keeper = Keeper(keepsNext: true, probe: DeinitProbe(Box(false)))
    let innerCalls = Probe<String>()
    do {
      let store = try makeStore(
        mutators: [counterMutator, nameMutator],
        middleware: [keeper, passThrough("inner", calls: innerCalls)])
      store.dispatch(Increment())
    }
    #expect(innerCalls.values == ["inner"])
    let next = try #require(keeper.keptNext.withLock { $0 })
    try next(Increment())
    try next(Rename(name: "late"))
    #expect(innerCalls.values == ["inner"])
  }
}
