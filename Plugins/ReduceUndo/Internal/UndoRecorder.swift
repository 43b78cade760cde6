import Reduce

/// The part of an ``UndoMiddleware`` that knows the tracked substate's type.
protocol UndoEngine<State>: AnyObject, Sendable {
  associatedtype State: Sendable

  /// The status now.
  var status: UndoStatus { get }
  /// Handles one action; returns whether the status changed.
  func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>) throws
    -> Bool
  /// Joins a store; throws when already serving one.
  func attach(to store: ObjectIdentifier) throws(UndoError)
  /// Leaves a store and forgets its history; returns whether the status changed.
  func detach(from store: ObjectIdentifier) -> Bool
  /// A stream of the status, starting with the current one.
  func makeStatusStream() -> AsyncStream<UndoStatus>
}

/// The options of an undo middleware: user code, called outside every lock.
struct UndoOptions: Sendable {
  let limit: Int
  let filter: (@Sendable (any Action) -> Bool)?
  let groupBy: (@Sendable (any Action) -> (any Hashable & Sendable)?)?
  let label: (@Sendable (any Action) -> String?)?
}

/// What an ``UndoRecorder`` keeps under its lock: the history, the store served, and the
/// status streams.
struct UndoBook: Sendable {
  var history: UndoHistory
  /// The store served, if any.
  var store: ObjectIdentifier?
  /// Changes whenever the store is left, so that a decision made before can be dropped.
  var epoch: UInt64 = 0
  /// The status last published.
  var published = UndoStatus()
  var sinks: [UInt64: AsyncStream<UndoStatus>.Continuation] = [:]
  var lastSinkID: UInt64 = 0
}

/// Records the changes of one tracked substate and restores them.
///
/// Every call of `handle` happens holding the store's dispatch turn, so calls never overlap:
/// a decision read under the lock before `next` still holds after it, except that the store may
/// have detached the middleware meanwhile (`epoch` tells). The lock guards the history against
/// readers on other threads (`status`, `statuses`) and against `detach`. Under it run no user
/// code (no `==`, no option closure, no deinitialiser of a tracked state) and no `next`.
final class UndoRecorder<State: Sendable, Substate: Equatable & Sendable>: UndoEngine {

  let name: String
  let options: UndoOptions
  let read: @Sendable (State) -> Substate
  let embed: @Sendable (MiddlewareContext<State>, Substate) -> State
  /// Passes an action on; made where `State` is known, so that it runs specialised.
  let forward: @Sendable (any Action, Next<State>) throws(DispatchError) -> Void
  /// The types of the ordinary actions seen so far.
  private let ordinary = ActionTypeSet()
  private let book: Locked<UndoBook>

  /// Creates a recorder.
  ///
  /// - Parameters:
  ///   - name: The middleware's name, for errors.
  ///   - options: The limit and the option closures.
  ///   - read: Reads the tracked substate from a state.
  ///   - embed: Builds the state to restore: the current state with the tracked part replaced.
  ///   - forward: Passes an action on to the rest of the chain.
  init(
    name: String,
    options: UndoOptions,
    read: @escaping @Sendable (State) -> Substate,
    embed: @escaping @Sendable (MiddlewareContext<State>, Substate) -> State,
    forward: @escaping @Sendable (any Action, Next<State>) throws(DispatchError) -> Void
  ) {
    self.name = name
    self.options = options
    self.read = read
    self.embed = embed
    self.forward = forward
    self.book = Locked(UndoBook(history: UndoHistory(limit: options.limit)))
  }

  deinit {
    let sinks = book.withLock { book in
      defer { book.sinks = [:] }
      return book.sinks
    }
    for sink in sinks.values { sink.finish() }
  }

  var status: UndoStatus { book.withLock { $0.published } }

  // MARK: Store membership

  func attach(to store: ObjectIdentifier) throws(UndoError) {
    try book.withLock { book throws(UndoError) in
      guard book.store == nil else { throw UndoError.alreadyAttached(name: name) }
      book.store = store
    }
  }

  func detach(from store: ObjectIdentifier) -> Bool {
    let (changed, released) = book.withLock { book in
      guard book.store == store else { return (false, UndoHistory?.none) }
      book.store = nil
      book.epoch &+= 1
      var old = UndoHistory(limit: options.limit)
      swap(&old, &book.history)
      return (Self.publishLocked(&book), old)
    }
    _ = consume released
    return changed
  }

  // MARK: Handling actions

  func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>) throws
    -> Bool
  {
    if !ordinary.contains(ActionTypeSet.key(of: action)) {
      if let command = action as? UndoAction {
        return try perform(command, context: context, next: next)
      }
      if let batch = action as? Batch {
        if Self.containsCommand(batch) { throw UndoError.commandInBatch }
      } else {
        ordinary.insert(typeOf: action)
      }
    }
    let before = read(context.state)
    let start = book.withLock { book -> (epoch: UInt64, grouping: Grouping)? in
      guard book.store != nil else { return nil }
      book.history.noteBaseline(before)
      return (book.epoch, book.history.grouping)
    }
    try forward(action, next)
    guard let start else { return false }
    let after = read(context.state)
    guard before != after, options.filter?(action) ?? true else { return false }

    let key = options.groupBy?(action).map(GroupKey.init)
    let grouping = start.grouping
    let merging: Bool
    if grouping.depth > 0 {
      merging = grouping.groupHasStep
    } else if let key, let open = grouping.openKey {
      merging = key == open
    } else {
      merging = false
    }
    var label: String?
    if !merging {
      label = grouping.depth > 0 ? grouping.groupLabel : nil
      if label == nil { label = options.label?(action) }
    }
    return commit(epoch: start.epoch) { history in
      history.record(after, merging: merging, label: label, key: key)
    }
  }

  private func perform(
    _ command: UndoAction, context: MiddlewareContext<State>, next: Next<State>
  ) throws -> Bool {
    switch command {
    case .undo:
      return try travel(-1, context: context, next: next)
    case .redo:
      return try travel(1, context: context, next: next)
    case .jump(let offset):
      return try travel(offset, context: context, next: next)
    case .clearHistory:
      guard let epoch = currentEpoch() else { return false }
      let present = read(context.state)
      return commit(epoch: epoch) { $0.clear(keeping: present) }
    case .beginGroup(let label):
      guard let epoch = currentEpoch() else { return false }
      return commit(epoch: epoch) { history in
        history.beginGroup(label: label)
        return Released()
      }
    case .endGroup:
      guard let epoch = currentEpoch() else { return false }
      var matched = true
      let changed = commit(epoch: epoch) { history in
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
    let plan = book.withLock { book -> (epoch: UInt64, snapshot: any Sendable)? in
      guard book.store != nil else { return nil }
      book.history.seal()
      guard let destination = book.history.destination(ofJump: offset) else { return nil }
      return (book.epoch, destination.snapshot)
    }
    // The history holds only values this recorder read: the cast cannot fail.
    guard let plan, let snapshot = plan.snapshot as? Substate else { return false }
    // Down the chain, not from its top: middleware before this one see the command itself (and
    // a logger there the change it made); this middleware does not see the replacement, so
    // restoring never records a step.
    try next(ReplaceState(embed(context, snapshot)))
    return commit(epoch: plan.epoch) { history in
      history.jump(offset)
      return Released()
    }
  }

  // MARK: Helpers

  private func currentEpoch() -> UInt64? {
    book.withLock { $0.store == nil ? nil : $0.epoch }
  }

  /// Changes the history unless the store was left since `epoch`, publishes the new status,
  /// and releases what the change dropped after the lock.
  ///
  /// - Returns: Whether the status changed.
  private func commit(
    epoch: UInt64, _ change: (inout UndoHistory) -> Released
  ) -> Bool {
    let (changed, released) = book.withLock { book in
      guard book.epoch == epoch, book.store != nil else { return (false, Released()) }
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
  private static func publishLocked(_ book: inout UndoBook) -> Bool {
    let status = book.history.status
    guard status != book.published else { return false }
    book.published = status
    if !book.sinks.isEmpty {
      for sink in book.sinks.values { sink.yield(status) }
    }
    return true
  }

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
  static func containsCommand(_ batch: Batch) -> Bool {
    batch.actions.contains { action in
      if action is UndoAction { return true }
      if let inner = action as? Batch { return containsCommand(inner) }
      return false
    }
  }
}
