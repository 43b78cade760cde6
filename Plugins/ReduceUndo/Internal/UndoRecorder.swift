public import Reduce

/// The part of an ``UndoMiddleware`` that does not depend on the tracked value's type: the
/// status, store membership and status streams.
@usableFromInline
protocol UndoEngine: AnyObject, Sendable {
  /// The status now.
  var status: UndoStatus { get }
  /// Joins a store; throws when already serving one.
  ///
  /// - Parameters:
  ///   - store: The store's identity.
  ///   - statusDidChange: Tells the middleware's observers that a recorded step changed the
  ///     status.
  /// - Throws: ``UndoError/alreadyAttached(name:)`` when already serving a store.
  func attach(to store: ObjectIdentifier, notifying statusDidChange: @escaping @Sendable () -> Void)
    throws(UndoError)
  /// Leaves a store and forgets its history; returns whether the status changed.
  func detach(from store: ObjectIdentifier) -> Bool
  /// A stream of the status, starting with the current one.
  func makeStatusStream() -> AsyncStream<UndoStatus>
}

/// The options of an undo middleware: user code, called outside every lock.
@usableFromInline
struct UndoOptions: Sendable {
  @usableFromInline let limit: Int
  @usableFromInline let filter: (@Sendable (any Action) -> Bool)?
  @usableFromInline let groupBy: (@Sendable (any Action) -> (any Hashable & Sendable)?)?
  @usableFromInline let label: (@Sendable (any Action) -> String?)?

  @usableFromInline
  init(
    limit: Int,
    filter: (@Sendable (any Action) -> Bool)?,
    groupBy: (@Sendable (any Action) -> (any Hashable & Sendable)?)?,
    label: (@Sendable (any Action) -> String?)?
  ) {
    self.limit = limit
    self.filter = filter
    self.groupBy = groupBy
    self.label = label
  }
}

/// What an ``UndoRecorder`` keeps under its lock: the history, the store served, and the
/// status streams.
@usableFromInline
struct UndoBook<State: Sendable, Snapshot: Equatable & Sendable>: Sendable {
  @usableFromInline var history: UndoHistory<Snapshot>
  /// The stay in the store served, if any.
  @usableFromInline var stay: UndoStay?
  /// The status last published.
  @usableFromInline var published = UndoStatus()
  @usableFromInline var sinks: [UInt64: AsyncStream<UndoStatus>.Continuation] = [:]
  @usableFromInline var lastSinkID: UInt64 = 0

  @usableFromInline
  init(history: UndoHistory<Snapshot>) {
    self.history = history
  }
}

/// Records the changes of one tracked substate and restores them.
///
/// It records by watching: every action it handles outside a batch goes on with
/// `next(_:watcher:)`, with the one watcher made for the middleware (``makeWatcher()``), and the
/// reduction's before and after values come back to ``record(_:)``, which records them if the
/// store that reduced the action is the one served. Its commands restore with a plain
/// `next(ReplaceState(...))`, which it does not watch, so restoring never records a step.
///
/// Handling and recording happen holding the store's dispatch turn, so they never overlap; the
/// lock guards the history against readers on other threads (`status`, `statuses`) and against
/// leaving the store. Handling an action takes no lock; recording it takes the lock once
/// (twice with a `groupBy` or `label` option, or a `filter`). Under it run no user code (no
/// `==`, no option closure, no lens, no deinitialiser of a tracked value) and no `next`.
///
/// Its code is `@inlinable` and the middleware's initialisers build the closure that calls it,
/// so where an app creates the middleware for a concrete state type it runs compiled for that
/// type.
@usableFromInline
final class UndoRecorder<State: Sendable, Substate: Equatable & Sendable>: UndoEngine {
  @usableFromInline let name: String
  @usableFromInline let options: UndoOptions
  /// Reads the tracked substate from a state.
  @usableFromInline let read: @Sendable (State) -> Substate
  /// Builds the state to restore: a state with the tracked part replaced.
  @usableFromInline let embed: @Sendable (State, Substate) -> State
  @usableFromInline let book: Locked<UndoBook<State, Substate>>

  /// Creates a recorder.
  ///
  /// - Parameters:
  ///   - name: The middleware's name, for errors.
  ///   - options: The limit and the option closures.
  ///   - read: Reads the tracked substate from a state.
  ///   - embed: Builds the state to restore: a state with the tracked part replaced.
  /// - Throws: ``UndoError/invalidLimit(_:)`` when the limit is below 1.
  @usableFromInline
  init(
    name: String,
    options: UndoOptions,
    read: @escaping @Sendable (State) -> Substate,
    embed: @escaping @Sendable (State, Substate) -> State
  ) throws(UndoError) {
    guard options.limit >= 1 else { throw .invalidLimit(options.limit) }
    self.name = name
    self.options = options
    self.read = read
    self.embed = embed
    self.book = Locked(UndoBook(history: UndoHistory(limit: options.limit)))
  }

  deinit {
    let sinks = book.withLock { book in
      defer { book.sinks = [:] }
      return book.sinks
    }
    for sink in sinks.values { sink.finish() }
  }

  @usableFromInline
  var status: UndoStatus { book.withLock { $0.published } }

  // MARK: Store membership

  @usableFromInline
  func attach(
    to store: ObjectIdentifier, notifying statusDidChange: @escaping @Sendable () -> Void
  ) throws(UndoError) {
    let stay = UndoStay(store: store, statusDidChange: statusDidChange)
    try book.withLock { book throws(UndoError) in
      guard book.stay == nil else { throw UndoError.alreadyAttached(name: name) }
      book.stay = stay
    }
  }

  @usableFromInline
  func detach(from store: ObjectIdentifier) -> Bool {
    let (changed, released) = book.withLock { book in
      guard book.stay?.store == store else { return (false, UndoHistory<Substate>?.none) }
      book.stay = nil
      var old = UndoHistory<Substate>(limit: options.limit)
      swap(&old, &book.history)
      return (Self.publishLocked(&book), old)
    }
    _ = consume released
    return changed
  }

  // MARK: Handling

  /// Carries out an ``UndoAction``, or passes any other action on, watching its reduction
  /// unless it is one of a batch's actions.
  ///
  /// An action is watched whatever store it comes from, without a look at the store served:
  /// ``record(_:)`` drops the reduction of a store the middleware does not serve (one it left
  /// while a dispatch there still ran the chain it started with, or a later middleware kept
  /// `next`).
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - context: The store's state and error reporting.
  ///   - next: Passes an action on.
  ///   - watcher: The middleware's watcher (``makeWatcher()``).
  ///   - middleware: The middleware to tell when the status changed.
  /// - Throws: ``UndoError/commandInBatch`` for a command that is one of a batch's actions; the
  ///   `DispatchError` of the rest of the chain.
  @inlinable
  func handle(
    _ action: any Action, context: MiddlewareContext<State>, next: Next<State>,
    watcher: ReductionWatcher<State>, notifying middleware: UndoMiddleware<State>
  ) throws {
    // Told apart by the type's identity first: cheaper than a failed cast for every action.
    if action.dispatchedType == UndoAction.self, let command = action as? UndoAction {
      guard context.batch == nil else { throw UndoError.commandInBatch }
      if try perform(command, context: context, next: next) { middleware.statusDidChange() }
      return
    }
    // `as any Action` keeps the existential closed, which selects `next`'s `any Action`
    // overload: opened, it would pick the `some Action` one and run it, and the store's
    // reduction with it, uncompiled for `State` (about 17,000 instructions more per dispatch).
    //
    // One of a batch's actions goes on unwatched: the batch, watched as a whole, makes the step.
    guard context.batch == nil else { return try next(action as any Action) }
    try next(action as any Action, watcher: watcher)
  }

  /// Makes the watcher of the tracked value that records each reduction (``record(_:)``).
  ///
  /// Made once per middleware, in inlinable code, so that its closures, which run for every
  /// action, are compiled for the tracked type where the app creates the middleware. The
  /// middleware keeps it, not the recorder: the watcher holds the recorder.
  @inlinable
  func makeWatcher() -> ReductionWatcher<State> {
    ReductionWatcher(watching: read) { [self] reduction in record(reduction) }
  }

  // MARK: Recording

  /// Records what a reduction did to the tracked value, if the store that reduced it is the
  /// one served, and tells the middleware's observers when the status changed.
  ///
  /// - Parameter reduction: The action, the tracked value before and after it, and the store.
  @inlinable
  func record(_ reduction: Reduction<Substate>) {
    let store = reduction.store
    guard reduction.before != reduction.after, options.filter?(reduction.action) ?? true else {
      // No step, but the first value seen is the history's starting point.
      notify(
        change(servingStore: store) { history in
          history.noteBaseline(reduction.before)
          return Released()
        })
      return
    }
    // With a filter, actions filtered out may have moved the value away from the newest recorded
    // step, and this one may bring it back: a step from a value to the same value would undo
    // nothing and drop the redo future. (Without a filter the newest recorded value is the value
    // before the action, already compared.) The copy is compared, and released, outside the lock.
    if options.filter != nil,
      let last = book.withLock({ $0.stay?.store == store ? $0.history.recorded : nil }),
      last == reduction.after
    {
      return
    }
    let key = options.groupBy?(reduction.action).map(GroupKey.init)
    // One lock hold when deciding needs no user code (no `groupBy` keys to compare, no `label`
    // to run); otherwise the open group is read first, to decide outside the lock. Only this
    // store's dispatches change it, and they wait for this one; a detach meanwhile changes the
    // stay, and the change is then dropped.
    let labelled = options.label != nil
    var undecided: Grouping?
    let changed = change(servingStore: store) { history in
      history.noteBaseline(reduction.before)
      guard let (merging, label) = history.decision(key: key, labelled: labelled) else {
        undecided = history.grouping
        return Released()
      }
      return history.record(reduction.after, merging: merging, label: label, key: key)
    }
    guard let grouping = undecided, let stay = changed.stay else { return notify(changed) }
    let (merging, label) = decide(grouping, key: key, action: reduction.action)
    let decided = change(in: stay) { history in
      history.record(reduction.after, merging: merging, label: label, key: key)
    }
    if decided || changed.changed { stay.statusDidChange() }
  }

  /// Tells the middleware's observers that a change made in `stay` changed the status.
  @inlinable
  func notify(_ change: (stay: UndoStay?, changed: Bool)) {
    if change.changed, let stay = change.stay { stay.statusDidChange() }
  }

  /// Whether a change merges into the newest step, and the label of the step it starts; runs
  /// the `groupBy` keys' `==` and the `label` option, so never under the lock.
  @usableFromInline
  func decide(_ grouping: Grouping, key: GroupKey?, action: any Action) -> (
    merging: Bool, label: String?
  ) {
    let merging: Bool
    if grouping.depth > 0 {
      merging = grouping.groupHasStep
    } else if let key, let open = grouping.openKey {
      merging = key == open
    } else {
      merging = false
    }
    guard !merging else { return (true, nil) }
    return (false, (grouping.depth > 0 ? grouping.groupLabel : nil) ?? options.label?(action))
  }

  // MARK: Helpers

  /// Changes the history if the middleware serves `store`, publishes the new status, and
  /// releases what the change dropped after the lock.
  ///
  /// - Returns: The stay in `store`, nil when the middleware serves another store or none; and
  ///   whether the status changed.
  @inlinable
  func change(
    servingStore store: ObjectIdentifier,
    _ change: (inout UndoHistory<Substate>) -> Released<Substate>
  ) -> (stay: UndoStay?, changed: Bool) {
    let (stay, changed, released) = book.withLock { book in
      guard let stay = book.stay, stay.store == store else {
        return (UndoStay?.none, false, Released<Substate>())
      }
      let released = change(&book.history)
      return (stay, Self.publishLocked(&book), released)
    }
    _ = consume released
    return (stay, changed)
  }

  /// Changes the history unless the middleware left the store of `stay`, publishes the
  /// new status, and releases what the change dropped after the lock.
  ///
  /// - Returns: Whether the status changed.
  @inlinable
  func change(
    in stay: UndoStay,
    _ change: (inout UndoHistory<Substate>) -> Released<Substate>
  ) -> Bool {
    let (changed, released) = book.withLock { book in
      guard book.stay === stay else { return (false, Released<Substate>()) }
      let released = change(&book.history)
      return (Self.publishLocked(&book), released)
    }
    _ = consume released
    return changed
  }

  /// Sends the status to every stream when it changed; the lock must be held.
  ///
  /// Yielding runs no user code, and doing it under the lock keeps every stream in publication
  /// order.
  @inlinable
  static func publishLocked(_ book: inout UndoBook<State, Substate>) -> Bool {
    guard book.history.status(differsFrom: book.published) else { return false }
    let status = book.history.status
    book.published = status
    if !book.sinks.isEmpty { yield(status, to: book.sinks) }
    return true
  }

  /// Sends a status to status streams; out of line, so that a change that leaves the status as
  /// it was sets nothing up for streams.
  @usableFromInline @inline(never)
  static func yield(
    _ status: UndoStatus, to sinks: [UInt64: AsyncStream<UndoStatus>.Continuation]
  ) {
    for sink in sinks.values { sink.yield(status) }
  }

  @usableFromInline
  func makeStatusStream() -> AsyncStream<UndoStatus> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: UndoStatus.self, bufferingPolicy: .bufferingNewest(1))
    let id = book.withLock { book in
      book.lastSinkID &+= 1
      return book.lastSinkID
    }
    continuation.onTermination = { [weak self] _ in
      let removed = self?.book.withLock { $0.sinks.removeValue(forKey: id) }
      _ = removed
    }
    book.withLock { book in
      // A stream already terminated (its task was cancelled) is not kept.
      if case .terminated = continuation.yield(book.published) { return }
      book.sinks[id] = continuation
    }
    return stream
  }
}
