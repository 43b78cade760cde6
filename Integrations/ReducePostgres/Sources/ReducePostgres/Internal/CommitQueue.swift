import ReduceLogging

/// The group commit of a journal: numbers and chains the lines in the order they are appended,
/// and commits them in groups, one group at a time, led by one of the callers waiting for them.
///
/// It knows nothing of PostgreSQL: `commit` stores a group or throws. The protocol:
///
/// - ``append(_:)`` (in the store's turn) asks `admit` whether a line may be appended (the
///   writer's lease), gives the line the next `seq` and the hash of the line before it, and
///   queues it. Nothing is sent.
/// - ``waitUntilCommitted()`` (after the turn) returns once every line appended before the call
///   is committed. If a commit is running, it waits for it and decides again; otherwise the
///   caller leads: it takes every queued line, commits them as one group, and wakes the others.
/// - A commit that fails for a reason that may pass (``PostgresJournalError/isFinal`` false)
///   puts its lines back at the head of the queue; the callers it covered throw its error, and
///   the next ``append(_:)`` first commits them again (throwing, and so refusing the new line,
///   while that fails). A final failure empties the queue and every later call throws it.
///
/// Decided under the lock, acted on after it: the lock is never held while committing.
final class CommitQueue: Sendable {
  struct State {
    /// Numbers and links the lines (and adds keyed checkpoints when due).
    var chain: JournalChain
    /// Lines appended and not yet being committed, or put back after a failed commit.
    var queued: [JournalRow] = []
    /// The last `seq` known to be committed.
    var committed: Int
    /// Whether a caller is committing a group.
    var leading = false
    /// How many commits ended, well or not.
    var attempts = 0
    /// Whether a leader waits for its group: an append then wakes it.
    var gathering = false
    /// How many lines the last commit held (0 after a failure), and how long it took.
    var lastGroupSize = 0
    var lastCommitDuration = Duration.zero
    /// The last commit's failure, until a commit succeeds: the last `seq` it covered and why.
    var failure: (through: Int, error: PostgresJournalError)?
    /// A final failure: nothing more is accepted.
    var stopped: PostgresJournalError?
    /// How many groups were committed, and how many lines they held (for tests and numbers).
    var groups = 0
    var groupedLines = 0
  }

  private let state: Monitor<State>
  private let commit: @Sendable ([JournalRow]) throws(PostgresJournalError) -> Void
  private let admit: @Sendable () throws(PostgresJournalError) -> Void

  /// Creates a queue that continues a chain.
  ///
  /// - Parameters:
  ///   - chain: The chain, positioned after the last stored line.
  ///   - admit: Throws when no line may be appended now (the writer's lease lapsed, say); it
  ///     runs in ``append(_:)``, holding the queue's lock, and must not block.
  ///   - commit: Stores a group of lines in one transaction, or throws.
  init(
    chain: JournalChain,
    admit: @escaping @Sendable () throws(PostgresJournalError) -> Void = {},
    commit: @escaping @Sendable ([JournalRow]) throws(PostgresJournalError) -> Void
  ) {
    state = Monitor(State(chain: chain, committed: chain.position.sequence))
    self.admit = admit
    self.commit = commit
  }

  /// Numbers, chains and queues the line of a record (and a checkpoint, when one is due).
  ///
  /// - Parameter record: The entry.
  /// - Returns: The `seq` of the last line queued.
  /// - Throws: The queue's final failure, the failure of committing again the lines a failed
  ///   commit left, or the refusal of `admit`: the record is then not queued.
  func append(_ record: LogRecord) throws(PostgresJournalError) -> Int {
    if state.withLock({ $0.failure != nil && $0.stopped == nil }) {
      // A change may follow only recorded ones: commit the lines a failed commit left first.
      try wait(retrying: true)
    }
    let (sequence, gathering) = try state.withLock {
      state throws(PostgresJournalError) -> (Int, Bool) in
      if let stopped = state.stopped { throw stopped }
      if let failure = state.failure { throw failure.error }
      try admit()
      for line in state.chain.append(record) {
        state.queued.append(
          JournalRow(
            sequence: line.sequence, bytes: line.bytes, isSnapshot: line.kind == .snapshot))
      }
      return (state.chain.position.sequence, state.gathering)
    }
    // A leader waits for its group: this line may complete it.
    if gathering { state.broadcast() }
    return sequence
  }

  /// Waits until every line appended before the call is committed, leading a commit if none
  /// is running.
  ///
  /// - Throws: The failure of the commit that covered the caller's lines, or the final
  ///   failure.
  func waitUntilCommitted() throws(PostgresJournalError) {
    try wait(retrying: false)
  }

  /// How many groups were committed, and how many lines they held in all.
  var groupCounts: (groups: Int, lines: Int) {
    state.withLock { ($0.groups, $0.groupedLines) }
  }

  /// The last `seq` known to be committed.
  var committedSequence: Int { state.withLock { $0.committed } }

  /// Waits for the lines appended before the call; with `retrying`, leads one more commit even
  /// when the last one failed for them.
  private func wait(retrying: Bool) throws(PostgresJournalError) {
    let (target, start) = state.withLock { ($0.chain.position.sequence, $0.attempts) }
    while true {
      let mustWait: (State) -> Bool = { $0.leading && $0.committed < target }
      let step = state.withLock(waitingWhile: mustWait, until: nil) { state -> Step in
        if state.committed >= target { return .done }
        if let stopped = state.stopped { return .fail(stopped) }
        if let failure = state.failure, failure.through >= target,
          !retrying || state.attempts > start
        {
          return .fail(failure.error)
        }
        state.leading = true
        return .lead
      }
      switch step {
      case .done: return
      case .fail(let error): throw error
      case .lead: try lead(gather())
      }
    }
  }

  private enum Step {
    case done
    case fail(PostgresJournalError)
    case lead
  }

  /// Takes the queued lines for the leader's commit, first waiting for its group.
  ///
  /// The dispatchers the last commit released are the writers in flight: they queue their next
  /// lines a few microseconds later. A leader that finds fewer lines queued than the last group
  /// held waits for them, for at most the last commit's duration and never more than 1 ms
  /// (the append that completes the group wakes it at once). Without the wait, the released
  /// writers would queue while the next commit already runs, and commits would alternate
  /// between covering k and n − k of n writers. A writer that was alone never waits.
  private func gather() -> [JournalRow] {
    let (wanted, limit) = state.withLock { state in
      state.gathering = true
      return (state.lastGroupSize, min(state.lastCommitDuration, .milliseconds(1)))
    }
    let deadline = ContinuousClock.now + limit
    let mustWait: (State) -> Bool = { $0.queued.count < wanted }
    return state.withLock(waitingWhile: mustWait, until: deadline) { state in
      state.gathering = false
      let group = state.queued
      state.queued = []
      return group
    }
  }

  /// Commits a group, with the lock released, and publishes the outcome.
  private func lead(_ group: [JournalRow]) throws(PostgresJournalError) {
    var outcome: PostgresJournalError?
    let start = ContinuousClock.now
    do {
      try commit(group)
    } catch {
      outcome = error
    }
    let duration = start.duration(to: .now)
    state.withLock { state in
      state.leading = false
      state.lastCommitDuration = duration
      state.lastGroupSize = outcome == nil ? group.count : 0
      state.attempts += 1
      let last = group.last?.sequence ?? state.committed
      switch outcome {
      case nil:
        state.committed = max(state.committed, last)
        state.failure = nil
        state.groups += 1
        state.groupedLines += group.count
      case let error? where error.isFinal:
        state.stopped = error
        state.queued = []
      case let error?:
        state.queued = group + state.queued
        state.failure = (last, error)
      }
    }
    state.broadcast()
    if let outcome { throw outcome }
  }

  /// Why the queue stopped, if it did.
  var stopReason: PostgresJournalError? { state.withLock { $0.stopped } }

  /// Stops the queue: every later call throws `error`.
  func stop(_ error: PostgresJournalError) {
    state.withLock { state in
      if state.stopped == nil { state.stopped = error }
      state.queued = []
    }
    state.broadcast()
  }
}
