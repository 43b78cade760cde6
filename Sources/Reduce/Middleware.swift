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

// MARK: What a middleware is handed

/// Passes an action on to the rest of a store's chain and then the reducers.
///
/// Call it during `handle`, or keep it and call it later (from a task or a timer): the rest of
/// the chain and the reducers then run as a dispatch of their own, serialized with every other
/// dispatch, with the chain the original dispatch started with. A `next` kept after its store
/// is deinitialised delivers nothing. It does not keep its store alive.
public struct Next<State: Sendable>: Sendable {
  /// The store's engine, which lets go of the chain, the mutators and the observers when the
  /// store is deinitialised: a kept `next` keeps only the state the store ended with.
  let core: StoreCore<State>
  /// The middleware that handles what this `next` passes on; nil: the reducers.
  let node: ChainNode<State>?
  /// The dispatch this `next` was given in.
  let dispatch: UInt64

  @usableFromInline
  init(core: StoreCore<State>, node: ChainNode<State>?, dispatch: UInt64) {
    self.core = core
    self.node = node
    self.dispatch = dispatch
  }

  /// Passes an action on.
  ///
  /// - Parameter action: The action for the rest of the chain: the one handled, or another.
  /// - Throws: The ``DispatchError`` of the rest of the chain or of the reducers. A call made
  ///   after its dispatch ended runs as a dispatch of its own: its failure is also published on
  ///   ``Store/errors`` and given to the fallback.
  public func callAsFunction(_ action: some Action) throws(DispatchError) {
    try callAsFunction(action as any Action)
  }

  /// Passes on an action known as `any Action`, such as the one `handle` was given.
  ///
  /// - Parameter action: The action for the rest of the chain: the one handled, or another.
  /// - Throws: The ``DispatchError`` of the rest of the chain or of the reducers.
  public func callAsFunction(_ action: any Action) throws(DispatchError) {
    try core.specialized.pass(core, action, node, dispatch)
  }
}

/// What a middleware can do with its store besides passing the action on.
///
/// A context may be kept (by a task the middleware starts, say). It does not keep its store
/// alive: once the store is deinitialised, a kept context reads the state the store ended with,
/// and its dispatches and reports do nothing.
public struct MiddlewareContext<State: Sendable>: Sendable {
  /// The store's engine: see ``Next``.
  let core: StoreCore<State>
  /// The action being handled.
  public let action: any Action
  /// The name of the middleware this context was given to.
  public let middlewareName: String

  @usableFromInline
  init(core: StoreCore<State>, action: any Action, middlewareName: String) {
    self.core = core
    self.action = action
    self.middlewareName = middlewareName
  }

  /// The identity of the store this context belongs to, as given to
  /// ``Middleware/willAttach(to:)`` and ``Middleware/didDetach(from:)``.
  public var storeID: ObjectIdentifier { core.storeID }

  /// The store's current state.
  ///
  /// During `handle` it is the state before the action, or after it once `next` returned. For
  /// an action of a ``Batch``, it includes the changes of the batch's actions before it, which
  /// are not committed yet. Once the store is gone, it is the state the store ended with.
  public var state: State {
    core.readState()
  }

  /// Dispatches an action from the top of the chain.
  ///
  /// From inside a dispatch (during `handle`, or an observer) the action is queued and runs
  /// right after the current one; the result is then the state at the time it was queued, and
  /// its own failure goes to ``Store/errors`` and the fallback. Once the store is gone, nothing
  /// is dispatched and the result is the state the store ended with.
  ///
  /// - Parameter action: The action to dispatch.
  /// - Returns: The state after the action, or why it failed.
  @discardableResult
  public func dispatch(_ action: some Action) -> Result<State, DispatchError> {
    core.specialized.dispatch(core, .action(action, isFallback: false))
  }

  /// Dispatches actions one after another from the top of the chain.
  ///
  /// - Parameter actions: The actions, in order.
  /// - Returns: The state after the last action, or the first failure.
  @discardableResult
  public func dispatch(_ actions: [any Action]) -> Result<State, DispatchError> {
    core.specialized.dispatch(core, .sequence(actions))
  }

  /// Dispatches actions one after another from the top of the chain, unless `refusal` gives a
  /// reason not to once this dispatch's turn has come: then none of them runs, and that error
  /// is returned without being published.
  ///
  /// The thunk plugin uses it to drop the dispatches of a thunk cancelled while they waited.
  ///
  /// - Parameters:
  ///   - actions: The actions, in order.
  ///   - refusal: Asked once, holding the turn; it must not dispatch.
  /// - Returns: The state after the last action, the first failure, or the refusal.
  @discardableResult
  public func dispatch(_ actions: [any Action], unless refusal: () -> DispatchError?)
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

// MARK: The chain

/// What a dispatch runs with: the middleware chain and the mutators' routes.
///
/// Immutable: registering a mutator or a middleware makes a new plan, so a dispatch reads it
/// once and finishes with the plan it started with.
@usableFromInline
final class Plan<State: Sendable>: Sendable {
  @usableFromInline let chain: Chain<State>
  @usableFromInline let registry: Registry<State>

  /// Whether a commit observer asks to be called after each turn: read by every dispatch,
  /// where reading `chain.afterTurn` would retain and release the chain and the array.
  @usableFromInline let hasAfterTurn: Bool

  init(chain: Chain<State> = Chain(), registry: Registry<State> = Registry()) {
    self.chain = chain
    self.registry = registry
    hasAfterTurn = !chain.afterTurn.isEmpty
  }
}

/// The middleware of a store, outermost first, and their commit observers.
///
/// Immutable: `use`
/// and `removeMiddleware` make a new chain.
@usableFromInline
final class Chain<State: Sendable>: Sendable {
  @usableFromInline
  struct Entry: Sendable {
    @usableFromInline let name: String
    @usableFromInline let middleware: any Middleware<State>
    let recording: CommitRecording<State>?
  }

  let entries: [Entry]
  /// The outermost middleware, linked to the ones after it: where a dispatch starts.
  @usableFromInline let first: ChainNode<State>?
  /// The commit observers, outermost first.
  @usableFromInline let recordings: [CommitRecording<State>]
  /// The commit observers that ask to see each change before it is made, innermost first: an
  /// audit trail early in the chain writes its entry once every observer after it accepted.
  @usableFromInline let checks: [CommitHooks]
  /// The commit observers that ask to be called after each turn.
  @usableFromInline let afterTurn: [CommitHooks]

  init(_ entries: [Entry] = []) {
    self.entries = entries
    var node: ChainNode<State>?
    for entry in entries.reversed() { node = ChainNode(entry: entry, next: node) }
    first = node
    recordings = entries.compactMap(\.recording)
    checks = recordings.reversed().filter { $0.willCommit != nil }
    afterTurn = recordings.filter { $0.afterTurn != nil }
  }

  var names: [String] { entries.map(\.name) }
}

/// One middleware of a chain and the ones after it: what a `next` holds.
///
/// So a dispatch in
/// progress, and a `next` called late, finish with the chain they started with. It holds only
/// the middleware after the one it was given to: a middleware that keeps its `next` does not
/// keep itself alive.
@usableFromInline
final class ChainNode<State: Sendable>: Sendable {
  @usableFromInline let entry: Chain<State>.Entry
  @usableFromInline let next: ChainNode<State>?

  init(entry: Chain<State>.Entry, next: ChainNode<State>?) {
    self.entry = entry
    self.next = next
  }
}
