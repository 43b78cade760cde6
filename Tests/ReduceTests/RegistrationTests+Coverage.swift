import Reduce
import Testing

/// A state with a zero-sized property, for coverage checks.
struct MarkedState: Sendable {
  var counter = 0
  var marker = Empty()
}

extension RegistrationTests {
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
