import Reduce
import Synchronization
import Testing

/// What the middleware of a test saw, in order, as "name:ActionType", and how often each was
/// asked whether it handles a type.
final class ChainRecord: Sendable {
  private let seen = Mutex<[String]>([])
  private let asked = Mutex<[String: Int]>([:])

  var all: [String] { seen.withLock { $0 } }

  func saw(_ name: String, _ action: any Action) {
    seen.withLock { $0.append("\(name):\(type(of: action))") }
  }

  func wasAsked(_ name: String, about type: any Action.Type) {
    asked.withLock { $0["\(name):\(type)", default: 0] += 1 }
  }

  func questions(_ name: String, about type: any Action.Type) -> Int {
    asked.withLock { $0["\(name):\(type)"] ?? 0 }
  }

  func clear() {
    seen.withLock { $0 = [] }
  }
}

/// A pass-through middleware that wants only the action types it is given (every type when nil).
struct Selective: Middleware {
  let name: String
  let wanted: [any Action.Type]?
  let record: ChainRecord
  /// An action to pass on instead of the one handled, when set.
  var replacement: (@Sendable (any Action) -> (any Action)?)? = nil

  func handles(_ type: any Action.Type) -> Bool {
    record.wasAsked(name, about: type)
    guard let wanted else { return true }
    return wanted.contains { ObjectIdentifier($0) == ObjectIdentifier(type) }
  }

  func handle(_ action: any Action, context: MiddlewareContext<TestState>, next: Next<TestState>)
    throws
  {
    record.saw(name, action)
    let passed = replacement?(action) ?? action
    try next(passed)
  }
}

/// An action class with a subclass, for routing by the type an action is dispatched as.
///
/// `@unchecked Sendable`: its one property is an immutable `Int`.
class Bonus: Action, @unchecked Sendable {
  let amount: Int

  init(amount: Int) {
    self.amount = amount
  }
}

/// A subclass of ``Bonus`` that no mutator handles by its own type.
final class BigBonus: Bonus, @unchecked Sendable {}

@Suite struct MiddlewarePlanTests {
  let record = ChainRecord()

  func middleware(_ name: String, wants wanted: [any Action.Type]? = nil) -> Selective {
    Selective(name: name, wanted: wanted, record: record)
  }

  @Test("a middleware that declines a type never sees its actions; the others do, in order")
  func declinedTypeSkipsTheMiddleware() throws {
    let store = try makeStore(
      mutators: [counterMutator, itemsMutator],
      middleware: [middleware("a"), middleware("b", wants: [Append.self]), middleware("c")])
    let afterIncrement = try store.dispatch(Increment(by: 2)).get()
    #expect(afterIncrement.counter == 2)
    #expect(record.all == ["a:Increment", "c:Increment"])
    record.clear()
    let afterAppend = try store.dispatch(Append(value: 7)).get()
    #expect(afterAppend.items == [7])
    #expect(record.all == ["a:Append", "b:Append", "c:Append"])
  }

  @Test("an action no middleware wants is reduced, and its result returned, as without middleware")
  func nobodyWantsIt() throws {
    let store = try makeStore(
      middleware: [middleware("a", wants: [Append.self]), middleware("b", wants: [])])
    let state = try store.dispatch(Increment(by: 3)).get()
    #expect(state.counter == 3)
    #expect(store.state.counter == 3)
    #expect(record.all.isEmpty)
  }

  @Test("each middleware is asked once per action type, not once per action")
  func askedOncePerType() throws {
    let store = try makeStore(
      mutators: [counterMutator, itemsMutator],
      middleware: [middleware("a"), middleware("b", wants: [Append.self])])
    for value in 0..<5 {
      store.dispatch(Increment())
      store.dispatch(Append(value: value))
    }
    #expect(store.state.counter == 5)
    #expect(record.questions("a", about: Increment.self) == 1)
    #expect(record.questions("b", about: Increment.self) == 1)
    #expect(record.questions("b", about: Append.self) == 1)
  }

  @Test("an action passed on in place of another reaches the later middleware that want its type")
  func transformedActionIsPlannedAgain() throws {
    var mapper = middleware("map", wants: [Increment.self])
    mapper.replacement = { action in (action as? Increment).map { Append(value: $0.by) } }
    let store = try makeStore(
      mutators: [counterMutator, itemsMutator],
      middleware: [
        mapper, middleware("increments", wants: [Increment.self]),
        middleware("appends", wants: [Append.self]),
      ])
    let state = try store.dispatch(Increment(by: 4)).get()
    #expect(state.items == [4])
    #expect(state.counter == 0)
    #expect(record.all == ["map:Increment", "appends:Append"])
  }

  @Test("adding or removing a middleware plans every type again")
  func chainChangesReplan() throws {
    let store = try makeStore(middleware: [middleware("a", wants: [Append.self])])
    store.dispatch(Increment())
    #expect(record.all.isEmpty)
    try store.use(middleware("late"))
    store.dispatch(Increment())
    #expect(record.all == ["late:Increment"])
    record.clear()
    #expect(store.removeMiddleware(named: "late"))
    store.dispatch(Increment())
    #expect(record.all.isEmpty)
    #expect(store.state.counter == 3)
  }

  @Test(
    "a mutator registered or unregistered after a type was planned is used, or not, from the next action on, without asking the middleware again",
    arguments: [false, true])
  func registrationAfterPlanning(withMiddleware: Bool) throws {
    let store = try makeStore(
      mutators: [], middleware: withMiddleware ? [middleware("a", wants: [Increment.self])] : [])
    store.dispatch(Increment(by: 2))
    #expect(store.state.counter == 0, "no mutator handles Increment yet")
    try store.register(counterMutator)
    #expect(store.dispatch(Increment(by: 3)).success?.counter == 3)
    #expect(store.unregister(counterMutator.key))
    #expect(store.dispatch(Increment(by: 4)).success?.counter == 3)
    try store.register(counterMutator)
    #expect(store.dispatch(Increment(by: 5)).success?.counter == 8)
    if withMiddleware {
      #expect(record.all.count == 4)
      #expect(record.questions("a", about: Increment.self) == 1)
    }
  }

  @Test("queued follow-ups and dispatch([...]) are planned by their own types")
  func erasedDispatchesArePlanned() throws {
    let followUp = AnyMiddleware<TestState>(name: "follow-up") { action, context, next in
      try next(action)
      if action is Append { context.dispatch(Increment(by: 10)) }
    }
    let store = try makeStore(
      mutators: [counterMutator, itemsMutator],
      middleware: [middleware("all"), middleware("appends", wants: [Append.self]), followUp])
    let state = try store.dispatch([Append(value: 1), Increment(by: 1)]).get()
    #expect(state.items == [1])
    #expect(state.counter == 11)
    #expect(
      record.all == [
        "all:Append", "appends:Append", "all:Increment", "all:Increment",
      ])
  }

  @Test("a kept next called later with another type of action is planned for that type")
  func keptNextPlansTheNewType() throws {
    let kept = Box<Next<TestState>?>(nil)
    let keeper = AnyMiddleware<TestState>(name: "keeper") { action, _, next in
      if action is Increment { kept.value = next } else { try next(action) }
    }
    let store = try makeStore(
      mutators: [counterMutator, itemsMutator],
      middleware: [
        keeper, middleware("increments", wants: [Increment.self]),
        middleware("appends", wants: [Append.self]),
      ])
    store.dispatch(Increment())
    #expect(record.all.isEmpty)
    let next = try #require(kept.value)
    try next(Append(value: 5))
    #expect(store.state.items == [5])
    #expect(store.state.counter == 0)
    #expect(record.all == ["appends:Append"])
  }

  @Test(
    "a subclass instance dispatched as its base class is reduced by the base class's handlers, with middleware as without",
    arguments: [false, true])
  func subclassInstanceRoutedByDispatchedType(withMiddleware: Bool) throws {
    let bonus = Mutator(\TestState.counter) { (counter: inout Int, action: Bonus) in
      counter += action.amount
    }
    let store = try makeStore(
      mutators: [bonus], middleware: withMiddleware ? [middleware("a"), middleware("b")] : [])
    let action: Bonus = BigBonus(amount: 3)
    #expect(store.dispatch(action).success?.counter == 3)
    #expect(store.state.counter == 3)
  }

  @Test(
    "an action's dispatchedType is the type it is held as: its own, or the superclass it was boxed as"
  )
  func dispatchedType() {
    let plain: any Action = Increment(by: 1)
    #expect(ObjectIdentifier(plain.dispatchedType) == ObjectIdentifier(Increment.self))
    let asBase: any Action = BigBonus(amount: 1) as Bonus
    #expect(ObjectIdentifier(asBase.dispatchedType) == ObjectIdentifier(Bonus.self))
    #expect(
      ObjectIdentifier(type(of: asBase)) == ObjectIdentifier(BigBonus.self), "unlike `type(of:)`")
    let asItself: any Action = BigBonus(amount: 1)
    #expect(ObjectIdentifier(asItself.dispatchedType) == ObjectIdentifier(BigBonus.self))
  }
}
