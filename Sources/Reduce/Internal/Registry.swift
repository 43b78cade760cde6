/// One step of a route: the handler of one mutator for one action type.
@usableFromInline
struct RouteStep<State>: Sendable {
  @usableFromInline let key: MutatorKey
  @usableFromInline let handler: HandlerBox<State>
}

/// The handlers that run for one action type, in registration order.
@usableFromInline
struct Route<State>: Sendable {
  @usableFromInline let steps: [RouteStep<State>]
  /// Whether any step may throw: the store then keeps the old state to roll back to.
  @usableFromInline let mayThrow: Bool

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
@usableFromInline
final class Registry<State: Sendable>: @unchecked Sendable {
  let entries: [RegisteredMutator<State>]
  /// An open-addressing table from action type (`UInt(bitPattern:)` of its identifier; 0 marks
  /// an empty slot) to route, at most half full, probed linearly.
  @usableFromInline let tableKeys: [UInt]
  @usableFromInline let tableRoutes: [Route<State>]
  @usableFromInline let tableShift: UInt
  /// The route of an action type no mutator names: the handlers of every action.
  @usableFromInline let anyActionRoute: Route<State>

  init(_ entries: [RegisteredMutator<State>] = []) {
    self.entries = entries
    let anyActionRoute = Route(
      entries.compactMap { entry in
        entry.mutator.handlers.first { $0.actionType == nil }.map {
          RouteStep(key: entry.mutator.key, handler: $0)
        }
      })
    self.anyActionRoute = anyActionRoute
    var actionTypes: [ObjectIdentifier] = []
    for entry in entries {
      for case let actionType? in entry.mutator.handlers.map(\.actionType)
      where !actionTypes.contains(actionType) {
        actionTypes.append(actionType)
      }
    }
    var capacity = 2
    var bits: UInt = 1
    while capacity < actionTypes.count * 2 {
      capacity *= 2
      bits += 1
    }
    var keys = [UInt](repeating: 0, count: capacity)
    var routes = [Route<State>](repeating: anyActionRoute, count: capacity)
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
      let key = UInt(bitPattern: actionType)
      var index = Self.slot(of: key, shift: UInt(UInt.bitWidth) - bits)
      while keys[index] != 0 { index = (index + 1) & (capacity - 1) }
      keys[index] = key
      routes[index] = Route(steps)
    }
    self.tableKeys = keys
    self.tableRoutes = routes
    self.tableShift = UInt(UInt.bitWidth) - bits
  }

  /// The first slot to probe for a key: Fibonacci hashing of the identifier's bits.
  @inlinable
  static func slot(of key: UInt, shift: UInt) -> Int {
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
  }

  var keys: [MutatorKey] { entries.map(\.mutator.key) }

  /// The handlers that run for actions of the type `actionType`.
  ///
  /// - Complexity: O(1): one dictionary look-up, whatever the number of mutators.
  @inlinable
  func route(for actionType: ObjectIdentifier) -> Route<State> {
    let key = UInt(bitPattern: actionType)
    let mask = tableKeys.count - 1
    var index = Self.slot(of: key, shift: tableShift)
    while true {
      let candidate = tableKeys[index]
      if candidate == key { return tableRoutes[index] }
      if candidate == 0 { return anyActionRoute }
      index = (index + 1) & mask
    }
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
