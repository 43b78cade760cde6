import Reduce
import Testing

/// A reference a substate holds, to see whether the substate is copied.
final class Token: Sendable {}

/// A substate whose storage is a class reference, like an array's buffer.
struct Payload: Sendable {
  var token = Token()
}

/// A state with one substate that holds a reference.
struct TokenState: Sendable {
  var payload = Payload()
  var count = 0
}

/// Touches the payload.
struct Touch: Action {}

@Suite struct MutatorTests {
  // MARK: Keys

  @Test("a key-path mutator's default key is the key path's description")
  func defaultKeyIsKeyPathDescription() throws {
    #expect(counterMutator.key == "\\TestState.counter")
    #expect(counterMutator.key.rawValue == String(describing: \TestState.counter))
    let store = try makeStore()
    #expect(store.mutatorKeys == ["\\TestState.counter"])
  }

  @Test("the default key of a nested path names every component")
  func defaultKeyOfNestedPath() {
    let title = Mutator(\TestState.doc.title) { (title: inout String, action: Rename) in
      title = action.name
    }
    #expect(title.key == "\\TestState.doc.title")
  }

  @Test("key: overrides the default key")
  func explicitKeyOverridesDefault() throws {
    let counter = Mutator(\TestState.counter, key: "counter") { (c: inout Int, a: Increment) in
      c += a.by
    }
    #expect(counter.key == "counter")
    let store = try makeStore(mutators: [counter])
    #expect(store.mutatorKeys == ["counter"])
    #expect(try store.dispatch(Increment(by: 3)).get().counter == 3)
  }

  @Test("an interpolated key is the interpolated text")
  func interpolatedKey() {
    let id = 42
    let mutator = Mutator(\TestState.counter, key: "item-\(id)") { (c: inout Int, _: Increment) in
      c += 1
    }
    #expect(mutator.key == "item-42")
    #expect(mutator.key == MutatorKey("item-42"))
    #expect(mutator.key.description == "item-42")
  }

  @Test("keys compare and order by their text")
  func keyComparison() {
    let literal: MutatorKey = "b"
    #expect(literal == MutatorKey("b"))
    #expect(MutatorKey("a") < literal)
    #expect([MutatorKey("c"), "a", "b"].sorted() == ["a", "b", "c"])
    #expect(Set<MutatorKey>(["a", "a", "b"]).count == 2)
  }

  @Test("handledActions lists the handled action types in the order they were added")
  func handledActionsInOrder() {
    let mutator =
      counterMutator
      .on(Rename.self) { (_: inout Int, _: Rename) in }
      .on((any Action).self) { (_: inout Int, _: any Action) in }
    #expect(mutator.handledActions == ["Increment", "Rename", "any Action"])
  }

  // MARK: Forms

  @Test("the key-path form reduces its substate in place")
  func keyPathForm() throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    let state = try store.dispatch(Append(value: 7)).get()
    #expect(state.items == [7])
    #expect(state.counter == 0)
  }

  @Test("the lens form with closures reads and writes through the lens")
  func closureLensForm() throws {
    let title = Lens<TestState, String>(
      get: { $0.doc.title },
      set: { state, title in state.doc.title = title })
    let mutator = Mutator(key: "title", lens: title) { (title: inout String, action: Rename) in
      title += action.name
    }
    let store = try Store(
      initialState: TestState(doc: TestDoc(title: "a")), mutators: [mutator])
    let state = try store.dispatch(Rename(name: "b")).get()
    #expect(state.doc.title == "ab")
    #expect(store.mutatorKeys == ["title"])
  }

  @Test("the lens form with a key-path lens reduces the key path's substate")
  func keyPathLensForm() throws {
    let mutator = Mutator(key: "items", lens: Lens(\TestState.items)) {
      (items: inout [Int], action: Append) in
      items.append(action.value)
    }
    let store = try makeStore(mutators: [mutator])
    #expect(try store.dispatch(Append(value: 1)).get().items == [1])
  }

  @Test("a Lens built from a key path gets and sets the value at the path")
  func lensFromKeyPath() {
    let lens = Lens(\TestState.doc.body)
    var state = TestState()
    lens.set(&state, "text")
    #expect(state.doc.body == "text")
    #expect(lens.get(state) == "text")
  }

  @Test("the pure form returns the new substate from the whole state and the action")
  func pureForm() throws {
    let summary = Mutator(
      \TestState.name,
      reduce: { (state: TestState, action: Rename) -> String in
        "\(action.name)#\(state.counter)"
      })
    let store = try makeStore(mutators: [counterMutator, summary])
    store.dispatch(Increment(by: 2))
    #expect(try store.dispatch(Rename(name: "n")).get().name == "n#2")
  }

  @Test("the pure form with reduce: label on a lens mutator")
  func pureLensForm() throws {
    let mutator = Mutator(
      key: "name", lens: Lens(\TestState.name),
      reduce: {
        (state: TestState, action: Rename) -> String in
        action.name.uppercased() + "\(state.items.count)"
      })
    let store = try makeStore(mutators: [mutator])
    #expect(try store.dispatch(Rename(name: "x")).get().name == "X0")
  }

  @Test("a pure handler added with .on(_:reduce:) handles its action type")
  func pureOnHandler() throws {
    let mutator = counterMutator.on(
      Append.self,
      reduce: { (state: TestState, action: Append) in
        state.counter + action.value * 10
      })
    let store = try makeStore(mutators: [mutator])
    store.dispatch(Increment(by: 1))
    #expect(try store.dispatch(Append(value: 2)).get().counter == 21)
  }

  @Test(".on adds a handler for a second action type")
  func onSecondActionType() throws {
    let mutator = counterMutator.on(Rename.self) { (counter: inout Int, action: Rename) in
      if action.name == "reset" { counter = 0 }
    }
    let store = try makeStore(mutators: [mutator])
    store.dispatch(Increment(by: 5))
    #expect(try store.dispatch(Rename(name: "reset")).get().counter == 0)
  }

  @Test(
    "a key-path handler that cannot throw reduces its substate in place, also with a key-path observer"
  )
  func inPlaceReduction() throws {
    let unique = Probe<Bool>()
    let payload = Mutator(\TokenState.payload) { (payload: inout Payload, _: Touch) in
      unique.append(isKnownUniquelyReferenced(&payload.token))
    }
    let store = try Store(initialState: TokenState(), mutators: [payload])
    store.dispatch(Touch())
    let subscription = store.subscribe(to: \.count) { _ in }
    store.dispatch(Touch())
    #expect(unique.values == [true, true])
    subscription.cancel()
  }

  // MARK: Wildcard handlers

  @Test("a wildcard handler sees every action, whatever its type")
  func wildcardSeesEveryAction() throws {
    let seen = Probe<String>()
    let spy = Mutator(\TestState.doc) { (_: inout TestDoc, action: any Action) in
      seen.append(String(describing: type(of: action)))
    }
    let store = try makeStore(mutators: [counterMutator, itemsMutator, spy])
    store.dispatch(Increment())
    store.dispatch(Append(value: 1))
    store.dispatch(Unhandled())
    store.dispatch(Rename(name: "x"))
    #expect(seen.values == ["Increment", "Append", "Unhandled", "Rename"])
  }

  @Test("a wildcard handler added with .on((any Action).self) sees every action")
  func wildcardViaOn() throws {
    let count = Box(0)
    let mutator = counterMutator.on((any Action).self) { (_: inout Int, _: any Action) in
      count.value += 1
    }
    let store = try makeStore(mutators: [mutator])
    store.dispatch(Increment())
    store.dispatch(Unhandled())
    #expect(count.value == 2)
  }

  @Test("a wildcard lens mutator sees every action")
  func wildcardLensForm() throws {
    let mutator = Mutator(key: "count-actions", lens: Lens(\TestState.counter)) {
      (counter: inout Int, _: any Action) in
      counter += 1
    }
    let store = try makeStore(mutators: [mutator])
    store.dispatch(Unhandled())
    #expect(try store.dispatch(Rename(name: "x")).get().counter == 2)
  }

  @Test("the typed handler runs before the wildcard handler of the same mutator")
  func typedBeforeWildcard() throws {
    let order = Probe<String>()
    let mutator = Mutator(\TestState.counter) { (_: inout Int, _: any Action) in
      order.append("wildcard")
    }
    .on(Increment.self) { (_: inout Int, _: Increment) in
      order.append("typed")
    }
    let store = try makeStore(mutators: [mutator])
    store.dispatch(Increment())
    #expect(order.values == ["typed", "wildcard"])
  }

  // MARK: Order and routing

  @Test("mutators run in registration order, each seeing the changes of the ones before")
  func registrationOrder() throws {
    let order = Probe<String>()
    let first = Mutator(\TestState.counter) { (counter: inout Int, action: Increment) in
      order.append("counter")
      counter += action.by
    }
    let second = Mutator(\TestState.items) { (state: TestState, _: Increment) -> [Int] in
      order.append("items")
      return state.items + [state.counter]
    }
    let third = Mutator(\TestState.name) { (state: TestState, _: Increment) -> String in
      order.append("name")
      return "\(state.counter):\(state.items)"
    }
    let store = try makeStore(mutators: [first, second, third])
    let state = try store.dispatch(Increment(by: 4)).get()
    #expect(order.values == ["counter", "items", "name"])
    #expect(state.items == [4])
    #expect(state.name == "4:[4]")
  }

  @Test("a mutator that does not handle an action's type is not called for it")
  func routingSkipsOtherMutators() throws {
    let counterCalls = Box(0)
    let itemCalls = Box(0)
    let counter = Mutator(\TestState.counter) { (c: inout Int, a: Increment) in
      counterCalls.value += 1
      c += a.by
    }
    let items = Mutator(\TestState.items) { (items: inout [Int], a: Append) in
      itemCalls.value += 1
      items.append(a.value)
    }
    let store = try makeStore(mutators: [counter, items])
    store.dispatch(Increment())
    store.dispatch(Increment())
    store.dispatch(Append(value: 1))
    store.dispatch(Unhandled())
    #expect(counterCalls.value == 2)
    #expect(itemCalls.value == 1)
  }

  @Test("an unregistered mutator is no longer called")
  func unregisterStopsMutator() throws {
    let store = try makeStore(mutators: [counterMutator, itemsMutator])
    #expect(store.unregister("\\TestState.items"))
    #expect(store.mutatorKeys == ["\\TestState.counter"])
    #expect(try store.dispatch(Append(value: 1)).get().items.isEmpty)
    #expect(!store.unregister("\\TestState.items"))
  }

  @Test("a mutator registered after init is called for later actions")
  func registerAfterInit() throws {
    let store = try makeStore()
    try store.register(itemsMutator)
    #expect(store.mutatorKeys == ["\\TestState.counter", "\\TestState.items"])
    #expect(try store.dispatch(Append(value: 3)).get().items == [3])
  }
}
