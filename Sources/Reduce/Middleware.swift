public import Synchronization

/// A plugin in a store's dispatch chain: it sees every action before the reducers do.
///
/// A middleware may pass the action on (`try next(action)`), pass another action instead
/// (transform), not call `next` at all (swallow), call `next` later from a task or timer
/// (defer), or throw to reject the action.
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

  /// Whether this middleware wants to see actions of a type.
  ///
  /// The store asks once per action type, and again after the chain changes, and skips the
  /// middleware for the types it declines: their actions go on as if `handle` had called
  /// `next(action)` at once, and an action no middleware wants is reduced as in a store
  /// without middleware. Decline only types whose actions you would pass on untouched, with no
  /// effect of your own; the answer must depend on the type alone, not on time or state. It may
  /// be called from any thread, with no lock of the store held.
  ///
  /// The default is `true`: the middleware sees every action.
  ///
  /// - Parameter type: The action's type, as it was dispatched (or passed on by the middleware
  ///   before this one).
  /// - Returns: Whether ``handle(_:context:next:)`` should be called for actions of `type`.
  func handles(_ type: any Action.Type) -> Bool
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

  /// Sees every action.
  ///
  /// - Parameter type: The action's type.
  /// - Returns: `true`.
  public func handles(_ type: any Action.Type) -> Bool { true }
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

/// Passes an action on to the rest of a store's chain and then the reducers.
///
/// Call it during `handle`, or keep it and call it later (from a task or a timer): the rest of
/// the chain and the reducers then run serialized with every other dispatch, with the chain the
/// dispatch started with. A `next` kept after its store is deinitialised delivers nothing.
public struct Next<State: Sendable>: Sendable {
  @usableFromInline let plan: ChainPlan<State>
  @usableFromInline let index: Int
  @usableFromInline let item: UInt64
  @usableFromInline let thread: ThreadID

  /// Creates the `next` of a middleware call made on `thread`, the thread processing `item`.
  @inlinable
  init(plan: ChainPlan<State>, index: Int, item: UInt64, thread: ThreadID) {
    self.plan = plan
    self.index = index
    self.item = item
    self.thread = thread
  }

  @inlinable var core: StoreCore<State> { plan.core }

  /// Passes an action on.
  ///
  /// - Parameter action: The action for the rest of the chain: the one handled, or another.
  /// - Throws: The ``DispatchError`` of the rest of the chain or of the reducers. A call made
  ///   after its dispatch ended runs as a dispatch of its own: its failure is also published on
  ///   ``Store/errors`` and given to the fallback.
  @inlinable @inline(__always)
  public func callAsFunction<A: Action>(_ action: A) throws(DispatchError) {
    try pass(action, as: A.self)
  }

  /// Passes on an action known as `any Action`, such as the one `handle` was given, without
  /// boxing it again.
  ///
  /// - Parameter action: The action for the rest of the chain: the one handled, or another.
  /// - Throws: The ``DispatchError`` of the rest of the chain or of the reducers, as for a typed
  ///   action.
  @inlinable @inline(__always)
  public func callAsFunction(_ action: any Action) throws(DispatchError) {
    func typeOf<A: Action>(_: A) -> any Action.Type { A.self }
    try pass(action, as: typeOf(action))
  }

  /// An action of the type the chain was planned for goes on to the next middleware of the
  /// plan; one of another type (the middleware passed on a different action) to the next
  /// middleware after this one that handles that type.
  ///
  /// Not generic: called with an opened existential, a generic function would run unspecialised.
  @inlinable
  func pass(_ action: any Action, as type: any Action.Type) throws(DispatchError) {
    if ObjectIdentifier(type) == plan.actionType {
      try forward(action, plan, from: index)
    } else {
      try forward(action, plan.remainder(from: index, for: type), from: 0)
    }
  }

  @inlinable
  func forward(_ action: any Action, _ plan: ChainPlan<State>, from index: Int)
    throws(DispatchError)
  {
    if core.activeItem.load(ordering: .acquiring) == item, thread == ThreadID.current {
      try core.runChain(action, plan, from: index, item: item, thread: thread)
    } else {
      try core.resume(action, plan: plan, from: index)
    }
  }
}

/// What a middleware can do with its store besides passing the action on.
public struct MiddlewareContext<State: Sendable>: Sendable {
  /// The plan being run, and this middleware's place in it.
  @usableFromInline let plan: ChainPlan<State>
  @usableFromInline let index: Int
  /// The name of the middleware this context was given to.
  public var middlewareName: String { plan.entries[index].name }
  /// The action being handled.
  public let action: any Action
  /// The dispatch item the context was made for, and the thread processing it: while that item
  /// is in progress, on that thread, the state is read without the store's lock.
  @usableFromInline let item: UInt64
  @usableFromInline let thread: ThreadID

  @inlinable
  init(plan: ChainPlan<State>, index: Int, action: any Action, item: UInt64, thread: ThreadID) {
    self.plan = plan
    self.index = index
    self.action = action
    self.item = item
    self.thread = thread
  }

  @inlinable var core: StoreCore<State> { plan.core }

  /// The identity of the store this context belongs to, as given to
  /// ``Middleware/willAttach(to:)`` and ``Middleware/didDetach(from:)``.
  ///
  /// A middleware that keeps per-store data checks it to ignore a kept `next` of a store it has
  /// left.
  @inlinable public var storeID: ObjectIdentifier { core.identifier }

  /// The store's current state.
  ///
  /// During `handle` it is the state before the action, or after it once `next` returned. Read
  /// during `handle`, on the thread that called it, it takes no lock.
  @inlinable public var state: State {
    // The context's plan keeps the core alive: it is used through a guaranteed reference.
    Unmanaged.passUnretained(plan.core)._withUnsafeGuaranteedRef { core in
      if readsInPlace(core) { return core.stateStorage.pointee }
      return core.readState()
    }
  }

  /// Dispatches an action from the top of the chain.
  ///
  /// From inside a dispatch (during `handle`, or an observer) the action is queued and runs
  /// right after the current one; the result is then the state at the time it was queued, and
  /// its own failure goes to ``Store/errors`` and the fallback.
  ///
  /// - Parameter action: The action to dispatch.
  /// - Returns: The state after the action, or why it failed.
  @inlinable @discardableResult
  public func dispatch(_ action: some Action) -> Result<State, DispatchError> {
    core.dispatch(action)
  }

  /// Dispatches actions one after another from the top of the chain.
  ///
  /// - Parameter actions: The actions, in order.
  /// - Returns: The state after the last action, or the first failure.
  @discardableResult
  public func dispatch(_ actions: [any Action]) -> Result<State, DispatchError> {
    core.dispatch(actions)
  }

  /// Dispatches actions one after another from the top of the chain, unless `refusal`, asked
  /// once this dispatch holds the store's turn, gives a reason not to: then none of them runs,
  /// and that error is returned without being published.
  ///
  /// For the plugins of this package: the thunk plugin drops the dispatches of a thunk that was
  /// cancelled while they waited for their turn.
  ///
  /// - Parameters:
  ///   - actions: The actions, in order.
  ///   - refusal: Asked once, holding the turn but not the store's lock; it must not dispatch.
  /// - Returns: The state after the last action, the first failure, or the refusal.
  package func dispatch(_ actions: [any Action], unless refusal: () -> DispatchError?)
    -> Result<State, DispatchError>
  {
    core.dispatch(actions, unless: refusal)
  }

  /// Publishes an error found after the action was handled (an async task failed).
  ///
  /// The error reaches ``Store/errors`` as
  /// ``DispatchError/middlewareFailed(name:action:underlying:)`` for this context's action, and
  /// the store's fallback.
  ///
  /// - Parameter error: What went wrong.
  public func report(_ error: any Error) {
    report(error, for: action)
  }

  /// Publishes an error found while working on another action than this context's.
  ///
  /// - Parameters:
  ///   - error: What went wrong.
  ///   - action: The action the error belongs to.
  public func report(_ error: any Error, for action: any Action) {
    core.report(.middlewareFailed(name: middlewareName, action: action, underlying: error))
  }
}
