public import Foundation
public import Reduce

/// A replica of a store: it follows the primary's journal and applies each entry through the
/// app's own mutators, and can be promoted to primary when the operator decides so.
///
/// The standby's store has the app's mutators and no middleware: the replicated actions reach
/// the reducers with no side effects (no audit, no thunks, no persistence). Callers observe it
/// (``state``, ``subscribe(initial:_:)``, ``states``) but cannot dispatch to it: ``dispatch(_:)``
/// fails with ``StandbyError/notPrimary``. It starts at the journal's newest snapshot (or
/// another ``JournalStart``), then follows the journal as the primary writes it, verifying the
/// chain; ``lag()`` says how far behind it is.
///
/// ```swift
/// let standby = try StandbyStore(
///   initialState: Ledger(), mutators: [balances], journal: FileJournal(path: "ledger.log"),
///   actions: ReplayableActions([LedgerAction.self]))
/// // … the primary died, and the operator decided to fail over:
/// let store = try await standby.promote(appendingTo: "ledger.log")
/// ```
///
/// ``promote(middleware:journal:)`` stops following, applies every entry the journal holds,
/// adds the app's middleware and an ``AuditTrail`` that continues the chain at the next `seq`,
/// and returns the store, now a primary. Promotion never happens by itself: deciding that the
/// primary is dead is the operator's call, as in PostgreSQL's own failover. What keeps two
/// primaries from both appending is the journal's fencing: a file's lock (`flock`), or a
/// database's key on `(stream, seq)`.
///
/// The standby follows on a thread of its own (its entries are applied there, and its
/// observers called there), so that code that blocks the cooperative pool does not hold it
/// back. If following fails (the journal does not verify, an entry does not decode or is refused
/// by the reducers), the standby stops where it was: ``failure`` says why, and
/// ``waitUntilApplied(through:)`` throws it.
public final class StandbyStore<State: Sendable>: Sendable {
  private enum Phase {
    case following
    case promoting
    case promoted
    case stopped(StandbyError)
  }

  /// Where following stopped: the reader, whether the next entry applied is the first, and an
  /// entry read but not applied because the task was cancelled.
  private struct Progress: Sendable {
    var reader: JournalReader<AnyJournalSource>
    var first: Bool
    var pending: JournalEntry?
  }

  private struct Status {
    var phase = Phase.following
    var position: JournalPosition?
    var waiters: [UInt64: (target: Int, continuation: CheckedContinuation<Void, any Error>)] = [:]
    var cancelledWaiters: Set<UInt64> = []
    var nextWaiter: UInt64 = 0
    var task: Task<Progress?, Never>?
  }

  private let store: Store<State>
  private let source: AnyJournalSource
  private let actions: ReplayableActions
  private let start: JournalStart
  private let pollTimeout: Duration
  private let now: @Sendable () -> Date
  private let status = Locked(Status())
  /// The thread the standby follows its journal on.
  private let executor = ThreadExecutor(name: "StandbyStore")

  /// Creates a standby and starts following the journal.
  ///
  /// - Parameters:
  ///   - initialState: The app's initial state (replaced by the snapshot the standby starts
  ///     at, if any); with ``JournalStart/after(_:)``, the state as of that position (a
  ///     standby that restarts from a state it saved).
  ///   - mutators: The app's mutators: the same as the primary's.
  ///   - journal: The primary's journal.
  ///   - actions: The action types the journal holds.
  ///   - start: Where to start; the newest snapshot by default.
  ///   - key: The checkpoints' key, to check them as they come.
  ///   - pollTimeout: The longest one wait for new lines lasts before the journal is asked
  ///     again.
  ///   - now: The time, for ``lag()``.
  /// - Throws: A `RegistrationError` when the mutators cannot be registered.
  public init<Source: JournalSource>(
    initialState: State, mutators: [Mutator<State>], journal: Source,
    actions: ReplayableActions, start: JournalStart = .newestSnapshot,
    key: AuditCheckpoints.Key? = nil, pollTimeout: Duration = .seconds(1),
    now: @escaping @Sendable () -> Date = { Date() }
  ) throws(RegistrationError) {
    self.store = try Store(initialState: initialState, mutators: mutators)
    self.source = AnyJournalSource(journal)
    self.actions = actions
    self.start = start
    self.pollTimeout = pollTimeout
    self.now = now
    if case .after(let position) = start {
      status.withLock { $0.position = position }
    }
    follow(Progress(reader: JournalReader(source, from: start, key: key), first: true))
  }

  deinit {
    status.withLock { $0.task }?.cancel()
    executor.stop()
  }

  // MARK: Observing

  /// The replicated state now.
  public var state: State { store.state }

  /// The position of the last entry applied (or read past: checkpoints, later snapshots); nil
  /// before the first.
  public var position: JournalPosition? { status.withLock { $0.position } }

  /// Why following stopped, when it failed; nil while it goes on, and after a promotion.
  public var failure: StandbyError? {
    status.withLock { status in
      if case .stopped(let error) = status.phase { return error }
      return nil
    }
  }

  /// Observes the replicated state: at once, then after every applied entry that changed it.
  ///
  /// - Parameters:
  ///   - initial: Whether the observer is called at once with the current state.
  ///   - observer: Called with each state.
  /// - Returns: The subscription; the observer stops when it is cancelled or deinitialised.
  public func subscribe(initial: Bool = true, _ observer: @escaping @Sendable (State) -> Void)
    -> Subscription
  {
    store.subscribe(initial: initial, observer)
  }

  /// Observes one value of the replicated state.
  ///
  /// - Parameters:
  ///   - keyPath: The value's path.
  ///   - initial: Whether the observer is called at once with the current value.
  ///   - observer: Called with each new value.
  /// - Returns: The subscription.
  public func subscribe<Value: Equatable & Sendable>(
    to keyPath: KeyPath<State, Value> & Sendable, initial: Bool = true,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    store.subscribe(to: keyPath, initial: initial, observer)
  }

  /// Observes every applied change with its action and the states before and after.
  ///
  /// - Parameter observer: Called with each change.
  /// - Returns: The subscription.
  public func subscribeToChanges(_ observer: @escaping @Sendable (StateChange<State>) -> Void)
    -> Subscription
  {
    store.subscribeToChanges(observer)
  }

  /// The replicated state as an async sequence: the current state, then each new one.
  public var states: StateSequence<State> { store.states }

  /// One value of the replicated state as an async sequence.
  ///
  /// - Parameter keyPath: The value's path.
  /// - Returns: The sequence.
  public func states<Value: Equatable & Sendable>(
    of keyPath: KeyPath<State, Value> & Sendable
  ) -> StateSequence<Value> {
    store.states(of: keyPath)
  }

  /// Refuses the action: a standby changes only by following its primary's journal.
  ///
  /// - Parameter action: The action, which is not dispatched.
  /// - Returns: ``StandbyError/notPrimary``, or ``StandbyError/promoted`` once the standby
  ///   was promoted (dispatch to the store ``promote(middleware:journal:)`` returned).
  public func dispatch(_ action: some Action) -> Result<State, StandbyError> {
    status.withLock { status in
      if case .promoted = status.phase { return .failure(.promoted) }
      return .failure(.notPrimary)
    }
  }

  // MARK: Lag

  /// How far behind the journal the standby is.
  ///
  /// - Returns: The entries the journal holds that the standby has not applied, and how long
  ///   ago the first of them was written (zero when there is none).
  /// - Throws: ``StandbyError/journal(_:)`` when the journal cannot be read.
  public func lag() async throws(StandbyError) -> StandbyLag {
    let applied = position?.sequence ?? 0
    do {
      let last = try await source.lastSequence()
      guard last > applied else { return StandbyLag(entries: 0, time: .zero) }
      let next = try await source.lines(from: applied + 1, limit: 1).first
      var time = Duration.zero
      if let next, let value = try? JSONParser.parse(next.bytes),
        let stamp = value["ts"]?.stringValue, let written = Timestamp.parse(stamp)
      {
        let seconds = now().timeIntervalSince(written)
        time = seconds > 0 ? .nanoseconds(Int64(seconds * 1e9)) : .zero
      }
      return StandbyLag(entries: last - applied, time: time)
    } catch {
      throw .journal(.sourceFailed(reason: "\(error)"))
    }
  }

  /// Waits until the standby has applied the entry with `seq` `sequence` (or read past it).
  ///
  /// - Parameter sequence: The `seq` to wait for.
  /// - Throws: The ``failure`` when following stopped before it; `CancellationError` when
  ///   the task is cancelled.
  public func waitUntilApplied(through sequence: Int) async throws {
    let id = status.withLock { status in
      status.nextWaiter += 1
      return status.nextWaiter
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        let outcome = status.withLock { status -> Result<Void, any Error>? in
          if status.cancelledWaiters.remove(id) != nil { return .failure(CancellationError()) }
          if (status.position?.sequence ?? 0) >= sequence { return .success(()) }
          switch status.phase {
          case .stopped(let error): return .failure(error)
          case .promoted: return .failure(StandbyError.promoted)
          case .following, .promoting:
            status.waiters[id] = (sequence, continuation)
            return nil
          }
        }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      let continuation = status.withLock { status in
        guard let waiter = status.waiters.removeValue(forKey: id) else {
          status.cancelledWaiters.insert(id)
          return CheckedContinuation<Void, any Error>?.none
        }
        return waiter.continuation
      }
      continuation?.resume(throwing: CancellationError())
    }
  }

  // MARK: Promotion

  /// Stops following, applies every entry the journal holds, and makes the standby's store a
  /// primary: adds the app's middleware and the journal's writer, and returns the store.
  ///
  /// `journal` makes the middleware that records the store's changes from now on, continuing
  /// the chain after the position it is given: usually an ``AuditTrail`` whose sink continues
  /// the journal (for a file, ``promote(appendingTo:durability:checkpoints:middleware:name:)``
  /// does it). It goes last in the chain, after `middleware`. If it throws, or a middleware is
  /// refused, the standby takes them out again and goes on following.
  ///
  /// - Parameters:
  ///   - middleware: The app's middleware, outermost first.
  ///   - journal: Makes the journal's writer, given the last position applied.
  /// - Returns: The store, now a primary: dispatch to it.
  /// - Throws: ``StandbyError/stopped(_:)`` (following had failed, or failed while catching
  ///   up), ``StandbyError/promoted`` (done already), ``StandbyError/promotionFailed(reason:)``.
  public func promote(
    middleware: [any Middleware<State>] = [],
    journal: (JournalPosition) throws -> any Middleware<State>
  ) async throws(StandbyError) -> Store<State> {
    let task = try status.withLock { status throws(StandbyError) in
      switch status.phase {
      case .stopped(let error): throw error
      case .promoted: throw .promoted
      case .promoting: throw .promotionFailed(reason: "a promotion is already running")
      case .following:
        status.phase = .promoting
        return status.task
      }
    }
    task?.cancel()
    guard var progress = await task?.value else {
      throw failure ?? .promotionFailed(reason: "the standby was not following")
    }
    do throws(StandbyError) {
      if let entry = progress.pending {
        try apply(entry, first: progress.first)
        progress.first = false
        progress.pending = nil
      }
      // Everything the journal holds now: the primary is gone, or fenced off.
      while let entry = try await Self.next(&progress.reader) {
        try apply(entry, first: progress.first)
        progress.first = false
      }
    } catch {
      stop(error)
      throw error
    }
    let reader = progress.reader
    let position = reader.position ?? .start
    var added: [String] = []
    do {
      for item in middleware + [try journal(position)] {
        try store.use(item)
        added.append(item.name)
      }
    } catch {
      for name in added { store.removeMiddleware(named: name) }
      status.withLock { $0.phase = .following }
      follow(progress)
      throw .promotionFailed(reason: "\(error)")
    }
    status.withLock { $0.phase = .promoted }
    resumeWaiters()
    return store
  }

  /// Promotes the standby of a file journal: the new primary appends to the log file.
  ///
  /// The file must end at the entry the standby applied last (its lock, `flock`, is free once
  /// the old primary is dead; while it lives, promotion fails with
  /// ``StandbyError/promotionFailed(reason:)`` and the standby goes on following).
  ///
  /// - Parameters:
  ///   - path: The log file: the one the standby followed.
  ///   - durability: When entries reach the disk.
  ///   - checkpoints: Keyed checkpoints, as the old primary wrote them.
  ///   - middleware: The app's middleware, outermost first.
  ///   - name: The audit trail's name.
  /// - Returns: The store, now a primary.
  /// - Throws: As ``promote(middleware:journal:)``.
  public func promote(
    appendingTo path: String, durability: FileLogSink.Durability = .everyEntry,
    checkpoints: AuditCheckpoints? = nil, middleware: [any Middleware<State>] = [],
    name: String = "AuditTrail"
  ) async throws(StandbyError) -> Store<State> {
    let sink = FileLogSink(
      path: path, durability: durability, chained: true, checkpoints: checkpoints)
    // The file's lock is taken before catching up: while the old primary lives, it holds the
    // lock and promotion fails at once, instead of chasing a log that keeps growing. Once it is
    // held, nobody else writes, and the position read now is where the file ends.
    do {
      _ = try sink.openedPosition()
    } catch {
      throw .promotionFailed(reason: "\(error)")
    }
    return try await promote(middleware: middleware) { position in
      let found = try sink.openedPosition()
      guard found == position else {
        throw StandbyError.diverged(applied: position, journal: found)
      }
      return AuditTrail<State>(name: name, sink: sink)
    }
  }

  /// Stops following; the state stays as it is.
  ///
  /// Nothing happens after a promotion.
  public func stop() {
    let task = status.withLock { status -> Task<Progress?, Never>? in
      guard case .following = status.phase else { return nil }
      return status.task
    }
    task?.cancel()
  }

  // MARK: Following

  private func follow(_ progress: Progress) {
    // The task runs on the standby's own thread, so that code blocking the cooperative pool
    // does not hold it back. It holds the standby only while it handles a step, so that a
    // standby nobody keeps goes away (and its deinit cancels the task).
    let executor = executor
    executor.taskStarted()
    let task = Task(executorPreference: executor) { [weak self] () -> Progress? in
      defer { executor.taskEnded() }
      var progress = progress
      while !Task.isCancelled {
        guard let standby = self else { return nil }
        do throws(StandbyError) {
          if let entry = try await Self.next(&progress.reader) {
            // Stopped meanwhile: the entry waits for the next step (a promotion).
            if Task.isCancelled {
              progress.pending = entry
              return progress
            }
            try standby.apply(entry, first: progress.first)
            progress.first = false
          } else {
            do throws(JournalError) {
              try await progress.reader.waitForMore(timeout: standby.pollTimeout)
            } catch {
              throw .stopped(.journal(error))
            }
          }
        } catch {
          // A source may fail a call because the task was cancelled: the reader is still
          // before the line it could not read.
          if Task.isCancelled { return progress }
          standby.stop(error)
          return nil
        }
      }
      return progress
    }
    status.withLock { $0.task = task }
  }

  private static func next(_ reader: inout JournalReader<AnyJournalSource>)
    async throws(StandbyError) -> JournalEntry?
  {
    do {
      return try await reader.next()
    } catch {
      throw .stopped(.journal(error))
    }
  }

  /// Applies one entry: its action through the mutators, or the snapshot it starts at.
  private func apply(_ entry: JournalEntry, first: Bool) throws(StandbyError) {
    var isStart = false
    if first {
      if case .after = start {
      } else if entry.kind == .snapshot {
        isStart = true
      } else if entry.sequence > 1 {
        throw .stopped(.startsMidLog(firstSequence: entry.sequence))
      }
    }
    let action: (any Action)?
    do {
      action = try AuditLog.action(
        of: entry.value, line: entry.sequence, actions: actions, State.self, snapshots: isStart)
    } catch {
      throw .stopped(error)
    }
    if let action, case .failure(let error) = store.dispatch(action) {
      throw .stopped(.dispatchFailed(line: entry.sequence, error: error))
    }
    let ready = status.withLock { status in
      status.position = entry.position
      return Self.takeWaiters(&status) { $0 <= entry.sequence }
    }
    for continuation in ready { continuation.resume() }
  }

  private func stop(_ error: StandbyError) {
    status.withLock { status in
      if case .promoted = status.phase { return }
      status.phase = .stopped(error)
    }
    resumeWaiters()
  }

  /// Resumes every waiter: after a failure or a promotion, with the reason.
  private func resumeWaiters() {
    let (waiting, error) = status.withLock { status in
      let error: StandbyError? =
        switch status.phase {
        case .stopped(let error): error
        case .promoted: .promoted
        case .following, .promoting: nil
        }
      return (Self.takeWaiters(&status) { _ in true }, error)
    }
    for continuation in waiting {
      if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }
  }

  private static func takeWaiters(_ status: inout Status, where ready: (Int) -> Bool)
    -> [CheckedContinuation<Void, any Error>]
  {
    var continuations: [CheckedContinuation<Void, any Error>] = []
    for (id, waiter) in status.waiters where ready(waiter.target) {
      continuations.append(waiter.continuation)
      status.waiters[id] = nil
    }
    return continuations
  }
}

/// How far a ``StandbyStore`` is behind its journal.
public struct StandbyLag: Sendable, Hashable {
  /// The entries the journal holds that the standby has not applied.
  public var entries: Int
  /// How long ago the first entry not applied was written (its `ts`); zero when there is none.
  public var time: Duration

  /// Creates a lag.
  ///
  /// - Parameters:
  ///   - entries: The entries not applied.
  ///   - time: How long ago the first of them was written.
  public init(entries: Int, time: Duration) {
    self.entries = entries
    self.time = time
  }
}

/// Why a ``StandbyStore`` refused a call, or stopped.
public enum StandbyError: Error, Sendable, CustomStringConvertible {
  /// A standby cannot be dispatched to: it changes only by following its primary.
  case notPrimary
  /// The standby was promoted: dispatch to the store its promotion returned.
  case promoted
  /// Following stopped: the journal does not verify, or an entry could not be applied.
  case stopped(AuditReplayError)
  /// The journal does not end where the standby stopped applying it: someone else wrote to it.
  case diverged(applied: JournalPosition, journal: JournalPosition)
  /// The journal could not be read.
  case journal(JournalError)
  /// Promotion failed, for the reason given; the standby goes on following.
  case promotionFailed(reason: String)

  /// What went wrong.
  public var description: String {
    switch self {
    case .notPrimary: "this store is a standby: it follows its primary and takes no dispatch"
    case .promoted: "this standby was promoted: dispatch to the store its promotion returned"
    case .stopped(let error): "the standby stopped following: \(error)"
    case .diverged(let applied, let journal):
      "the journal ends at \(journal), not at \(applied), the last entry the standby applied: someone else wrote to it"
    case .journal(let error): "\(error)"
    case .promotionFailed(let reason): "the promotion failed: \(reason)"
    }
  }
}

/// Any ``JournalSource``, for code that keeps one without knowing its type.
struct AnyJournalSource: JournalSource {
  let base: any JournalSource

  init(_ base: any JournalSource) {
    self.base = base
  }

  func lines(from sequence: Int, limit: Int) async throws -> [JournalLine] {
    try await base.lines(from: sequence, limit: limit)
  }

  func newestSnapshot(through sequence: Int?) async throws -> Int? {
    try await base.newestSnapshot(through: sequence)
  }

  func lastSequence() async throws -> Int {
    try await base.lastSequence()
  }

  func waitForLines(after sequence: Int, timeout: Duration) async throws {
    try await base.waitForLines(after: sequence, timeout: timeout)
  }
}
