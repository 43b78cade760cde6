/// The mutators of a store, and the route of each action type through their handlers.
///
/// Immutable: registering or unregistering makes a new registry, so an action reduces with the
/// registry it started with.
@usableFromInline
final class Registry<State: Sendable>: Sendable {
  let entries: [RegisteredMutator<State>]
  /// The action types some handler names, in increasing order, and the route of each.
  ///
  /// A sorted array searched by halves rather than a dictionary: finding a route is a few
  /// comparisons of identities, where a dictionary hashes the identity first.
  @usableFromInline let routedTypes: [ObjectIdentifier]
  @usableFromInline let routes: [Route<State>]
  /// The route of an action type no handler names: the handlers of every action.
  @usableFromInline let everyAction: Route<State>

  init(_ entries: [RegisteredMutator<State>] = []) {
    self.entries = entries
    var typed: [ObjectIdentifier: [RouteStep<State>]] = [:]
    var everyAction: [RouteStep<State>] = []
    var followers: [RouteStep<State>] = []
    for entry in entries {
      let mutator = entry.mutator
      let range = mutator.access.byteRange
      for handler in mutator.handlers {
        let step = RouteStep(key: mutator.key, handler: handler, range: range)
        if let type = handler.actionType {
          typed[type, default: []].append(step)
        } else {
          everyAction.append(step)
        }
      }
      if let follower = mutator.follower {
        followers.append(RouteStep(key: mutator.key, handler: follower, range: range))
      }
    }
    // A mutator's handler of the type runs, then its handler of every action; mutators in
    // registration order.
    var routes: [ObjectIdentifier: Route<State>] = [:]
    for (type, _) in typed {
      let steps = entries.flatMap { entry in
        let handlers = entry.mutator.handlers
        let typed = handlers.filter { $0.actionType == type }
        let every = handlers.filter { $0.actionType == nil }
        return (typed + every).map {
          RouteStep(key: entry.mutator.key, handler: $0, range: entry.mutator.access.byteRange)
        }
      }
      routes[type] = Route(steps)
    }
    routes[ObjectIdentifier(ReplaceState<State>.self)] = Route(followers, replacesState: true)
    let sorted = routes.sorted { $0.key < $1.key }
    routedTypes = sorted.map(\.key)
    self.routes = sorted.map(\.value)
    self.everyAction = Route(everyAction)
  }

  var keys: [MutatorKey] { entries.map(\.mutator.key) }

  /// Checks a mutator against itself and the registered ones.
  ///
  /// - Throws: The mutator's own problem, then `.keyRequired`, `.duplicateKey`,
  ///   `.overlappingSubstate`.
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

  /// The top-level stored properties of `state` that no mutator covers.
  func uncoveredProperties(of state: State) -> [String] {
    let covered = Set(entries.flatMap(\.topLevelProperties))
    return Mirror(reflecting: state).children.compactMap { child in
      guard let label = child.label, !covered.contains(label) else { return nil }
      return PropertyPath.isZeroSized(child.value) ? nil : label
    }
  }
}

struct RegisteredMutator<State: Sendable>: Sendable {
  let mutator: Mutator<State>
  /// The top-level properties the mutator covers, for `validateCoverage`.
  let topLevelProperties: [String]
}

extension Array {
  /// The index of the first element whose key is not below `key`, in an array sorted by key
  /// (`count` when there is none), found by halving: where an element of that key is, or goes.
  ///
  /// - Parameters:
  ///   - key: The key to look for.
  ///   - keyOf: Each element's key.
  /// - Returns: The index.
  @inlinable
  package func lowerBound<Key: Comparable>(of key: Key, by keyOf: (Element) -> Key) -> Int {
    var low = 0
    var high = count
    while low < high {
      let middle = (low + high) / 2
      if keyOf(self[middle]) < key { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
