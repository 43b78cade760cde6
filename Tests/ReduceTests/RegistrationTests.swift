import Reduce
import Testing

/// A zero-sized value: it holds no state.
struct Empty: Equatable, Sendable {}

/// A class reached through a state's stored property.
///
/// `@unchecked Sendable`: only reducers touch `value`, and a store runs them one at a time.
final class Shared: @unchecked Sendable {
  var value = 0
}

/// A state whose paths have no stable description: computed, optional, through a class,
/// zero-sized.
struct KeyState: Sendable {
  var counter = 0
  var optional: TestDoc? = TestDoc()
  var shared = Shared()
  var marker = Empty()

  var doubled: Int {
    get { counter * 2 }
    set { counter = newValue / 2 }
  }
}

/// A state whose first property is zero-sized, so `\NeighbourState.counter` has the same
/// offset as `\NeighbourState.empty` and describes itself as that path.
struct NeighbourState: Sendable {
  var empty = Empty()
  var counter = 0
}

/// A state with a stored property of existential type.
struct ExistentialState: Sendable {
  var payload: any Sendable = 0
  var counter = 0
}

/// A state with a property observer, which makes its key path computed.
struct ObservedState: Sendable {
  var value = 0 {
    didSet { changes += 1 }
  }
  var changes = 0
}

@Suite struct RegistrationTests {
  /// Checks that a refused registration left `store` as it was: the same keys, the counter
  /// mutator still reduces, and the refused mutator's handlers never run.
  func expectUnchanged(
    _ store: Store<TestState>, keys: [MutatorKey], refusedCalls: Box<Int>,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(store.mutatorKeys == keys, sourceLocation: sourceLocation)
    let before = store.state
    let after = store.dispatch(Increment(by: 1)).success
    #expect(after?.counter == before.counter + 1, sourceLocation: sourceLocation)
    store.dispatch(Rename(name: "probe"))
    store.dispatch(Append(value: 1))
    store.dispatch(Unhandled())
    #expect(refusedCalls.value == 0, sourceLocation: sourceLocation)
  }

  /// Checks that a store with only the counter mutator refuses to register `mutator`, throwing
  /// `error`, and is left as it was.
  func expectRefused(
    _ mutator: Mutator<TestState>, throwing error: RegistrationError, refusedCalls: Box<Int>,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let store = try makeStore()
    #expect(throws: error, sourceLocation: sourceLocation) {
      try store.register(mutator)
    }
    expectUnchanged(
      store, keys: ["\\TestState.counter"], refusedCalls: refusedCalls,
      sourceLocation: sourceLocation)
  }

  /// A mutator of `path` whose every handler counts its calls in `calls`.
  func spy(
    _ path: WritableKeyPath<TestState, String> & Sendable, key: MutatorKey? = nil,
    calls: Box<Int>
  ) -> Mutator<TestState> {
    Mutator(path, key: key) { (_: inout String, _: Rename) in calls.value += 1 }
  }

  // MARK: Duplicate keys and overlaps

  @Test("a second mutator with a taken key throws duplicateKey and leaves the store unchanged")
  func duplicateKey() throws {
    let store = try makeStore(mutators: [counterMutator, nameMutator])
    let calls = Box(0)
    let taken = Mutator(\TestState.items, key: "\\TestState.name") {
      (_: inout [Int], _: Append) in calls.value += 1
    }
    #expect(throws: RegistrationError.duplicateKey("\\TestState.name")) {
      try store.register(taken)
    }
    expectUnchanged(store, keys: ["\\TestState.counter", "\\TestState.name"], refusedCalls: calls)
  }

  @Test("init refuses duplicate keys among its mutators")
  func initRefusesDuplicateKey() {
    #expect(throws: RegistrationError.duplicateKey("\\TestState.counter")) {
      _ = try makeStore(mutators: [counterMutator, counterMutator])
    }
  }

  @Test("the same path under two explicit keys throws overlappingSubstate")
  func samePathTwoKeys() throws {
    let calls = Box(0)
    let first = Mutator(\TestState.name, key: "first") { (name: inout String, a: Rename) in
      name = a.name
    }
    let store = try makeStore(mutators: [counterMutator, first])
    #expect(throws: RegistrationError.overlappingSubstate(key: "second", existing: "first")) {
      try store.register(spy(\.name, key: "second", calls: calls))
    }
    expectUnchanged(store, keys: ["\\TestState.counter", "first"], refusedCalls: calls)
  }

  @Test("a path inside a registered path throws overlappingSubstate")
  func innerPathOverlaps() throws {
    let calls = Box(0)
    let doc = Mutator(\TestState.doc) { (doc: inout TestDoc, a: Rename) in doc.title = a.name }
    let store = try makeStore(mutators: [counterMutator, doc])
    let expected = RegistrationError.overlappingSubstate(
      key: "\\TestState.doc.title", existing: "\\TestState.doc")
    #expect(throws: expected) {
      try store.register(spy(\.doc.title, calls: calls))
    }
    expectUnchanged(store, keys: ["\\TestState.counter", "\\TestState.doc"], refusedCalls: calls)
  }

  @Test("a path around a registered path throws overlappingSubstate")
  func outerPathOverlaps() throws {
    let calls = Box(0)
    let title = Mutator(\TestState.doc.title) { (title: inout String, a: Rename) in
      title = a.name
    }
    let store = try makeStore(mutators: [counterMutator, title])
    let outer = Mutator(\TestState.doc) { (_: inout TestDoc, _: Rename) in calls.value += 1 }
    let expected = RegistrationError.overlappingSubstate(
      key: "\\TestState.doc", existing: "\\TestState.doc.title")
    #expect(throws: expected) {
      try store.register(outer)
    }
    expectUnchanged(
      store, keys: ["\\TestState.counter", "\\TestState.doc.title"], refusedCalls: calls)
  }

  @Test("a key-path lens inside a registered path throws overlappingSubstate")
  func keyPathLensOverlaps() throws {
    let doc = Mutator(\TestState.doc) { (doc: inout TestDoc, a: Rename) in doc.title = a.name }
    let store = try makeStore(mutators: [counterMutator, doc])
    let title = Mutator(key: "title", lens: Lens(\TestState.doc.title)) {
      (t: inout String, a: Rename) in t = a.name
    }
    #expect(
      throws: RegistrationError.overlappingSubstate(key: "title", existing: "\\TestState.doc")
    ) {
      try store.register(title)
    }
  }

  @Test("sibling paths of one struct do not overlap")
  func siblingsDoNotOverlap() throws {
    let title = Mutator(\TestState.doc.title) { (t: inout String, a: Rename) in t = a.name }
    let body = Mutator(\TestState.doc.body) { (b: inout String, a: Rename) in b = a.name }
    let store = try makeStore(mutators: [title, body])
    let state = try store.dispatch(Rename(name: "x")).get()
    #expect(state.doc == TestDoc(title: "x", body: "x"))
  }

  @Test("after unregistering, the key and the substate can be registered again")
  func reRegisterAfterUnregister() throws {
    let store = try makeStore()
    store.unregister("\\TestState.counter")
    try store.register(counterMutator)
    #expect(store.mutatorKeys == ["\\TestState.counter"])
    #expect(try store.dispatch(Increment()).get().counter == 1)
  }

  // MARK: The mutator's own problems

  @Test("two .on handlers for one action type throw duplicateHandler")
  func duplicateTypedHandler() throws {
    let calls = Box(0)
    let twice = Mutator(\TestState.name) { (_: inout String, _: Rename) in calls.value += 1 }
      .on(Rename.self) { (_: inout String, _: Rename) in calls.value += 1 }
    try expectRefused(
      twice, throwing: .duplicateHandler(key: "\\TestState.name", action: "Rename"),
      refusedCalls: calls)
  }

  @Test("two wildcard handlers throw duplicateHandler")
  func duplicateWildcardHandler() throws {
    let calls = Box(0)
    let twice = Mutator(\TestState.name) { (_: inout String, _: any Action) in calls.value += 1 }
      .on((any Action).self) { (_: inout String, _: any Action) in calls.value += 1 }
    try expectRefused(
      twice, throwing: .duplicateHandler(key: "\\TestState.name", action: "any Action"),
      refusedCalls: calls)
  }

  @Test("a handler whose substate annotation differs from the key path throws substateMismatch")
  func substateMismatch() throws {
    let calls = Box(0)
    let mismatched = Mutator(\TestState.name) { (_: inout String, _: Rename) in calls.value += 1 }
      .on(Append.self) { (_: inout [Int], _: Append) in calls.value += 1 }
    try expectRefused(
      mismatched,
      throwing: .substateMismatch(
        key: "\\TestState.name", expected: "String", found: "Array<Int>"),
      refusedCalls: calls)
  }

  @Test("a handler typed on Batch throws builtInAction")
  func batchHandlerIsRefused() throws {
    let calls = Box(0)
    let mutator = spy(\.name, calls: calls)
      .on(Batch.self) { (_: inout String, _: Batch) in calls.value += 1 }
    try expectRefused(
      mutator, throwing: .builtInAction(key: "\\TestState.name", action: "Batch"),
      refusedCalls: calls)
  }

  @Test("a handler typed on ReplaceState throws builtInAction")
  func replaceStateHandlerIsRefused() throws {
    let calls = Box(0)
    let mutator = spy(\.name, calls: calls)
      .on(ReplaceState<TestState>.self) { (_: inout String, _: ReplaceState<TestState>) in
        calls.value += 1
      }
    try expectRefused(
      mutator,
      throwing: .builtInAction(
        key: "\\TestState.name", action: "ReplaceState<TestState>"),
      refusedCalls: calls)
  }

  // MARK: Order of checks

  @Test("a handler problem is reported before a key problem")
  func handlerProblemBeforeKeyProblem() throws {
    let store = try Store(initialState: KeyState())
    let mutator = Mutator(\KeyState.doubled) { (_: inout Int, _: Increment) in }
      .on(Increment.self) { (_: inout Int, _: Increment) in }
    let key = MutatorKey(String(describing: \KeyState.doubled))
    #expect(throws: RegistrationError.duplicateHandler(key: key, action: "Increment")) {
      try store.register(mutator)
    }
  }

  @Test("a key problem is reported before a duplicate key")
  func keyProblemBeforeDuplicateKey() throws {
    let description = String(describing: \KeyState.doubled)
    let squatter = Mutator(\KeyState.counter, key: MutatorKey(description)) {
      (_: inout Int, _: Increment) in
    }
    let store = try Store(initialState: KeyState(), mutators: [squatter])
    #expect(throws: RegistrationError.keyRequired(path: description)) {
      try store.register(Mutator(\KeyState.doubled) { (_: inout Int, _: Rename) in })
    }
    #expect(store.mutatorKeys == [MutatorKey(description)])
  }

  @Test("a duplicate key is reported before an overlapping substate")
  func duplicateKeyBeforeOverlap() throws {
    let store = try makeStore()
    let again = Mutator(\TestState.counter) { (_: inout Int, _: Rename) in }
    #expect(throws: RegistrationError.duplicateKey("\\TestState.counter")) {
      try store.register(again)
    }
  }
}
