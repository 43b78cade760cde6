/// A plugin in a store's dispatch chain: it sees every action before the reducers do.
///
/// A middleware may pass the action on (`try next(action)`), pass another action instead
/// (transform), not call `next` at all (swallow), call `next` later from a task or timer
/// (defer), or throw to reject the action. It sees every action before the reducers do, however
/// it was dispatched: each action of a ``Batch`` also goes through the chain on its own after the
/// batch itself, so a guard cannot be bypassed
/// by wrapping an action in a batch. A middleware that records what changed does it through its
/// ``commitObserver``, which sees a batch once.
///
/// ```swift
/// struct AuthGuard: Middleware {
///   func handle(_ action: any Action, context: MiddlewareContext<AppState>,
///               next: Next<AppState>) throws {
///     if action is AdminAction, !context.state.session.isAdmin { throw AuthError.forbidden }
///     try next(action)
///   }
/// }
/// ```
public protocol Middleware<State>: Sendable {
  /// The state type of the stores this middleware serves.
  associatedtype State: Sendable

  /// The middleware's name, unique in a store's chain. Defaults to the type's name.
  var name: String { get }

  /// Handles one action on its way to the reducers.
  ///
  /// - Parameters:
  ///   - action: The action dispatched (or passed on by the middleware before this one).
  ///   - context: The store's state, dispatch and error reporting.
  ///   - next: Passes an action on to the rest of the chain and the reducers.
  /// - Throws: Any error to reject the action: the dispatch fails with
  ///   ``DispatchError/rejected(by:action:underlying:)``. A ``DispatchError`` thrown by `next`
  ///   and rethrown passes through unchanged.
  func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>) throws

  /// Called once when the middleware joins a store's chain, before it sees any action.
  ///
  /// The default does nothing. Throw to refuse (a middleware that serves one store only):
  /// the store then throws ``RegistrationError/middlewareRefused(name:reason:)`` and is unchanged.
  ///
  /// - Parameter store: The store's identity, the same in ``didDetach(from:)``.
  /// - Throws: Any error, to refuse to join.
  func willAttach(to store: ObjectIdentifier) throws

  /// Called once when the middleware leaves a store's chain: ``Store/removeMiddleware(named:)``
  /// or the store's deinitialisation. Cancel timers and tasks here.
  ///
  /// - Parameter store: The store's identity, as given to ``willAttach(to:)``.
  func didDetach(from store: ObjectIdentifier)

  /// What this middleware records of the store's commits; nil (the default) for nothing.
  ///
  /// The store reads it once, when the middleware joins its chain, and from then on shows the
  /// observer every commit: see ``CommitObserver``. A middleware that records changes (undo,
  /// an audit trail, persistence) records them here rather than around `next`: a ``Batch``
  /// then reaches it once, as one commit, and an action another middleware delivers late is
  /// recorded when it commits.
  var commitObserver: CommitObserver<State>? { get }
}

extension Middleware {
  /// The type's name without generic arguments (`UndoMiddleware` for `UndoMiddleware<Doc>`).
  public var name: String {
    let full = String(describing: Self.self)
    return full.firstIndex(of: "<").map { String(full[..<$0]) } ?? full
  }

  /// Accepts every store.
  ///
  /// - Parameter store: The store's identity.
  /// - Throws: Nothing.
  public func willAttach(to store: ObjectIdentifier) throws {}

  /// Does nothing.
  ///
  /// - Parameter store: The store's identity.
  public func didDetach(from store: ObjectIdentifier) {}

  /// Passes every action on untouched: the default of a middleware that only records commits.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - context: The store's context.
  ///   - next: Passes the action on.
  /// - Throws: The ``DispatchError`` of the rest of the chain.
  public func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>)
    throws
  {
    try next(action)
  }

  /// Records nothing.
  public var commitObserver: CommitObserver<State>? { nil }
}

/// A middleware made from a closure.
///
/// ```swift
/// let audit = AnyMiddleware<AppState>(name: "audit") { action, context, next in
///   print("->", action)
///   try next(action)
/// }
/// ```
public struct AnyMiddleware<State: Sendable>: Middleware {
  /// The middleware's name, unique in a store's chain.
  public let name: String
  private let body: @Sendable (any Action, MiddlewareContext<State>, Next<State>) throws -> Void

  /// Creates a middleware from a closure.
  ///
  /// - Parameters:
  ///   - name: The middleware's name, unique in a store's chain.
  ///   - handle: Handles each action, as ``Middleware/handle(_:context:next:)`` does.
  public init(
    name: String,
    handle: @escaping @Sendable (any Action, MiddlewareContext<State>, Next<State>) throws -> Void
  ) {
    self.name = name
    self.body = handle
  }

  /// Runs the closure.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - context: The store's state, dispatch and error reporting.
  ///   - next: Passes an action on.
  /// - Throws: What the closure throws.
  public func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>)
    throws
  {
    try body(action, context, next)
  }
}
