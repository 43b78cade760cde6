/// A way to read and write one substate of a state: a `get` and `set` pair.
///
/// Mutators are usually built from a key path; a lens serves where the substate is not a
/// stored property (a computed view, a dictionary entry, an enum case payload).
///
/// ```swift
/// let firstTodo = Lens<AppState, Todo?>(
///   get: { $0.todos.first },
///   set: { state, todo in
///     if let todo { state.todos[0] = todo }
///   })
/// ```
///
/// > Note: A lens built from closures copies the substate out and back for every action it
/// > handles. A lens built from a key path (``init(_:)``) is reduced in place.
public struct Lens<State, Substate>: Sendable {
  /// Reads the substate from a state.
  public let get: @Sendable (State) -> Substate
  /// Writes a substate into a state.
  public let set: @Sendable (inout State, Substate) -> Void
  @usableFromInline let keyPath: (WritableKeyPath<State, Substate> & Sendable)?

  /// Creates a lens from a getter and a setter.
  ///
  /// - Parameters:
  ///   - get: Reads the substate from a state.
  ///   - set: Writes a substate into a state.
  @inlinable
  public init(
    get: @escaping @Sendable (State) -> Substate,
    set: @escaping @Sendable (inout State, Substate) -> Void
  ) {
    self.get = get
    self.set = set
    self.keyPath = nil
  }

  /// Creates a lens that reads and writes through a key path.
  ///
  /// - Parameter keyPath: The path of the substate.
  @inlinable
  public init(_ keyPath: WritableKeyPath<State, Substate> & Sendable) {
    self.get = { $0[keyPath: keyPath] }
    self.set = { $0[keyPath: keyPath] = $1 }
    self.keyPath = keyPath
  }
}
