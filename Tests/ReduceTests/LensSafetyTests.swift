import Reduce
import Testing

/// Lens mutators take part in the overlap and coverage checks.
@Suite struct LensSafetyTests {
  let counterLens = Lens<TestState, Int>(
    covering: [\TestState.counter], get: { $0.counter }, set: { $0.counter = $1 })

  @Test("a second mutator of one lens value under another key is refused")
  func sameLensTwice() throws {
    let lens = Lens<TestState, Int>(get: { $0.counter }, set: { $0.counter = $1 })
    let first = Mutator(key: "first", lens: lens) { (v: inout Int, a: Increment) in v += a.by }
    let second = Mutator(key: "second", lens: lens) { (v: inout Int, a: Increment) in v += a.by }
    let store = try Store(initialState: TestState(), mutators: [first])
    #expect(throws: RegistrationError.overlappingSubstate(key: "second", existing: "first")) {
      try store.register(second)
    }
    #expect(try store.dispatch(Increment(by: 10)).get().counter == 10)
  }

  @Test("two lenses declaring the same path are refused")
  func sameDeclaredPath() throws {
    let other = Lens<TestState, Int>(
      covering: [\TestState.counter], get: { $0.counter }, set: { $0.counter = $1 })
    let store = try Store(
      initialState: TestState(),
      mutators: [Mutator(key: "a", lens: counterLens) { (v: inout Int, _: Increment) in v += 1 }])
    #expect(throws: RegistrationError.overlappingSubstate(key: "b", existing: "a")) {
      try store.register(Mutator(key: "b", lens: other) { (v: inout Int, _: Increment) in v += 1 })
    }
  }

  @Test("a key-path mutator and a lens declaring its path are refused, in either order")
  func keyPathAgainstLens() throws {
    let keyPath = Mutator(\TestState.counter) { (v: inout Int, _: Increment) in v += 1 }
    let lens = Mutator(key: "lens", lens: counterLens) { (v: inout Int, _: Rename) in v = 0 }
    let store = try Store(initialState: TestState(), mutators: [keyPath])
    #expect(
      throws: RegistrationError.overlappingSubstate(key: "lens", existing: "\\TestState.counter")
    ) { try store.register(lens) }
    let reversed = try Store(initialState: TestState(), mutators: [lens])
    #expect(
      throws: RegistrationError.overlappingSubstate(key: "\\TestState.counter", existing: "lens")
    ) { try reversed.register(keyPath) }
  }

  @Test("a lens declaring a path inside a key-path mutator's substate is refused")
  func nestedDeclaredPath() throws {
    let doc = Mutator(\TestState.doc) { (d: inout TestDoc, a: Rename) in d.body = a.name }
    let title = Lens<TestState, String>(
      covering: [\TestState.doc.title], get: { $0.doc.title }, set: { $0.doc.title = $1 })
    let store = try Store(initialState: TestState(), mutators: [doc])
    #expect(
      throws: RegistrationError.overlappingSubstate(key: "title", existing: "\\TestState.doc")
    ) {
      try store.register(
        Mutator(key: "title", lens: title) { (t: inout String, a: Rename) in t = a.name })
    }
  }

  @Test("lenses declaring different paths are both accepted")
  func disjointLenses() throws {
    let name = Lens<TestState, String>(
      covering: [\TestState.name], get: { $0.name }, set: { $0.name = $1 })
    let store = try Store(
      initialState: TestState(),
      mutators: [
        Mutator(key: "counter", lens: counterLens) { (v: inout Int, a: Increment) in v += a.by },
        Mutator(key: "name", lens: name) { (n: inout String, a: Rename) in n = a.name },
      ])
    #expect(try store.dispatch(Increment(by: 10)).get().counter == 10)
  }

  @Test("the overlap error says to merge the handlers with .on(_:)")
  func messageSaysMerge() {
    let error = RegistrationError.overlappingSubstate(key: "b", existing: "a")
    #expect(error.description.contains(".on(_:)"))
  }

  @Test("a lens covers the top-level properties of the paths it declares")
  func declaredPathsCover() throws {
    let rest = Lens<TestState, (TestDoc, String, [Int])>(
      covering: [\TestState.doc, \TestState.name, \TestState.items],
      get: { ($0.doc, $0.name, $0.items) },
      set: { state, value in (state.doc, state.name, state.items) = value })
    let store = try Store(
      initialState: TestState(),
      mutators: [
        Mutator(key: "counter", lens: counterLens) { (v: inout Int, _: Increment) in v += 1 }
      ])
    #expect(throws: RegistrationError.missingMutators(["items", "doc", "name"])) {
      try store.validateCoverage()
    }
    try store.register(
      Mutator(key: "rest", lens: rest) { (value: inout (TestDoc, String, [Int]), a: Rename) in
        value.1 = a.name
      })
    try store.validateCoverage()
  }

  @Test("a lens without declared paths still covers nothing")
  func undeclaredCoversNothing() throws {
    let lens = Lens<TestState, Int>(get: { $0.counter }, set: { $0.counter = $1 })
    let store = try Store(
      initialState: TestState(),
      mutators: [Mutator(key: "c", lens: lens) { (v: inout Int, _: Increment) in v += 1 }])
    #expect(throws: RegistrationError.missingMutators(["counter", "items", "doc", "name"])) {
      try store.validateCoverage()
    }
  }

  @Test("RxReduce's returning setter is accepted beside the inout one")
  func returningSetter() throws {
    let lens = Lens<TestState, Int>(
      get: { $0.counter },
      set: { state, counter in
        var state = state
        state.counter = counter
        return state
      })
    let store = try Store(
      initialState: TestState(),
      mutators: [Mutator(key: "c", lens: lens) { (v: inout Int, a: Increment) in v += a.by }])
    #expect(try store.dispatch(Increment(by: 3)).get().counter == 3)
  }
}
