public import Observation
public import Reduce

/// A middleware that keeps an undo/redo history of a store's state, or of one substate of it.
///
/// It records a step for every commit of the store that changes the tracked state, and answers
/// ``UndoAction`` commands by restoring a recorded state through `ReplaceState`. With a `scope`,
/// only that substate is recorded and restored: the rest of the state (a selection, a network
/// status) stays as it is now. It records from its ``commitObserver``, so it also records an
/// action that a middleware after it delivers later. A `Batch` is one commit, so one step.
///
/// ```swift
/// let undo = try UndoMiddleware<Editor>(scope: \.document, limit: 200)
/// let store = try Store(initialState: Editor(), mutators: [document], middleware: [undo])
/// store.dispatch(DocumentAction.typed("Hi"))
/// store.dispatch(UndoAction.undo)
/// undo.canRedo  // true
/// ```
///
/// Place it last in the chain (after thunk, throttle and logging middleware), so that a logger
/// before it sees each command together with the change it made.
/// One instance serves one store. It is `Observable`: reading ``status`` or its parts inside
/// `withObservationTracking` (or a SwiftUI view) tracks them.
public final class UndoMiddleware<State: Sendable>: Middleware, Observable {
  /// The middleware's name, unique in a store's chain.
  public let name: String
  /// The most steps kept, past and future together; the oldest is dropped first.
  public let limit: Int
  /// The typed layer: commands and the commit observer.
  let engine: any UndoEngine<State>
  /// The bookkeeping, shared with `engine`: the history, the store served, the status.
  let ledger: UndoLedger
  private let registrar = ObservationRegistrar()
  /// `\.status`, made once: a key path of a generic class is built anew each time its literal
  /// is evaluated.
  private let statusPath: KeyPath<UndoMiddleware, UndoStatus> & Sendable = \.status

  /// Creates the middleware around a recorder.
  init<Substate>(recorder: UndoRecorder<State, Substate>) {
    self.name = recorder.ledger.name
    self.limit = recorder.ledger.options.limit
    self.engine = recorder
    self.ledger = recorder.ledger
  }

  /// Creates an undo middleware that tracks one substate, through a key path.
  ///
  /// - Parameters:
  ///   - scope: The substate recorded and restored; the rest of the state is left alone.
  ///   - limit: The most steps kept, past and future together; at least 1.
  ///   - filter: Whether an action makes an undo step. An action filtered out still changes
  ///     the state; undo and redo never land on a state only it produced. Default: every action.
  ///   - groupBy: A key for each action: consecutive actions with the same non-nil key make
  ///     one step (typing in one field). Default: no grouping.
  ///   - groupWithin: The longest pause between two changes that make one step: each change
  ///     that comes within it after the one before merges into that one's step (a burst of
  ///     typing, a drag). With `groupBy` too, a change merges only when both agree. Positive;
  ///     default: no grouping by time.
  ///   - label: The name of the step an action starts, for "Undo Typing" menus.
  ///   - clock: The clock that times `groupWithin`; `ContinuousClock` by default.
  ///   - name: The middleware's name in the chain.
  /// - Throws: ``UndoError/invalidLimit(_:)`` when `limit` is below 1,
  ///   ``UndoError/invalidGroupingWindow(_:)`` when `groupWithin` is not positive.
  public convenience init<Substate: Equatable & Sendable>(
    scope: WritableKeyPath<State, Substate> & Sendable,
    limit: Int = 100,
    filter: (@Sendable (any Action) -> Bool)? = nil,
    groupBy: (@Sendable (any Action) -> (any Hashable & Sendable)?)? = nil,
    groupWithin: Duration? = nil,
    label: (@Sendable (any Action) -> String?)? = nil,
    clock: some Clock<Duration> = ContinuousClock(),
    name: String = "UndoMiddleware"
  ) throws(UndoError) {
    try self.init(
      scope: Lens(scope), limit: limit, filter: filter, groupBy: groupBy,
      groupWithin: groupWithin, label: label, clock: clock, name: name)
  }

  /// Creates an undo middleware that tracks one substate, through a lens.
  ///
  /// - Parameters:
  ///   - scope: Reads and writes the substate recorded and restored. Its `get` runs right before
  ///     and right after each commit, while the store is reducing: like a reducer, it must
  ///     not read the store.
  ///   - limit: The most steps kept, past and future together; at least 1.
  ///   - filter: Whether an action makes an undo step. Default: every action.
  ///   - groupBy: A key for each action: consecutive actions with the same non-nil key make
  ///     one step. Default: no grouping.
  ///   - groupWithin: The longest pause between two changes that make one step. Default: no
  ///     grouping by time.
  ///   - label: The name of the step an action starts.
  ///   - clock: The clock that times `groupWithin`; `ContinuousClock` by default.
  ///   - name: The middleware's name in the chain.
  /// - Throws: ``UndoError/invalidLimit(_:)`` when `limit` is below 1,
  ///   ``UndoError/invalidGroupingWindow(_:)`` when `groupWithin` is not positive.
  public convenience init<Substate: Equatable & Sendable>(
    scope: Lens<State, Substate>,
    limit: Int = 100,
    filter: (@Sendable (any Action) -> Bool)? = nil,
    groupBy: (@Sendable (any Action) -> (any Hashable & Sendable)?)? = nil,
    groupWithin: Duration? = nil,
    label: (@Sendable (any Action) -> String?)? = nil,
    clock: some Clock<Duration> = ContinuousClock(),
    name: String = "UndoMiddleware"
  ) throws(UndoError) {
    let recorder = try UndoRecorder<State, Substate>(
      name: name,
      options: UndoOptions(
        limit: limit, filter: filter, groupBy: groupBy, groupWithin: groupWithin, label: label,
        clock: clock),
      read: scope.get,
      embed: { state, substate in
        var state = state
        scope.set(&state, substate)
        return state
      })
    self.init(recorder: recorder)
  }

  // MARK: Status

  /// What can be undone and redone now.
  public var status: UndoStatus {
    registrar.access(self, keyPath: statusPath)
    return ledger.status
  }

  /// Whether there is a step to undo.
  public var canUndo: Bool { status.canUndo }

  /// Whether there is a step to redo.
  public var canRedo: Bool { status.canRedo }

  /// The number of steps that can be undone.
  public var pastCount: Int { status.pastCount }

  /// The number of steps that can be redone.
  public var futureCount: Int { status.futureCount }

  /// The label of the step the next undo reverts, if it has one.
  public var undoLabel: String? { status.undoLabel }

  /// The label of the step the next redo restores, if it has one.
  public var redoLabel: String? { status.redoLabel }

  /// The status as an async sequence: the current status, then each new distinct one.
  public var statuses: UndoStatusSequence {
    UndoStatusSequence { [weak ledger] in
      ledger?.makeStatusStream() ?? AsyncStream { $0.finish() }
    }
  }

  // MARK: Middleware

  /// Carries out an ``UndoAction``, or passes any other action on.
  ///
  /// An ``UndoAction`` is not passed on; undo, redo and jump pass on a `ReplaceState` instead,
  /// whose commit records no step. Any other action is passed on; the ``commitObserver``
  /// records the change it commits.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - context: The store's state and error reporting.
  ///   - next: Passes an action on to the rest of the chain and the reducers.
  /// - Throws: ``UndoError/commandInBatch`` for a `Batch` that holds an ``UndoAction``, at any
  ///   depth, which rejects the whole batch; the `DispatchError` of the rest of the chain.
  public func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>)
    throws
  {
    // An action that is neither a command nor a batch goes straight on, without a call through
    // the typed engine (15 instructions).
    let actionType = type(of: action)
    guard actionType == UndoAction.self || actionType == Batch.self else {
      return try next(action)
    }
    try engine.handle(action, context: context, next: next)
  }

  /// Records a step for each commit that changes the tracked value, whatever action made it
  /// (a `Batch` is one commit); a restore of this middleware's records none.
  public var commitObserver: CommitObserver<State>? { engine.commitObserver }

  /// Tells Observation that the status changed.
  func statusDidChange() {
    registrar.withMutation(of: self, keyPath: statusPath) {}
  }

  /// Joins a store; the middleware serves one store at a time.
  ///
  /// - Parameter store: The store's identity.
  /// - Throws: ``UndoError/alreadyAttached(name:)`` when it already serves a store.
  public func willAttach(to store: ObjectIdentifier) throws {
    try ledger.attach(to: store) { [self] in statusDidChange() }
  }

  /// Leaves a store and forgets its history; the middleware may then serve another store.
  ///
  /// - Parameter store: The store's identity.
  public func didDetach(from store: ObjectIdentifier) {
    if ledger.detach(from: store) { statusDidChange() }
  }
}

extension UndoMiddleware where State: Equatable {
  /// Creates an undo middleware that tracks the whole state.
  ///
  /// - Parameters:
  ///   - limit: The most steps kept, past and future together; at least 1.
  ///   - filter: Whether an action makes an undo step. An action filtered out still changes
  ///     the state; undo and redo never land on a state only it produced. Default: every action.
  ///   - groupBy: A key for each action: consecutive actions with the same non-nil key make
  ///     one step (typing in one field). Default: no grouping.
  ///   - groupWithin: The longest pause between two changes that make one step. Default: no
  ///     grouping by time.
  ///   - label: The name of the step an action starts, for "Undo Typing" menus.
  ///   - clock: The clock that times `groupWithin`; `ContinuousClock` by default.
  ///   - name: The middleware's name in the chain.
  /// - Throws: ``UndoError/invalidLimit(_:)`` when `limit` is below 1,
  ///   ``UndoError/invalidGroupingWindow(_:)`` when `groupWithin` is not positive.
  public convenience init(
    limit: Int = 100,
    filter: (@Sendable (any Action) -> Bool)? = nil,
    groupBy: (@Sendable (any Action) -> (any Hashable & Sendable)?)? = nil,
    groupWithin: Duration? = nil,
    label: (@Sendable (any Action) -> String?)? = nil,
    clock: some Clock<Duration> = ContinuousClock(),
    name: String = "UndoMiddleware"
  ) throws(UndoError) {
    try self.init(
      scope: Lens(get: { $0 }, set: { $0 = $1 }), limit: limit, filter: filter, groupBy: groupBy,
      groupWithin: groupWithin, label: label, clock: clock, name: name)
  }
}
