public import Observation
public import Reduce

/// A middleware that keeps an undo/redo history of a store's state, or of one substate of it.
///
/// It records a step for every action the store reduces that changes the tracked state, and
/// answers ``UndoAction`` commands by restoring a recorded state through `ReplaceState`. With a
/// `scope`, only that substate is recorded and restored: the rest of the state (a selection,
/// a network status) stays as it is now. It records around the store's reduction, not as a step
/// of the chain: in the chain it handles only its commands and `Batch`.
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
  @usableFromInline let engine: any UndoEngine
  /// Carries out a command, or checks a batch for one; returns whether the status changed.
  @usableFromInline let handleInChain:
    @Sendable (any Action, MiddlewareContext<State>, Next<State>) throws -> Bool
  /// Makes the recorder's slot for one store.
  @usableFromInline let makeSlot: @Sendable () -> UnsafeMutableRawPointer
  /// Frees a slot `makeSlot` made.
  @usableFromInline let freeSlot: @Sendable (UnsafeMutableRawPointer) -> Void
  /// Notes the tracked value before a reduction, in the store's slot.
  @usableFromInline let willReduce:
    @Sendable (UnsafePointer<State>, UnsafeMutableRawPointer, ObjectIdentifier) -> Void
  /// Records the change a reduction made; returns whether the status changed.
  @usableFromInline let didReduce:
    @Sendable (UnsafePointer<State>, UnsafeMutableRawPointer, () -> any Action, ObjectIdentifier)
      -> Bool
  private let registrar = ObservationRegistrar()
  /// `\.status`, made once: a key path literal of a generic class is built anew each time it is
  /// evaluated, which cost more than recording a step.
  private let statusPath: KeyPath<UndoMiddleware, UndoStatus> & Sendable = \.status

  @usableFromInline
  init(
    name: String, limit: Int, engine: any UndoEngine,
    handleInChain:
      @escaping @Sendable (any Action, MiddlewareContext<State>, Next<State>) throws
      -> Bool,
    makeSlot: @escaping @Sendable () -> UnsafeMutableRawPointer,
    freeSlot: @escaping @Sendable (UnsafeMutableRawPointer) -> Void,
    willReduce:
      @escaping @Sendable (UnsafePointer<State>, UnsafeMutableRawPointer, ObjectIdentifier)
      -> Void,
    didReduce:
      @escaping @Sendable (
        UnsafePointer<State>, UnsafeMutableRawPointer, () -> any Action, ObjectIdentifier
      ) -> Bool
  ) {
    self.name = name
    self.limit = limit
    self.engine = engine
    self.handleInChain = handleInChain
    self.makeSlot = makeSlot
    self.freeSlot = freeSlot
    self.willReduce = willReduce
    self.didReduce = didReduce
  }

  /// Creates the middleware around a recorder, with the closures that record compiled where
  /// this initialiser is inlined (where `State` is concrete).
  @inlinable
  convenience init<Substate>(recorder: UndoRecorder<State, Substate>) {
    self.init(
      name: recorder.name, limit: recorder.options.limit, engine: recorder,
      handleInChain: { action, context, next in
        try recorder.handle(action, context: context, next: next)
      },
      // The store gives each closure back the slot `makeSlot` made for it.
      makeSlot: { UnsafeMutableRawPointer(PendingSlot<Substate>.make()) },
      freeSlot: {
        PendingSlot<Substate>.free($0.assumingMemoryBound(to: PendingSlot<Substate>.self))
      },
      willReduce: { state, slot, store in
        recorder.willReduce(
          state, slot: slot.assumingMemoryBound(to: PendingSlot<Substate>.self), store: store)
      },
      didReduce: { state, slot, action, store in
        recorder.didReduce(
          state, slot: slot.assumingMemoryBound(to: PendingSlot<Substate>.self), action: action,
          store: store)
      })
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
  ///   - label: The name of the step an action starts, for "Undo Typing" menus.
  ///   - name: The middleware's name in the chain.
  /// - Throws: ``UndoError/invalidLimit(_:)`` when `limit` is below 1.
  @inlinable
  public convenience init<Substate: Equatable & Sendable>(
    scope: WritableKeyPath<State, Substate> & Sendable,
    limit: Int = 100,
    filter: (@Sendable (any Action) -> Bool)? = nil,
    groupBy: (@Sendable (any Action) -> (any Hashable & Sendable)?)? = nil,
    label: (@Sendable (any Action) -> String?)? = nil,
    name: String = "UndoMiddleware"
  ) throws(UndoError) {
    let recorder = try UndoRecorder<State, Substate>(
      name: name,
      options: UndoOptions(limit: limit, filter: filter, groupBy: groupBy, label: label),
      // A stored-property path is read at its offset, copying the substate alone, without a
      // key-path projection through the runtime.
      read: { $0.pointee[keyPath: scope] }, offset: MemoryLayout<State>.offset(of: scope),
      embed: { state, substate in
        var state = state
        state[keyPath: scope] = substate
        return state
      })
    self.init(recorder: recorder)
  }

  /// Creates an undo middleware that tracks one substate, through a lens.
  ///
  /// - Parameters:
  ///   - scope: Reads and writes the substate recorded and restored. Its `get` runs just before
  ///     each reduction, while the store is reducing: like a reducer, it must not read the store.
  ///   - limit: The most steps kept, past and future together; at least 1.
  ///   - filter: Whether an action makes an undo step. Default: every action.
  ///   - groupBy: A key for each action: consecutive actions with the same non-nil key make
  ///     one step. Default: no grouping.
  ///   - label: The name of the step an action starts.
  ///   - name: The middleware's name in the chain.
  /// - Throws: ``UndoError/invalidLimit(_:)`` when `limit` is below 1.
  @inlinable
  public convenience init<Substate: Equatable & Sendable>(
    scope: Lens<State, Substate>,
    limit: Int = 100,
    filter: (@Sendable (any Action) -> Bool)? = nil,
    groupBy: (@Sendable (any Action) -> (any Hashable & Sendable)?)? = nil,
    label: (@Sendable (any Action) -> String?)? = nil,
    name: String = "UndoMiddleware"
  ) throws(UndoError) {
    let recorder = try UndoRecorder<State, Substate>(
      name: name,
      options: UndoOptions(limit: limit, filter: filter, groupBy: groupBy, label: label),
      read: { scope.get($0.pointee) }, offset: nil,
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
    return engine.status
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
    UndoStatusSequence { [weak engine] in
      engine?.makeStatusStream() ?? AsyncStream { $0.finish() }
    }
  }

  // MARK: Middleware

  /// Carries out an ``UndoAction``, or checks a `Batch` for one.
  ///
  /// An ``UndoAction`` is not passed on; undo, redo and jump pass on a `ReplaceState` instead.
  /// A `Batch` without a command is passed on. The store calls this middleware for those two
  /// types only (``handles(_:)``); it records the change of every action it reduces around the
  /// reduction itself, whatever the action's place in the chain.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - context: The store's state and error reporting.
  ///   - next: Passes an action on to the rest of the chain and the reducers.
  /// - Throws: ``UndoError/commandInBatch`` for a `Batch` holding an ``UndoAction``; the
  ///   `DispatchError` of the rest of the chain.
  public func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>)
    throws
  {
    if try handleInChain(action, context, next) { statusDidChange() }
  }

  /// Whether the store should call ``handle(_:context:next:)`` for actions of a type.
  ///
  /// - Parameter type: The action's type.
  /// - Returns: `true` for ``UndoAction`` and `Batch`: every other action is recorded around its
  ///   reduction, without a step in the chain.
  public func handles(_ type: any Action.Type) -> Bool {
    type == UndoAction.self || type == Batch.self
  }

  /// Tells Observation that the status changed.
  private func statusDidChange() {
    registrar.withMutation(of: self, keyPath: statusPath) {}
  }

  /// Joins a store; the middleware serves one store at a time.
  ///
  /// - Parameter store: The store's identity.
  /// - Throws: ``UndoError/alreadyAttached(name:)`` when it already serves a store.
  public func willAttach(to store: ObjectIdentifier) throws {
    try engine.attach(to: store)
  }

  /// Leaves a store and forgets its history; the middleware may then serve another store.
  ///
  /// - Parameter store: The store's identity.
  public func didDetach(from store: ObjectIdentifier) {
    if engine.detach(from: store) {
      registrar.withMutation(of: self, keyPath: statusPath) {}
    }
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
  ///   - label: The name of the step an action starts, for "Undo Typing" menus.
  ///   - name: The middleware's name in the chain.
  /// - Throws: ``UndoError/invalidLimit(_:)`` when `limit` is below 1.
  @inlinable
  public convenience init(
    limit: Int = 100,
    filter: (@Sendable (any Action) -> Bool)? = nil,
    groupBy: (@Sendable (any Action) -> (any Hashable & Sendable)?)? = nil,
    label: (@Sendable (any Action) -> String?)? = nil,
    name: String = "UndoMiddleware"
  ) throws(UndoError) {
    let recorder = try UndoRecorder<State, State>(
      name: name,
      options: UndoOptions(limit: limit, filter: filter, groupBy: groupBy, label: label),
      read: { $0.pointee }, offset: 0, embed: { _, state in state })
    self.init(recorder: recorder)
  }
}

extension UndoMiddleware: ReductionHookProviding {
  /// Notes the tracked value before every reduction and records the change after it.
  package var reductionHook: ReductionHook<State> {
    ReductionHook(
      makeSlot: makeSlot, freeSlot: freeSlot, willReduce: willReduce,
      didReduce: { [didReduce] state, slot, action, store in
        if didReduce(state, slot, action, store) { self.statusDidChange() }
      })
  }
}
