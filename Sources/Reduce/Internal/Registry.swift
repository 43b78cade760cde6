/// One step of a route: the handler of one mutator for one action type.
@usableFromInline
struct RouteStep<State>: Sendable {
  @usableFromInline let key: MutatorKey
  @usableFromInline let handler: Handler<State>
  /// The bytes of `State` the mutator reduces, where known.
  @usableFromInline let range: Range<Int>?
}

/// The handlers that run for one action type, in registration order.
///
/// A class, so that handing a route around costs one reference count, not one per array.
@usableFromInline
final class Route<State>: Sendable {
  @usableFromInline let steps: [RouteStep<State>]
  /// Whether any step may throw: the store then keeps the old state to roll back to.
  @usableFromInline let mayThrow: Bool
  /// The bytes of `State` the steps may change, or nil when some step's are unknown.
  @usableFromInline let touched: [Range<Int>]?
  /// Whether this is the route of `ReplaceState<State>`, which no handler reduces: the store
  /// replaces the whole state itself, then runs the steps, the mutators' followers
  /// (`Mutator.onReplaceState`).
  @usableFromInline let replacesState: Bool
  /// The keys of the steps' mutators, in order: what a `PendingChange` names.
  @usableFromInline let keys: [MutatorKey]
  /// Whether a step's handler has a check to run before any handler changes the state.
  @usableFromInline let hasChecks: Bool

  /// Creates a route.
  ///
  /// - Parameters:
  ///   - steps: The handlers, in registration order.
  ///   - replacesState: Whether it is the route of `ReplaceState<State>` (with no steps).
  init(_ steps: [RouteStep<State>], replacesState: Bool = false) {
    self.steps = steps
    self.mayThrow = steps.contains { $0.handler.mayThrow }
    let ranges = steps.compactMap(\.range)
    self.touched = ranges.count == steps.count && !replacesState ? ranges : nil
    self.replacesState = replacesState
    self.keys = steps.map(\.key)
    self.hasChecks = steps.contains { $0.handler.check != nil }
  }

  /// Whether an action of this route changes nothing: it has no handler to run.
  @inlinable var isEmpty: Bool { steps.isEmpty && !replacesState }
}

/// A mutator accepted by a store, with what registration learnt about its path.
struct RegisteredMutator<State: Sendable>: Sendable {
  let mutator: Mutator<State>
  /// The top-level stored properties the mutator's key path, or the paths its lens declares,
  /// start with (by the state's `Mirror`), for ``Store/validateCoverage()``.
  let topLevelProperties: [String]
}

/// An immutable snapshot of a store's mutators and their routing table, swapped whole on every
/// registration so that a dispatch sees either the old or the new set, never half.
///
/// `@unchecked Sendable`: immutable after `init`, and every stored value is `Sendable`.
@usableFromInline
final class Registry<State: Sendable>: @unchecked Sendable {
  let entries: [RegisteredMutator<State>]
  /// The route of each action type some mutator names, and of `ReplaceState<State>`; for every
  /// other type, the handlers of every action.
  @usableFromInline let routes: TypeTable<Route<State>>

  init(_ entries: [RegisteredMutator<State>] = []) {
    self.entries = entries
    let anyActionRoute = Route(
      entries.compactMap { entry in
        entry.mutator.handlers.first { $0.actionType == nil }.map {
          RouteStep(key: entry.mutator.key, handler: $0, range: entry.mutator.access.byteRange)
        }
      })
    var actionTypes: [ObjectIdentifier] = []
    for entry in entries {
      for case let actionType? in entry.mutator.handlers.map(\.actionType)
      where !actionTypes.contains(actionType) {
        actionTypes.append(actionType)
      }
    }
    var routes: [(type: ObjectIdentifier, value: Route<State>)] = []
    for actionType in actionTypes {
      var steps: [RouteStep<State>] = []
      for entry in entries {
        let mutator = entry.mutator
        if let typed = mutator.handlers.first(where: { $0.actionType == actionType }) {
          steps.append(RouteStep(key: mutator.key, handler: typed, range: mutator.access.byteRange))
        }
        if let any = mutator.handlers.first(where: { $0.actionType == nil }) {
          steps.append(RouteStep(key: mutator.key, handler: any, range: mutator.access.byteRange))
        }
      }
      routes.append((actionType, Route(steps)))
    }
    let followers = entries.compactMap { entry in
      entry.mutator.follower.map {
        RouteStep(key: entry.mutator.key, handler: $0, range: entry.mutator.access.byteRange)
      }
    }
    routes.append(
      (ObjectIdentifier(ReplaceState<State>.self), Route(followers, replacesState: true)))
    self.routes = TypeTable(routes, missing: anyActionRoute)
  }

  var keys: [MutatorKey] { entries.map(\.mutator.key) }

  /// The handlers that run for actions of the type `actionType`.
  ///
  /// - Complexity: O(1): one table look-up, whatever the number of mutators.
  @inlinable
  func route(for actionType: ObjectIdentifier) -> Route<State> {
    routes[actionType]
  }

  /// Checks a mutator against this registry and the current state.
  ///
  /// - Throws: The first problem, in the documented order: the mutator's own problems
  ///   (handlers, then key), then a duplicate key, then an overlapping substate.
  func validate(_ mutator: Mutator<State>, state: State) throws(RegistrationError)
    -> RegisteredMutator<State>
  {
    if let problem = mutator.handlerProblem { throw problem }
    let access = mutator.access
    let path = access.pathDescription.map {
      PropertyPath.resolve($0, in: state, isSubstate: access.isSubstate)
    }
    if mutator.keyIsDefault, let description = access.pathDescription {
      let stored = access.byteRange.map { !$0.isEmpty } ?? false
      let collides = entries.contains {
        $0.mutator.access.pathDescription == description
          && $0.mutator.access.keyPath != access.keyPath
      }
      if !stored || path?.isExact != true || collides { throw .keyRequired(path: description) }
    }
    if entries.contains(where: { $0.mutator.key == mutator.key }) {
      throw .duplicateKey(mutator.key)
    }
    if let other = entries.first(where: { $0.mutator.access.overlaps(access) }) {
      throw .overlappingSubstate(key: mutator.key, existing: other.mutator.key)
    }
    var covered = path?.topLevelProperty.map { [$0] } ?? []
    if access.keyPath == nil {
      for footprint in access.footprint {
        let resolved = PropertyPath.resolve(
          String(describing: footprint.keyPath), in: state, isSubstate: footprint.isValue)
        if let name = resolved.topLevelProperty { covered.append(name) }
      }
    }
    return RegisteredMutator(mutator: mutator, topLevelProperties: covered)
  }

  func adding(_ entry: RegisteredMutator<State>) -> Registry {
    Registry(entries + [entry])
  }

  func removing(_ key: MutatorKey) -> Registry? {
    guard entries.contains(where: { $0.mutator.key == key }) else { return nil }
    return Registry(entries.filter { $0.mutator.key != key })
  }
}

/// Reads a key path's description back against the state's `Mirror`.
enum PropertyPath {
  /// What a key path's description says about it.
  struct Resolution {
    /// The top-level stored property the path starts with, when the description names one.
    var topLevelProperty: String?
    /// Whether the description names every property of the path, the last one holding the
    /// substate: only then can it serve as the mutator's key.
    var isExact: Bool
  }

  /// Reads a description such as `\AppState.doc.title` or `\AppState.draft!.title`.
  ///
  /// The runtime describes a property that shares its offset with a zero-sized neighbour by
  /// the neighbour's name (`\S.counter` as `\S.empty`); when the named top-level property is
  /// zero-sized and the substate is not, the property is the next one that is not zero-sized,
  /// and the description is not exact.
  static func resolve<State>(
    _ description: String, in state: State, isSubstate: (Any) -> Bool
  ) -> Resolution {
    let prefix = "\\\(State.self)."
    guard description.hasPrefix(prefix) else {
      return Resolution(topLevelProperty: nil, isExact: false)
    }
    let names = description.dropFirst(prefix.count).split(
      separator: ".", omittingEmptySubsequences: false
    ).map(String.init)
    guard let firstName = names.first.map(stripUnwrapping) else {
      return Resolution(topLevelProperty: nil, isExact: false)
    }
    let children = Array(Mirror(reflecting: state).children)
    guard var index = children.firstIndex(where: { $0.label == firstName }) else {
      return Resolution(topLevelProperty: nil, isExact: false)
    }
    if names.count == 1, isZeroSized(children[index].value), !isSubstate(children[index].value) {
      // A zero-sized neighbour lent its name: find the property that really starts here.
      index += 1
      while index < children.count, isZeroSized(children[index].value) { index += 1 }
      guard index < children.count, isSubstate(children[index].value) else {
        return Resolution(topLevelProperty: nil, isExact: false)
      }
      return Resolution(topLevelProperty: children[index].label, isExact: false)
    }
    var value: Any? = children[index].value
    for (position, name) in names.enumerated() {
      if position > 0 {
        value = value.flatMap { current in
          Mirror(reflecting: current).children.first { $0.label == stripUnwrapping(name) }?.value
        }
      }
      if name.hasSuffix("!") || name.hasSuffix("?") {
        value = value.flatMap { Mirror(reflecting: $0).children.first?.value }
      }
    }
    let plain = names.allSatisfy { !$0.hasSuffix("!") && !$0.hasSuffix("?") }
    let exact = plain && value.map(isSubstate) == true
    return Resolution(topLevelProperty: firstName, isExact: exact)
  }

  private static func stripUnwrapping(_ name: String) -> String {
    var name = name
    while name.hasSuffix("!") || name.hasSuffix("?") { name.removeLast() }
    return name
  }

  /// Whether a value of this dynamic type occupies no storage.
  static func isZeroSized(_ value: Any) -> Bool {
    func size<T>(of value: T) -> Int { MemoryLayout<T>.size }
    return size(of: value) == 0
  }
}
