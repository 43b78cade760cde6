import Reduce

/// Runs the actions of one thunk type (or ``CancelThunks``) in a store whose state is `State`.
///
/// A class, so that a table of handlers holds each as one reference: a closure kept in a table
/// is converted back each time it is read, at the cost of an allocation.
final class ThunkHandler<State: Sendable>: Sendable {
  /// Runs an action, of the handler's type, in the middleware's environment.
  typealias Body =
    @Sendable (any Action, ThunkEnvironment<State>) throws -> Void

  let body: Body

  init(_ body: @escaping Body) {
    self.body = body
  }
}

/// The handler of each action type a ``ThunkMiddleware`` has handled, by type.
///
/// A type's handler is found once, through a cast of its first action to ``ThunkPluginAction``,
/// and kept: the cast looks the conformance up, which cost about 1,400 instructions per
/// dispatch, and the table about 430.
final class ThunkHandlers<State: Sendable>: Sendable {
  let table = Locked<[ObjectIdentifier: ThunkHandler<State>]>([:])

  init() {}

  /// The handler of an action's type; nil when the action is neither a thunk nor
  /// ``CancelThunks``.
  func handler(for action: any Action) -> ThunkHandler<State>? {
    let key = ObjectIdentifier(type(of: action))
    if let handler = table.withLock({ $0[key] }) { return handler }
    return learnHandler(for: action, key: key)
  }

  /// Finds the handler of an action's type and keeps it.
  func learnHandler(for action: any Action, key: ObjectIdentifier) -> ThunkHandler<State>? {
    guard let own = action as? any ThunkPluginAction else { return nil }
    let handler = own.handler(in: State.self)
    table.withLock { $0[key] = handler }
    return handler
  }
}
