public import Reduce

/// The handler of each action type a ``ThunkMiddleware`` has handled, by type.
///
/// A type's handler is found once, through a cast of its first action to ``ThunkPluginAction``,
/// and kept: the cast looks the conformance up, which cost about 1,400 instructions per
/// dispatch, and the table about 430.
@usableFromInline
final class ThunkHandlers<State: Sendable>: Sendable {
  @usableFromInline let table = Locked<[ObjectIdentifier: ThunkHandler<State>]>([:])

  @usableFromInline
  init() {}

  /// The handler of an action's type; nil when the action is neither a thunk nor
  /// ``CancelThunks``.
  @inlinable
  func handler(for action: any Action) -> ThunkHandler<State>? {
    let key = ObjectIdentifier(type(of: action))
    if let handler = table.withLock({ $0[key] }) { return handler }
    return learnHandler(for: action, key: key)
  }

  /// Finds the handler of an action's type and keeps it.
  @usableFromInline
  func learnHandler(for action: any Action, key: ObjectIdentifier) -> ThunkHandler<State>? {
    guard let own = action as? any ThunkPluginAction else { return nil }
    let handler = own.handler(in: State.self)
    table.withLock { $0[key] = handler }
    return handler
  }
}
