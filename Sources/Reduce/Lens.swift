/// A way to read and write one substate of a state: a `get` and `set` pair.
///
/// Mutators are usually built from a key path; a lens serves where the substate is not a
/// stored property (a computed view, a dictionary entry, an enum case payload).
///
/// ```swift
/// let firstTodo = Lens<AppState, Todo?>(
///   covering: [\AppState.todos],
///   get: { $0.todos.first },
///   set: { state, todo in
///     if let todo { state.todos[0] = todo }
///   })
/// ```
///
/// A lens built from closures may declare the key paths of the state it reads and writes
/// (`covering:`): the store then checks a mutator of it for overlap with other mutators, and
/// ``Store/validateCoverage()`` counts those paths as covered. Copies of one lens reach the
/// same substate, so two mutators of one lens value are refused even without `covering:`.
///
/// > Note: A lens built from closures copies the substate out and back for every action it
/// > handles. A lens built from a key path (``init(_:)``) is reduced in place.
public struct Lens<State, Substate>: Sendable {
  /// Reads the substate from a state.
  public let get: @Sendable (State) -> Substate
  /// Writes a substate into a state.
  public let set: @Sendable (inout State, Substate) -> Void
  @usableFromInline let keyPath: (WritableKeyPath<State, Substate> & Sendable)?
  /// The key paths a lens built from closures declares it reads and writes.
  let covered: [PartialKeyPath<State> & Sendable]
  /// Shared by the copies of a lens built from closures: two mutators of it reduce one substate.
  let identity: LensIdentity?

  /// Creates a lens from a getter and a setter.
  ///
  /// - Parameters:
  ///   - paths: The key paths of the state that `get` reads and `set` writes, so that the store
  ///     can check the lens's mutator against others (overlap) and count them as covered
  ///     (``Store/validateCoverage()``). Empty: unknown, and only this lens's own copies are
  ///     recognised as the same substate.
  ///   - get: Reads the substate from a state.
  ///   - set: Writes a substate into a state.
  public init(
    covering paths: [PartialKeyPath<State> & Sendable] = [],
    get: @escaping @Sendable (State) -> Substate,
    set: @escaping @Sendable (inout State, Substate) -> Void
  ) {
    self.get = get
    self.set = set
    self.keyPath = nil
    self.covered = paths
    self.identity = LensIdentity()
  }

  /// Creates a lens from a getter and a setter that returns the new state, as RxReduce's
  /// `Lens` does.
  ///
  /// - Parameters:
  ///   - paths: The key paths of the state that `get` reads and `set` writes, for the store's
  ///     overlap and coverage checks; empty: unknown.
  ///   - get: Reads the substate from a state.
  ///   - set: Returns a state with the substate written into it.
  public init(
    covering paths: [PartialKeyPath<State> & Sendable] = [],
    get: @escaping @Sendable (State) -> Substate,
    set: @escaping @Sendable (State, Substate) -> State
  ) {
    self.init(covering: paths, get: get, set: { state, substate in state = set(state, substate) })
  }

  /// Creates a lens that reads and writes through a key path.
  ///
  /// - Parameter keyPath: The path of the substate.
  public init(_ keyPath: WritableKeyPath<State, Substate> & Sendable) {
    self.get = { $0[keyPath: keyPath] }
    self.set = { $0[keyPath: keyPath] = $1 }
    self.keyPath = keyPath
    self.covered = [keyPath]
    self.identity = nil
  }
}

/// The identity of a lens built from closures, shared by its copies.
final class LensIdentity: Sendable {
  init() {}
}
