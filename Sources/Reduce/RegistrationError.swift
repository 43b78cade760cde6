/// Why a store refused a mutator or a middleware.
///
/// A store that throws one of these is exactly as it was before the call.
public enum RegistrationError: Error, Equatable, Sendable {
  /// Another mutator of the store already has this key.
  case duplicateKey(MutatorKey)
  /// The mutator's substate overlaps the substate of the mutator with key `existing`:
  /// the same key path, one inside the other (`\.doc` and `\.doc.title`), one lens, or paths
  /// a lens declares (`Lens(covering:get:set:)`), whatever the mutators' forms.
  case overlappingSubstate(key: MutatorKey, existing: MutatorKey)
  /// The mutator has two handlers for one action type (or two handlers for every action).
  case duplicateHandler(key: MutatorKey, action: String)
  /// A handler's substate type is not the type of the mutator's key path or lens.
  case substateMismatch(key: MutatorKey, expected: String, found: String)
  /// A handler is typed on `Batch` or `ReplaceState`, which the store applies itself.
  case builtInAction(key: MutatorKey, action: String)
  /// The key path has no stable description to serve as the default key (it is computed,
  /// goes through a class or an optional, or has zero-sized neighbours); pass `key:`.
  case keyRequired(path: String)
  /// A middleware with this name is already in the chain.
  case duplicateMiddleware(String)
  /// The middleware refused to join the store (``Middleware/willAttach(to:)`` threw).
  case middlewareRefused(name: String, reason: String)
  /// These top-level stored properties of the state have no mutator
  /// (from ``Store/validateCoverage()``).
  case missingMutators([String])
}

extension RegistrationError: CustomStringConvertible {
  /// A sentence that says what is wrong and how to fix it.
  public var description: String {
    switch self {
    case .duplicateKey(let key):
      "A mutator with key '\(key)' is already registered; give this one another key, or unregister the first."
    case .overlappingSubstate(let key, let existing):
      "Mutator '\(key)' reduces storage that mutator '\(existing)' already reduces; one substate has one mutator: merge their handlers into one mutator with .on(_:), or unregister '\(existing)' first."
    case .duplicateHandler(let key, let action):
      "Mutator '\(key)' has two handlers for \(action); keep one handler per action type."
    case .substateMismatch(let key, let expected, let found):
      "A handler of mutator '\(key)' takes \(found), but the mutator's substate is \(expected); annotate the closure's first parameter as inout \(expected)."
    case .builtInAction(let key, let action):
      "Mutator '\(key)' handles \(action), which the store applies itself; remove that handler."
    case .keyRequired(let path):
      "The key path \(path) is not a plain stored-property path, so its description cannot serve as a key; pass key: explicitly."
    case .duplicateMiddleware(let name):
      "A middleware named '\(name)' is already in the chain; middleware names are unique in a store."
    case .middlewareRefused(let name, let reason):
      "Middleware '\(name)' refused to join the store: \(reason)"
    case .missingMutators(let names):
      "No mutator reduces these properties of the state: \(names.joined(separator: ", ")); register a mutator for each."
    }
  }
}
