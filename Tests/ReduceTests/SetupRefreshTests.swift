import Reduce
import Testing

/// The thread carrying actions out reads the mutators, the chain and the observers from its own
/// copy of the store's setup, taken again when the setup changed: a change made during a
/// dispatch, by one of its middleware, is seen by the rest of that dispatch.
@Suite struct SetupRefreshTests {
  /// A middleware that runs `change` on the store before it passes each `Rename` on.
  func changing(_ box: StoreBox, _ change: @escaping @Sendable (Store<TestState>) throws -> Void)
    -> AnyMiddleware<TestState>
  {
    AnyMiddleware(name: "changer") { action, _, next in
      if action is Rename, let store = box.store { try change(store) }
      try next(action)
    }
  }

  @Test("a mutator registered by a middleware before next reduces that very action")
  func registeredDuringDispatch() throws {
    let box = StoreBox()
    let store = try makeStore(
      middleware: [
        changing(box) { store in
          if !store.mutatorKeys.contains(nameMutator.key) { try store.register(nameMutator) }
        }
      ])
    box.store = store
    #expect(try store.dispatch(Rename(name: "ada")).get().name == "ada")
    #expect(try store.dispatch(Rename(name: "grace")).get().name == "grace")
  }

  @Test("a mutator unregistered by a middleware before next no longer reduces that action")
  func unregisteredDuringDispatch() throws {
    let box = StoreBox()
    let store = try makeStore(
      mutators: [counterMutator, nameMutator],
      middleware: [changing(box) { store in _ = store.unregister(nameMutator.key) }])
    box.store = store
    #expect(try store.dispatch(Rename(name: "ada")).get().name == "")
    #expect(store.mutatorKeys == [counterMutator.key])
  }

  @Test("an observer subscribed by a middleware before next is told of that action's change")
  func subscribedDuringDispatch() throws {
    let box = StoreBox()
    let names = Probe<String>()
    let subscriptions = Probe<Subscription>()
    let store = try makeStore(
      mutators: [counterMutator, nameMutator],
      middleware: [
        changing(box) { store in
          if subscriptions.values.isEmpty {
            subscriptions.append(store.subscribe(to: \.name) { names.append($0) })
          }
        }
      ])
    box.store = store
    _ = try store.dispatch(Rename(name: "ada")).get()
    _ = try store.dispatch(Rename(name: "grace")).get()
    // At once with the value before the action, then each change.
    #expect(names.values == ["", "ada", "grace"])
  }

  @Test("an observer cancelled by a middleware before next is not told of that action's change")
  func cancelledDuringDispatch() throws {
    let box = StoreBox()
    let names = Probe<String>()
    let store = try makeStore(mutators: [counterMutator, nameMutator])
    let subscription = store.subscribe(to: \.name) { names.append($0) }
    try store.use(changing(box) { _ in subscription.cancel() })
    box.store = store
    _ = try store.dispatch(Rename(name: "ada")).get()
    #expect(names.values == [""])
  }

  @Test("readers on other threads never see a change half made, while setups change too")
  func readersDuringChangesAndRegistrations() async throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for value in 0..<2_000 { store.dispatch([Increment(), Append(value: value)]) }
      }
      group.addTask {
        for _ in 0..<200 {
          let subscription = store.subscribe(to: \.counter) { _ in }
          subscription.cancel()
        }
      }
      for _ in 0..<2 {
        group.addTask {
          for _ in 0..<2_000 {
            // Each action of the pair commits on its own: a reader sees the counter and the
            // items of whole actions, never a change in progress.
            let state = store.state
            #expect(state.items.count == state.counter || state.items.count == state.counter - 1)
          }
        }
      }
    }
    #expect(store.state.counter == 2_000)
    #expect(store.state.items.count == 2_000)
  }
}
