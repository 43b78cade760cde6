import Reduce
import Testing

extension RegistrationTests {
  // MARK: Paths that need an explicit key

  @Test("a computed property path without key: throws keyRequired")
  func computedPathNeedsKey() throws {
    let store = try Store(initialState: KeyState())
    let path = \KeyState.doubled
    #expect(throws: RegistrationError.keyRequired(path: String(describing: path))) {
      try store.register(Mutator(path) { (v: inout Int, _: Increment) in v += 2 })
    }
    #expect(store.mutatorKeys.isEmpty)
    #expect(try store.dispatch(Increment()).get().counter == 0)
  }

  @Test("a force-unwrapping path without key: throws keyRequired")
  func forceUnwrapPathNeedsKey() throws {
    let store = try Store(initialState: KeyState())
    let path = \KeyState.optional!.title
    #expect(throws: RegistrationError.keyRequired(path: String(describing: path))) {
      try store.register(Mutator(path) { (t: inout String, a: Rename) in t = a.name })
    }
    #expect(store.mutatorKeys.isEmpty)
    #expect(try store.dispatch(Rename(name: "x")).get().optional?.title == "")
  }

  @Test("a path through a class without key: throws keyRequired")
  func classPathNeedsKey() throws {
    let store = try Store(initialState: KeyState())
    let path: WritableKeyPath<KeyState, Int> & Sendable = \KeyState.shared.value
    #expect(throws: RegistrationError.keyRequired(path: String(describing: path))) {
      try store.register(Mutator(path) { (v: inout Int, _: Increment) in v += 1 })
    }
    #expect(store.mutatorKeys.isEmpty)
    store.dispatch(Increment())
    #expect(store.state.shared.value == 0)
  }

  @Test("a zero-sized substate without key: throws keyRequired")
  func zeroSizedPathNeedsKey() throws {
    let store = try Store(initialState: KeyState())
    let path = \KeyState.marker
    #expect(throws: RegistrationError.keyRequired(path: String(describing: path))) {
      try store.register(Mutator(path) { (_: inout Empty, _: Increment) in })
    }
    #expect(store.mutatorKeys.isEmpty)
  }

  @Test("a property sharing its offset with a zero-sized neighbour throws keyRequired")
  func zeroSizedNeighbourNeedsKey() throws {
    // The runtime describes the path by its offset, which `empty` shares.
    #expect(String(describing: \NeighbourState.counter) == "\\NeighbourState.empty")
    let store = try Store(initialState: NeighbourState())
    let path = \NeighbourState.counter
    #expect(throws: RegistrationError.keyRequired(path: String(describing: path))) {
      try store.register(Mutator(path) { (v: inout Int, _: Increment) in v += 1 })
    }
    #expect(store.mutatorKeys.isEmpty)
  }

  @Test("a property with didSet throws keyRequired without key:, and with one its didSet runs")
  func propertyObserverPath() throws {
    let store = try Store(initialState: ObservedState())
    let path = \ObservedState.value
    #expect(throws: RegistrationError.keyRequired(path: String(describing: path))) {
      try store.register(Mutator(path) { (v: inout Int, a: Increment) in v += a.by })
    }
    try store.register(Mutator(path, key: "value") { (v: inout Int, a: Increment) in v += a.by })
    let state = try store.dispatch(Increment(by: 2)).get()
    #expect(state.value == 2)
    #expect(state.changes == 1)
  }

  @Test("an explicit key makes a computed property path registrable")
  func computedPathWithKey() throws {
    let doubled = Mutator(\KeyState.doubled, key: "doubled") { (v: inout Int, a: Increment) in
      v += 2 * a.by
    }
    let store = try Store(initialState: KeyState(), mutators: [doubled])
    #expect(store.mutatorKeys == ["doubled"])
    #expect(try store.dispatch(Increment(by: 3)).get().counter == 3)
  }

  @Test("an explicit key makes a force-unwrapping path registrable")
  func forceUnwrapPathWithKey() throws {
    let title = Mutator(\KeyState.optional!.title, key: "title") {
      (t: inout String, a: Rename) in t = a.name
    }
    let store = try Store(initialState: KeyState(), mutators: [title])
    #expect(try store.dispatch(Rename(name: "x")).get().optional?.title == "x")
  }

  @Test("an explicit key makes a path through a class registrable")
  func classPathWithKey() throws {
    let path: WritableKeyPath<KeyState, Int> & Sendable = \KeyState.shared.value
    let shared = Mutator(path, key: "shared") { (v: inout Int, a: Increment) in v += a.by }
    let store = try Store(initialState: KeyState(), mutators: [shared])
    store.dispatch(Increment(by: 4))
    #expect(store.state.shared.value == 4)
  }

  @Test("an explicit key makes a zero-sized substate registrable")
  func zeroSizedPathWithKey() throws {
    let calls = Box(0)
    let marker = Mutator(\KeyState.marker, key: "marker") { (_: inout Empty, _: Increment) in
      calls.value += 1
    }
    let store = try Store(initialState: KeyState(), mutators: [marker])
    store.dispatch(Increment())
    #expect(calls.value == 1)
  }

  @Test("an explicit key makes a property with a zero-sized neighbour registrable")
  func zeroSizedNeighbourWithKey() throws {
    let calls = Box(0)
    let counter = Mutator(\NeighbourState.counter, key: "counter") {
      (v: inout Int, a: Increment) in v += a.by
    }
    let empty = Mutator(\NeighbourState.empty, key: "empty") { (_: inout Empty, _: Increment) in
      calls.value += 1
    }
    let store = try Store(initialState: NeighbourState(), mutators: [counter, empty])
    #expect(store.mutatorKeys == ["counter", "empty"])
    #expect(try store.dispatch(Increment(by: 2)).get().counter == 2)
    #expect(calls.value == 1)
  }

  @Test("a stored property of existential type is registrable with its default key")
  func existentialPropertyDefaultKey() throws {
    let store = try Store(initialState: ExistentialState())
    let payload = Mutator(\ExistentialState.payload) { (p: inout any Sendable, a: Increment) in
      p = a.by
    }
    // The Mirror child holds the dynamic type (`Int`); the check asks whether it can be the
    // substate (`any Sendable`), so the default key is accepted.
    try store.register(payload)
    #expect(store.mutatorKeys == ["\\ExistentialState.payload"])
  }
}
