import Reduce

/// Runs the actions of one thunk type (or ``CancelThunks``) in a store whose state is `State`.
///
/// A class, so that the table of handlers holds each as one reference.
final class ThunkHandler<State: Sendable>: Sendable {
  /// Runs an action of the handler's type, given the store's context and the middleware's
  /// environment.
  typealias Body = @Sendable (any Action, MiddlewareContext<State>, Environment) throws -> Void
  /// What the middleware gives a handler besides the store's context.
  typealias Environment = ThunkEnvironment<MiddlewareContext<State>>

  let body: Body

  init(_ body: @escaping Body) {
    self.body = body
  }

  /// The handler of the thunks of type `T`.
  ///
  /// Generic over the thunk's whole type, for cost: unspecialised code looks a type built from
  /// generic parameters, such as `Thunk<State, Value>`, up in the runtime at each use.
  static func running<T: RunnableThunk>(_: T.Type) -> ThunkHandler where T.StoreState == State {
    ThunkHandler { action, context, environment in
      // Handlers are kept by type: the action is always a `T`. (A pattern costs less than `as?`.)
      switch action {
      case let thunk as T: try thunk.run(context, environment)
      default: return
      }
    }
  }
}

/// A thunk, as its handler runs it: ``Thunk``.
protocol RunnableThunk: Action {
  /// The state of the stores the thunk is for.
  associatedtype StoreState: Sendable

  /// Runs the thunk: what ``ThunkMiddleware`` does with it.
  func run(
    _ context: MiddlewareContext<StoreState>,
    _ environment: ThunkEnvironment<MiddlewareContext<StoreState>>) throws
}

/// What a ``ThunkMiddleware`` does with the actions of one type.
///
/// Outside ``ThunkHandlers``, so that it is not generic.
private struct ActionRoute {
  /// The action type's identity.
  let type: ObjectIdentifier
  /// A `ThunkHandler` of the middleware's state; nil for an action that is neither a thunk nor
  /// ``CancelThunks``, passed on untouched.
  let handler: AnyObject?
}

extension [ActionRoute] {
  /// The route of `type`, when it is known.
  fileprivate func route(of type: ObjectIdentifier) -> ActionRoute? {
    let index = lowerBound(of: type, by: \.type)
    return index < count && self[index].type == type ? self[index] : nil
  }
}

/// What a ``ThunkMiddleware`` does with each action type it has met, by type.
///
/// Learnt from the first action of a type, through a cast to ``ThunkPluginAction``, and kept for
/// the types passed on as well as the handled ones, so that each type is cast once. Kept sorted
/// by type and searched by halves.
///
/// Generic over the handler's type, `ThunkHandler<State>`, rather than over the state, for cost:
/// the table itself is then not generic.
final class ThunkHandlers<Handler: AnyObject & Sendable>: Sendable {
  /// The routes of the action types met so far, sorted by type.
  private let routes = Locked<[ActionRoute]>([])
  /// Finds the handler of an action's type: nil when the action is neither a thunk nor
  /// ``CancelThunks``.
  private let learn: @Sendable (any Action) -> Handler?

  init(learn: @escaping @Sendable (any Action) -> Handler?) {
    self.learn = learn
  }

  /// The handler of an action's type; nil when the action is neither a thunk nor
  /// ``CancelThunks``.
  func handler(for action: any Action) -> Handler? {
    let type = ObjectIdentifier(action.dispatchedType)
    if let known = routes.withLock({ $0.route(of: type) }) {
      return known.handler as? Handler
    }
    let handler = learn(action)
    routes.withLock { routes in
      let index = routes.lowerBound(of: type, by: \.type)
      // Another dispatch may have learnt the type meanwhile: the same route.
      if index == routes.count || routes[index].type != type {
        routes.insert(ActionRoute(type: type, handler: handler), at: index)
      }
    }
    return handler
  }
}
