public import Reduce
public import Synchronization

/// The part of an ``UndoMiddleware`` that does not depend on how actions are recorded: the
/// status, store membership and status streams.
@usableFromInline
protocol UndoEngine: AnyObject, Sendable {
  /// The status now.
  var status: UndoStatus { get }
  /// Joins a store; throws when already serving one.
  func attach(to store: ObjectIdentifier) throws(UndoError)
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

  /// Whether deciding how a change joins the history runs user code (`groupBy`, `label`), which
  /// needs the open group read before the action, outside the lock.
  @inlinable var decidesWithUserCode: Bool { groupBy != nil || label != nil }

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
struct UndoBook<Snapshot: Sendable>: Sendable {
  @usableFromInline var history: UndoHistory<Snapshot>
  /// The store served, if any.
  @usableFromInline var store: ObjectIdentifier?
  /// The status last published.
  @usableFromInline var published = UndoStatus()
  @usableFromInline var sinks: [UInt64: AsyncStream<UndoStatus>.Continuation] = [:]
  @usableFromInline var lastSinkID: UInt64 = 0

  @usableFromInline
  init(history: UndoHistory<Snapshot>) {
    self.history = history
  }
}

/// The tracked value before an action, noted when its reduction begins.
@usableFromInline
struct PendingChange<Substate: Sendable>: Sendable {
  @usableFromInline let before: Substate
  /// The recorder's epoch when the reduction began.
  @usableFromInline let epoch: UInt64
  /// The store reducing the action.
  @usableFromInline let store: ObjectIdentifier

  @inlinable
  init(before: Substate, epoch: UInt64, store: ObjectIdentifier) {
    self.before = before
    self.epoch = epoch
    self.store = store
  }
}

/// What `willReduce` leaves for `didReduce` in one store: the store keeps one slot per
/// recorder, and only the thread holding that store's dispatch turn touches it.
@usableFromInline
struct PendingSlot<Substate: Sendable> {
  @usableFromInline var pending: PendingChange<Substate>?

  /// Allocates an empty slot.
  @inlinable
  static func make() -> UnsafeMutablePointer<PendingSlot> {
    let slot = UnsafeMutablePointer<PendingSlot>.allocate(capacity: 1)
    slot.initialize(to: PendingSlot(pending: nil))
    return slot
  }

  /// Frees a slot ``make()`` allocated.
  @inlinable
  static func free(_ slot: UnsafeMutablePointer<PendingSlot>) {
    slot.deinitialize(count: 1)
    slot.deallocate()
  }

  @inlinable
  init(pending: PendingChange<Substate>?) {
    self.pending = pending
  }

  /// Empties the slot and returns what it held.
  @inlinable
  mutating func take() -> PendingChange<Substate>? {
    defer { pending = nil }
    return pending
  }
}

/// Records the changes of one tracked substate and restores them.
///
/// Every call of `handle`, `willReduce` and `didReduce` happens holding the store's dispatch
/// turn, so calls never overlap: nothing but ``detach(from:)`` changes the history between a
/// reduction's `willReduce` and its `didReduce`, and `epoch` tells when it did. The lock guards
/// the history against readers on other threads (`status`, `statuses`) and against `detach`.
/// Under it run no user code (no `==`, no option closure, no deinitialiser of a tracked state)
/// and no `next`.
///
/// The recording path is `@inlinable`: ``UndoMiddleware``'s initialisers build it into closures
/// where the store's state type is concrete, so it runs compiled for that type. An action that
/// changes the tracked state costs two reads of it (in the store's storage, with no lock), one
/// comparison, and one hold of the lock; one that leaves it equal takes no lock at all.
@usableFromInline
final class UndoRecorder<State: Sendable, Substate: Equatable & Sendable>: UndoEngine {
  @usableFromInline let name: String
  @usableFromInline let options: UndoOptions
  /// Reads the tracked substate through a pointer to a state.
  @usableFromInline let read: @Sendable (UnsafePointer<State>) -> Substate
  /// Where the tracked substate lies in a state, when it is a stored property (0: the whole
  /// state): it is then read there directly, without calling `read`.
  @usableFromInline let offset: Int?
  @usableFromInline let embed: @Sendable (State, Substate) -> State
  @usableFromInline let book: Locked<UndoBook<Substate>>
  /// Grows by one, under the lock, each time the store is left.
  ///
  /// A recording reads it without the lock before the reduction and checks it under the lock
  /// after, so that a change made in between is dropped.
  @usableFromInline let epoch = Atomic<UInt64>(0)
  /// The store whose dispatch is restoring a step (0: none): the reduction hooks skip that
  /// `ReplaceState`, so restoring never records a step.
  @usableFromInline let restoring = Atomic<UInt>(0)
  /// The epoch in which the history got its starting point; until then every action is
  /// looked at under the lock, so that the first state seen becomes the baseline.
  @usableFromInline let baselineEpoch = Atomic<UInt64>(.max)

  /// Creates a recorder.
  ///
  /// - Parameters:
  ///   - name: The middleware's name, for errors.
  ///   - options: The limit and the option closures.
  ///   - read: Reads the tracked substate through a pointer to a state.
  ///   - offset: The tracked substate's offset in a state, when `read` reads a stored property
  ///     of type `Substate` there (0 when `Substate` is `State`).
  ///   - embed: Builds the state to restore: a state with the tracked part replaced.
  /// - Throws: ``UndoError/invalidLimit(_:)`` when the limit is below 1.
  @usableFromInline
  init(
    name: String,
    options: UndoOptions,
    read: @escaping @Sendable (UnsafePointer<State>) -> Substate,
    offset: Int?,
    embed: @escaping @Sendable (State, Substate) -> State
  ) throws(UndoError) {
    guard options.limit >= 1 else { throw .invalidLimit(options.limit) }
    self.name = name
    self.options = options
    self.read = read
    self.offset = offset
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
  func attach(to store: ObjectIdentifier) throws(UndoError) {
    try book.withLock { book throws(UndoError) in
      guard book.store == nil else { throw UndoError.alreadyAttached(name: name) }
      book.store = store
    }
  }

  @usableFromInline
  func detach(from store: ObjectIdentifier) -> Bool {
    let (changed, released) = book.withLock { book in
      guard book.store == store else { return (false, UndoHistory<Substate>?.none) }
      book.store = nil
      epoch.wrappingAdd(1, ordering: .relaxed)
      var old = UndoHistory<Substate>(limit: options.limit)
      swap(&old, &book.history)
      return (Self.publishLocked(&book), old)
    }
    _ = consume released
    return changed
  }

  // MARK: Recording

  /// Carries out an ``UndoAction``, rejects a `Batch` that holds one, and passes every other
  /// action on.
  ///
  /// Changes are recorded around the reduction, by `willReduce` and `didReduce`.
  ///
  /// - Returns: Whether the status changed.
  @inlinable
  func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>) throws
    -> Bool
  {
    // Commands and batches are told from other actions by the type's identity: both are value
    // types, so no other type can be cast to them.
    let type = ActionTypeSet.key(of: action)
    if type == UInt(bitPattern: ObjectIdentifier(UndoAction.self)),
      let command = action as? UndoAction
    {
      return try perform(command, context: context, next: next)
    }
    if type == UInt(bitPattern: ObjectIdentifier(Batch.self)), let batch = action as? Batch,
      Self.containsCommand(batch)
    {
      throw UndoError.commandInBatch
    }
    try next(action)
    return false
  }

  /// Before an action is reduced: notes the tracked value in the store's slot, unless the
  /// action is this recorder's own restore.
  @inlinable
  func willReduce(
    _ state: UnsafePointer<State>, slot: UnsafeMutablePointer<PendingSlot<Substate>>,
    store: ObjectIdentifier
  ) {
    guard restoring.load(ordering: .relaxed) != UInt(bitPattern: store) else { return }
    slot.pointee.pending = PendingChange(
      before: tracked(at: state), epoch: epoch.load(ordering: .acquiring), store: store)
  }

  /// After an action was reduced and committed: records the change it made to the tracked
  /// value, unless the action is this recorder's own restore.
  ///
  /// - Returns: Whether the status changed.
  @inlinable
  func didReduce(
    _ state: UnsafePointer<State>, slot: UnsafeMutablePointer<PendingSlot<Substate>>,
    action: () -> any Action,
    store: ObjectIdentifier
  ) -> Bool {
    guard restoring.load(ordering: .relaxed) != UInt(bitPattern: store),
      let pending = slot.pointee.take()
    else { return false }
    let after = tracked(at: state)
    guard pending.before != after, options.filter?(action()) ?? true else {
      if baselineEpoch.load(ordering: .relaxed) != pending.epoch {
        noteBaseline(pending.before, epoch: pending.epoch, store: store)
      }
      return false
    }
    guard options.decidesWithUserCode else {
      return commit(pending, after: after, key: nil) { $0.decisionWithoutUserCode }
    }
    return commitDecidedByOptions(pending, after: after, action: action())
  }

  /// Records a change with `groupBy` or `label`: user code decides how it joins the history,
  /// from the open group, outside the lock.
  ///
  /// - Returns: Whether the status changed.
  @inlinable @inline(never)
  func commitDecidedByOptions(
    _ pending: PendingChange<Substate>, after: Substate, action: any Action
  ) -> Bool {
    // Only this store's turn holder changes the open group, between the reads here and the
    // commit; a detach meanwhile is told by the epoch.
    let grouping = book.withLock { $0.history.grouping }
    let key = options.groupBy?(action).map(GroupKey.init)
    let decision = decide(grouping, key: key, action: action)
    return commit(pending, after: after, key: key) { _ in decision }
  }

  /// The tracked value in a state.
  @inlinable @inline(__always)
  func tracked(at state: UnsafePointer<State>) -> Substate {
    guard let offset else { return read(state) }
    // `offset` is where a stored property of type `Substate` lies (`MemoryLayout.offset(of:)`
    // documents reading it through a pointer), or 0 when `Substate` is `State`.
    return UnsafeRawPointer(state).advanced(by: offset).assumingMemoryBound(to: Substate.self)
      .pointee
  }

  /// Records a change as a new step or into the newest one, unless the store was left since
  /// the change began, and publishes the new status.
  ///
  /// - Parameters:
  ///   - pending: The tracked value before the action, and when and where it was noted.
  ///   - after: The tracked value after the action.
  ///   - key: The action's `groupBy` key.
  ///   - decide: Whether the change merges into the newest step, and the label of the step it
  ///     starts, from the history; called under the lock, so it must not run user code.
  /// - Returns: Whether the status changed.
  @inlinable @inline(__always)
  func commit(
    _ pending: PendingChange<Substate>, after: Substate, key: GroupKey?,
    decide: (inout UndoHistory<Substate>) -> (merging: Bool, label: String?)
  ) -> Bool {
    let (changed, released) = book.withLock { book -> (Bool, Released<Substate>) in
      guard epoch.load(ordering: .relaxed) == pending.epoch, book.store == pending.store else {
        return (false, Released())
      }
      book.history.noteBaseline(pending.before)
      baselineEpoch.store(pending.epoch, ordering: .relaxed)
      let (merging, label) = decide(&book.history)
      let (released, statusChanged) = book.history.record(
        after, merging: merging, label: label, key: key)
      return (statusChanged && Self.publishLocked(&book), released)
    }
    _ = consume released
    return changed
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

  /// Takes `before` as the history's starting point, for an action that made no step.
  @usableFromInline
  func noteBaseline(_ before: Substate, epoch start: UInt64, store: ObjectIdentifier) {
    book.withLock { book in
      guard epoch.load(ordering: .relaxed) == start, book.store == store else { return }
      book.history.noteBaseline(before)
      baselineEpoch.store(start, ordering: .relaxed)
    }
  }

  // MARK: Commands

  @usableFromInline
  func perform(_ command: UndoAction, context: MiddlewareContext<State>, next: Next<State>)
    throws -> Bool
  {
    let store = context.storeID
    switch command {
    case .undo:
      return try travel(-1, context: context, next: next)
    case .redo:
      return try travel(1, context: context, next: next)
    case .jump(let offset):
      return try travel(offset, context: context, next: next)
    case .clearHistory:
      let start = epoch.load(ordering: .acquiring)
      let present = context.withUnsafeState { tracked(at: $0) }
      return commit(epoch: start, store: store) { history in
        defer { baselineEpoch.store(start, ordering: .relaxed) }
        return history.clear(keeping: present)
      }
    case .beginGroup(let label):
      return commit(epoch: epoch.load(ordering: .acquiring), store: store) { history in
        history.beginGroup(label: label)
        return Released()
      }
    case .endGroup:
      var matched = true
      let changed = commit(epoch: epoch.load(ordering: .acquiring), store: store) { history in
        matched = history.endGroup()
        return Released()
      }
      if !matched { context.report(UndoError.unmatchedEndGroup) }
      return changed
    }
  }

  /// Undoes (negative) or redoes (positive) steps: restores the destination with one
  /// `ReplaceState` passed down the chain, then moves the steps.
  private func travel(_ offset: Int, context: MiddlewareContext<State>, next: Next<State>) throws
    -> Bool
  {
    let store = context.storeID
    let start = epoch.load(ordering: .acquiring)
    let snapshot = book.withLock { book -> Substate? in
      guard epoch.load(ordering: .relaxed) == start, book.store == store else { return nil }
      book.history.seal()
      return book.history.destination(ofJump: offset)?.snapshot
    }
    guard let snapshot else { return false }
    // Down the chain, not from its top: middleware before this one see the command itself (and
    // a logger there the change it made); this middleware does not see the replacement, so
    // restoring never records a step.
    restoring.store(UInt(bitPattern: store), ordering: .relaxed)
    defer { restoring.store(0, ordering: .relaxed) }
    try next(ReplaceState(embed(context.state, snapshot)))
    return commit(epoch: start, store: store) { history in
      history.jump(offset)
      return Released()
    }
  }

  // MARK: Helpers

  /// Changes the history unless the store was left since `epoch`, publishes the new status,
  /// and releases what the change dropped after the lock.
  ///
  /// - Returns: Whether the status changed.
  private func commit(
    epoch start: UInt64, store: ObjectIdentifier,
    _ change: (inout UndoHistory<Substate>) -> Released<Substate>
  ) -> Bool {
    let (changed, released) = book.withLock { book in
      guard epoch.load(ordering: .relaxed) == start, book.store == store else {
        return (false, Released<Substate>())
      }
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
  static func publishLocked(_ book: inout UndoBook<Substate>) -> Bool {
    guard book.history.status(differsFrom: book.published) else { return false }
    let status = book.history.status
    book.published = status
    if !book.sinks.isEmpty { yield(status, to: book.sinks) }
    return true
  }

  /// Sends a status to status streams; out of line, so that recording a step that leaves the
  /// status as it was sets nothing up for streams.
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

  /// Whether a batch holds an undo command, at any depth.
  @usableFromInline
  static func containsCommand(_ batch: Batch) -> Bool {
    batch.actions.contains { action in
      if action is UndoAction { return true }
      if let inner = action as? Batch { return containsCommand(inner) }
      return false
    }
  }
}
