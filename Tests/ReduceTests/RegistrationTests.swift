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

/// A state with a zero-sized property, for coverage checks.
struct MarkedState: Sendable {
  var counter = 0
  var marker = Empty()
}

/// A middleware that refuses to join any store.
struct Refuser: Middleware {
  func willAttach(to store: ObjectIdentifier) throws {
    throw TestError(reason: "one store only")
  }

  func handle(_ action: any Action, context: MiddlewareContext<TestState>, next: Next<TestState>)
    throws
  {
    try next(action)
  }
}

/// A pass-through middleware with a given name.
func passThrough(_ name: String, calls: Probe<String>? = nil) -> AnyMiddleware<TestState> {
  AnyMiddleware(name: name) { action, _, next in
    calls?.append(name)
    try next(action)
  }
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
    let store = try makeStore()
    #expect(
      throws: RegistrationError.duplicateHandler(key: "\\TestState.name", action: "Rename")
    ) {
      try store.register(twice)
    }
    expectUnchanged(store, keys: ["\\TestState.counter"], refusedCalls: calls)
  }

  @Test("two wildcard handlers throw duplicateHandler")
  func duplicateWildcardHandler() throws {
    let calls = Box(0)
    let twice = Mutator(\TestState.name) { (_: inout String, _: any Action) in calls.value += 1 }
      .on((any Action).self) { (_: inout String, _: any Action) in calls.value += 1 }
    let store = try makeStore()
    #expect(
      throws: RegistrationError.duplicateHandler(key: "\\TestState.name", action: "any Action")
    ) {
      try store.register(twice)
    }
    expectUnchanged(store, keys: ["\\TestState.counter"], refusedCalls: calls)
  }

  @Test("a handler whose substate annotation differs from the key path throws substateMismatch")
  func substateMismatch() throws {
    let calls = Box(0)
    let mismatched = Mutator(\TestState.name) { (_: inout String, _: Rename) in calls.value += 1 }
      .on(Append.self) { (_: inout [Int], _: Append) in calls.value += 1 }
    let store = try makeStore()
    let expected = RegistrationError.substateMismatch(
      key: "\\TestState.name", expected: "String", found: "Array<Int>")
    #expect(throws: expected) {
      try store.register(mismatched)
    }
    expectUnchanged(store, keys: ["\\TestState.counter"], refusedCalls: calls)
  }

  @Test("a handler typed on Batch throws builtInAction")
  func batchHandlerIsRefused() throws {
    let calls = Box(0)
    let mutator = spy(\.name, calls: calls)
      .on(Batch.self) { (_: inout String, _: Batch) in calls.value += 1 }
    let store = try makeStore()
    #expect(throws: RegistrationError.builtInAction(key: "\\TestState.name", action: "Batch")) {
      try store.register(mutator)
    }
    expectUnchanged(store, keys: ["\\TestState.counter"], refusedCalls: calls)
  }

  @Test("a handler typed on ReplaceState throws builtInAction")
  func replaceStateHandlerIsRefused() throws {
    let calls = Box(0)
    let mutator = spy(\.name, calls: calls)
      .on(ReplaceState<TestState>.self) { (_: inout String, _: ReplaceState<TestState>) in
        calls.value += 1
      }
    let store = try makeStore()
    let expected = RegistrationError.builtInAction(
      key: "\\TestState.name", action: "ReplaceState<TestState>")
    #expect(throws: expected) {
      try store.register(mutator)
    }
    expectUnchanged(store, keys: ["\\TestState.counter"], refusedCalls: calls)
  }

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

  // MARK: Middleware

  @Test("init refuses two middleware with one name")
  func initRefusesDuplicateMiddleware() {
    #expect(throws: RegistrationError.duplicateMiddleware("log")) {
      _ = try makeStore(middleware: [passThrough("log"), passThrough("log")])
    }
  }

  @Test("use refuses a taken middleware name and leaves the chain unchanged")
  func useRefusesDuplicateMiddleware() throws {
    let calls = Probe<String>()
    let store = try makeStore(middleware: [passThrough("log", calls: calls)])
    let impostor = AnyMiddleware<TestState>(name: "log") { action, _, next in
      calls.append("impostor")
      try next(action)
    }
    #expect(throws: RegistrationError.duplicateMiddleware("log")) {
      try store.use(impostor)
    }
    #expect(store.middlewareNames == ["log"])
    store.dispatch(Increment())
    #expect(calls.values == ["log"])
  }

  @Test("use throws middlewareRefused when willAttach throws, and the chain is unchanged")
  func useMiddlewareRefused() throws {
    let store = try makeStore(middleware: [passThrough("log")])
    let expected = RegistrationError.middlewareRefused(
      name: "Refuser", reason: String(describing: TestError(reason: "one store only")))
    #expect(throws: expected) {
      try store.use(Refuser())
    }
    #expect(store.middlewareNames == ["log"])
  }

  @Test("init throws middlewareRefused when willAttach throws")
  func initMiddlewareRefused() {
    #expect(
      throws: RegistrationError.middlewareRefused(
        name: "Refuser", reason: "TestError(reason: \"one store only\")")
    ) {
      _ = try makeStore(middleware: [Refuser()])
    }
  }

  @Test("an init that throws detaches the middleware that had already joined")
  func failedInitDetaches() {
    let events = Probe<String>()
    #expect(throws: RegistrationError.self) {
      _ = try makeStore(middleware: [Lifecycle(name: "first", events: events), Refuser()])
    }
    #expect(events.values == ["attach first", "detach first"])
  }

  // MARK: Coverage

  @Test("validateCoverage names every top-level property without a mutator")
  func missingMutators() throws {
    let store = try makeStore()
    #expect(throws: RegistrationError.missingMutators(["items", "doc", "name"])) {
      try store.validateCoverage()
    }
  }

  @Test("a nested path covers its top-level property")
  func nestedPathCoversTopLevel() throws {
    let title = Mutator(\TestState.doc.title) { (t: inout String, a: Rename) in t = a.name }
    let store = try makeStore(mutators: [counterMutator, title])
    #expect(throws: RegistrationError.missingMutators(["items", "name"])) {
      try store.validateCoverage()
    }
  }

  @Test("validateCoverage passes when every property has a mutator")
  func fullCoverage() throws {
    let doc = Mutator(\TestState.doc) { (d: inout TestDoc, a: Rename) in d.body = a.name }
    let store = try makeStore(mutators: [counterMutator, itemsMutator, nameMutator, doc])
    try store.validateCoverage()
  }

  @Test("zero-sized properties need no mutator")
  func zeroSizedPropertiesNotRequired() throws {
    let counter = Mutator(\MarkedState.counter) { (v: inout Int, a: Increment) in v += a.by }
    let store = try Store(initialState: MarkedState(), mutators: [counter])
    try store.validateCoverage()
  }

  @Test("a key-path lens mutator covers its property")
  func keyPathLensCovers() throws {
    let counter = Mutator(key: "counter", lens: Lens(\TestState.counter)) {
      (v: inout Int, _: Increment) in v += 1
    }
    let doc = Mutator(\TestState.doc) { (d: inout TestDoc, a: Rename) in d.body = a.name }
    let store = try makeStore(mutators: [counter, itemsMutator, nameMutator, doc])
    try store.validateCoverage()
  }

  @Test("a property with a zero-sized neighbour is covered by its mutator with an explicit key")
  func zeroSizedNeighbourCovered() throws {
    let counter = Mutator(\NeighbourState.counter, key: "counter") {
      (v: inout Int, a: Increment) in v += a.by
    }
    let store = try Store(initialState: NeighbourState(), mutators: [counter])
    // `\NeighbourState.counter` describes itself as `\NeighbourState.empty`; coverage looks past
    // the zero-sized neighbour to the property that really starts there.
    try store.validateCoverage()
  }

  @Test("a force-unwrapping path covers its first component")
  func forceUnwrapPathCovers() throws {
    let title = Mutator(\KeyState.optional!.title, key: "title") {
      (t: inout String, a: Rename) in t = a.name
    }
    let counter = Mutator(\KeyState.counter) { (v: inout Int, a: Increment) in v += a.by }
    let shared = Mutator(\KeyState.shared, key: "shared") { (_: inout Shared, _: Increment) in }
    let store = try Store(initialState: KeyState(), mutators: [title, counter, shared])
    // The description's first component is `optional!`: the unwrapping is not part of the name.
    try store.validateCoverage()
  }

  @Test("a stored property of existential type is covered by its mutator")
  func existentialPropertyCovered() throws {
    let payload = Mutator(\ExistentialState.payload, key: "payload") {
      (p: inout any Sendable, a: Increment) in p = a.by
    }
    let counter = Mutator(\ExistentialState.counter) { (v: inout Int, a: Increment) in v += 1 }
    let store = try Store(initialState: ExistentialState(), mutators: [payload, counter])
    try store.validateCoverage()
  }

  @Test("a lens mutator built from closures covers nothing")
  func closureLensCoversNothing() throws {
    let lens = Lens<TestState, Int>(get: { $0.counter }, set: { $0.counter = $1 })
    let counter = Mutator(key: "counter", lens: lens) { (v: inout Int, _: Increment) in v += 1 }
    let store = try makeStore(mutators: [counter, itemsMutator, nameMutator])
    #expect(throws: RegistrationError.missingMutators(["counter", "doc"])) {
      try store.validateCoverage()
    }
  }
}

@Suite struct ErrorDescriptionTests {
  static let registrationErrors: [(RegistrationError, [String])] = [
    (.duplicateKey("k1"), ["k1"]),
    (.overlappingSubstate(key: "k2", existing: "k3"), ["k2", "k3"]),
    (.duplicateHandler(key: "k4", action: "Increment"), ["k4", "Increment"]),
    (.substateMismatch(key: "k5", expected: "Int", found: "String"), ["k5", "Int", "String"]),
    (.builtInAction(key: "k6", action: "Batch"), ["k6", "Batch"]),
    (.keyRequired(path: "\\S.p"), ["\\S.p"]),
    (.duplicateMiddleware("m1"), ["m1"]),
    (.middlewareRefused(name: "m2", reason: "nope"), ["m2", "nope"]),
    (.missingMutators(["a", "b"]), ["a", "b"]),
  ]

  @Test(
    "every RegistrationError description is non-empty and names what it is about",
    arguments: registrationErrors)
  func registrationErrorDescription(error: RegistrationError, names: [String]) {
    #expect(!error.description.isEmpty)
    for name in names {
      #expect(error.description.contains(name))
    }
  }

  static let dispatchErrors: [(DispatchError, String)] = [
    (.reducerFailed(key: "k1", action: Increment(), underlying: TestError()), "k1"),
    (.rejected(by: "m1", action: Increment(), underlying: TestError()), "m1"),
    (.middlewareFailed(name: "m2", action: Increment(), underlying: TestError()), "m2"),
  ]

  @Test(
    "every DispatchError description is non-empty and names the key or middleware, the action and the cause",
    arguments: dispatchErrors)
  func dispatchErrorDescription(error: DispatchError, name: String) {
    #expect(!error.description.isEmpty)
    #expect(error.description.contains(name))
    #expect(error.description.contains("Increment"))
    #expect(error.description.contains("boom"))
  }

  @Test(
    "DispatchError exposes the action and the underlying error of every case",
    arguments: dispatchErrors.map(\.0))
  func dispatchErrorAccessors(error: DispatchError) {
    #expect(error.action is Increment)
    #expect(error.underlying as? TestError == TestError())
  }
}
