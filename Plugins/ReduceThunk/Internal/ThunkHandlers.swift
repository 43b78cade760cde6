import Reduce

/// Runs the actions of one thunk type (or ``CancelThunks``) in a store whose state is `State`.
///
/// A class, so that the table of handlers holds each as one reference: a closure kept in a table
/// is converted back each time it is read, at the cost of an allocation.
final class ThunkHandler<State: Sendable>: Sendable {
  /// Runs an action of the handler's type, given the store's context and the middleware's
  /// environment.
  typealias Body = @Sendable (any Action, MiddlewareContext<State>, ThunkEnvironment) throws -> Void

  let body: Body

  init(_ body: @escaping Body) {
    self.body = body
  }
}

/// What a ``ThunkMiddleware`` does with each action type it has met, by type.
///
/// Learnt from the first action of a type, through a cast to ``ThunkPluginAction``, and kept, for
/// the types passed on as well as the handled ones: the cast looks a conformance up, which costs
/// more than a thousand instructions. Not generic over the state, so that the lookup on every
/// action runs compiled for its types instead of asking the runtime for generic metadata.
final class ThunkHandlers: Sendable {
  /// What to do with the actions of one type.
  private enum Route {
    /// Neither a thunk nor ``CancelThunks``: pass it on untouched.
    case passOn
    /// Run it with a handler: a `ThunkHandler` of the store's state.
    case handle(AnyObject)
  }

  private let table = Locked<[ObjectIdentifier: Route]>([:])

  init() {}

  /// The handler of an action's type in a store of `State`; nil when the action is neither a
  /// thunk nor ``CancelThunks``.
  func handler<State: Sendable>(for action: any Action, in store: State.Type)
    -> ThunkHandler<State>?
  {
    let key = ObjectIdentifier(action.dispatchedType)
    switch table.withLock({ $0[key] }) {
    case .passOn: return nil
    // The table belongs to one middleware, so its handlers are all of that middleware's `State`.
    case .handle(let handler): return handler as? ThunkHandler<State>
    case nil: return learnHandler(for: action, key: key, in: store)
    }
  }

  /// Finds the handler of an action's type, or that it has none, and keeps the answer.
  private func learnHandler<State: Sendable>(
    for action: any Action, key: ObjectIdentifier, in store: State.Type
  ) -> ThunkHandler<State>? {
    let handler = (action as? any ThunkPluginAction)?.handler(in: store)
    table.withLock { $0[key] = handler.map { .handle($0) } ?? .passOn }
    return handler
  }
}
