/// One step of a route: the handler of one mutator for one action type.
struct RouteStep<State>: Sendable {
  let key: MutatorKey
  let handler: HandlerBox<State>
}

/// The handlers that run for one action type, in registration order.
struct Route<State>: Sendable {
  let steps: [RouteStep<State>]
  /// Whether any step may throw: the store then keeps the old state to roll back to.
  let mayThrow: Bool

  init(_ steps: [RouteStep<State>]) {
    self.steps = steps
    self.mayThrow = steps.contains { $0.handler.mayThrow }
  }
}

/// A mutator accepted by a store, with what registration learnt about its path.
struct RegisteredMutator<State: Sendable>: Sendable {
  let mutator: Mutator<State>
  /// The path's property names from the root (`["doc", "title"]`), checked against the state's
  /// `Mirror`, or nil where the path is not a plain stored-property path.
  let propertyPath: [String]?
}

/// An immutable snapshot of a store's mutators and their routing table, swapped whole on every
/// registration so that a dispatch sees either the old or the new set, never half.
///
/// `@unchecked Sendable`: immutable after `init`, and every stored value is `Sendable`.
final class Registry<State: Sendable>: @unchecked Sendable {
  let entries: [RegisteredMutator<State>]
  private let routes: [ObjectIdentifier: Route<State>]
  /// The route of an action type no mutator names: the handlers of every action.
  private let anyActionRoute: Route<State>

  init(_ entries: [RegisteredMutator<State>] = []) {
    self.entries = entries
    var routes: [ObjectIdentifier: Route<State>] = [:]
    let actionTypes = Set(entries.flatMap { $0.mutator.handlers.compactMap(\.actionType) })
    for actionType in actionTypes {
      var steps: [RouteStep<State>] = []
      for entry in entries {
        let mutator = entry.mutator
        if let typed = mutator.handlers.first(where: { $0.actionType == actionType }) {
          steps.append(RouteStep(key: mutator.key, handler: typed))
        }
        if let any = mutator.handlers.first(where: { $0.actionType == nil }) {
          steps.append(RouteStep(key: mutator.key, handler: any))
        }
      }
      routes[actionType] = Route(steps)
    }
    self.routes = routes
    self.anyActionRoute = Route(
      entries.compactMap { entry in
        entry.mutator.handlers.first { $0.actionType == nil }.map {
          RouteStep(key: entry.mutator.key, handler: $0)
        }
      })
  }

  var keys: [MutatorKey] { entries.map(\.mutator.key) }

  /// The handlers that run for actions of the type `actionType`.
  ///
  /// - Complexity: O(1): one dictionary look-up, whatever the number of mutators.
  @inline(__always)
  func route(for actionType: ObjectIdentifier) -> Route<State> {
    routes[actionType] ?? anyActionRoute
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
    let path = access.pathDescription.flatMap {
      PropertyPath.resolve($0, in: state, substateType: access.substateType)
    }
    if mutator.keyIsDefault, let description = access.pathDescription {
      let stored = access.byteRange.map { !$0.isEmpty } ?? false
      let collides = entries.contains {
        $0.mutator.access.pathDescription == description
          && $0.mutator.access.keyPath != access.keyPath
      }
      if !stored || path == nil || collides { throw .keyRequired(path: description) }
    }
    if entries.contains(where: { $0.mutator.key == mutator.key }) {
      throw .duplicateKey(mutator.key)
    }
    if let other = entries.first(where: { $0.mutator.access.overlaps(access) }) {
      throw .overlappingSubstate(key: mutator.key, existing: other.mutator.key)
    }
    return RegisteredMutator(mutator: mutator, propertyPath: path)
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
  /// The property names of a key path description such as `\AppState.doc.title`, when each
  /// names a stored property of the value (by `Mirror`) and the last one has `substateType`.
  static func resolve<State>(_ description: String, in state: State, substateType: Any.Type)
    -> [String]?
  {
    let prefix = "\\\(State.self)."
    guard description.hasPrefix(prefix) else { return nil }
    let names = description.dropFirst(prefix.count).split(
      separator: ".", omittingEmptySubsequences: false
    ).map(String.init)
    var value: Any = state
    for name in names {
      guard let child = Mirror(reflecting: value).children.first(where: { $0.label == name }) else {
        return nil
      }
      value = child.value
    }
    return type(of: value) == substateType ? names : nil
  }

  /// Whether a value of this dynamic type occupies no storage.
  static func isZeroSized(_ value: Any) -> Bool {
    func size<T>(of value: T) -> Int { MemoryLayout<T>.size }
    return size(of: value) == 0
  }
}
