#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

// Group commit: writers append under the lock and return; callers that need their entries on
// disk wait here, and one `fsync` serves every entry written before it started.
//
// The leader/follower protocol, decided under the lock and acted on after it:
//
// - A caller's target is the end of the stream when it calls (`written`). If `durable` has
//   reached it, its entries are on disk already: it returns at once. Otherwise it joins the
//   waiting callers (`group.targets`).
// - If a flush is running, the caller waits for it to end, and decides again.
// - Otherwise it leads: it marks the flush running, takes the current end of the stream as what
//   it covers, releases the lock, calls `fsync`, retakes the lock, advances `durable`, and
//   wakes the waiters (`Locked.wakeAll()`). Entries written while it flushes wait for the next
//   leader.
// - But a flush waits for its group first. The callers that waited when the last flush ended
//   (`group.expected`) are the writers in flight: those it released write their next entries
//   meanwhile. A leader that finds fewer of them waiting gathers: it waits until they have all
//   joined, or twice the last flush's duration has passed (at most `longestGathering`), and
//   flushes. A caller whose arrival completes the group flushes at once, for the gatherer too,
//   which sleeps meanwhile: it wakes at its deadline or when that flush ends. A caller that
//   waited alone for the last flush, the only writer, never gathers. Without this, the writers a
//   flush releases write their next entries while the next flush already runs, and flushes
//   alternate between covering k and n - k of n writers; gathering until the stream stops
//   growing covered 5.5 of 8 on average.
//
// A failed `fsync` stops the writer (`failure`): the leader and every caller whose entries are
// not yet durable get `LogSinkError.syncFailed`, and so does every later write. After a failed
// `fsync` the kernel may have dropped the dirty pages and marked them clean, so a later
// `fsync` that succeeds proves nothing about them (PostgreSQL's rule since 2018: treat it as
// fatal). The log is whole up to `durable`; what follows cannot be trusted.

/// The callers waiting for a flush, and how many of them the next flush waits for.
struct GroupCommit {
  /// The target of each caller in ``FileWriter/waitUntilDurable()``, whether a flush that
  /// ended covered it or not (such a caller has not yet returned).
  var targets: [Int64] = []
  /// Whether a caller waits for the group to be complete before it flushes.
  var gathering = false
  /// How many callers the next flush waits for: as many as waited when the last one ended.
  var expected = 1
  /// How long the next flush waits at most for its group.
  var budget = Duration.zero
  /// How many flushes waited for their group.
  var gatherings = 0

  /// Whether every caller the next flush waits for has joined: the callers that no flush has
  /// covered yet number ``expected``.
  func isComplete(durable: Int64) -> Bool {
    targets.count { $0 > durable } >= expected
  }

  /// Forgets a caller that returns or throws.
  mutating func leave(_ target: Int64) {
    if let index = targets.firstIndex(of: target) { targets.remove(at: index) }
  }
}

extension FileWriter {
  /// The longest a flush waits for its group, however long the last flush took.
  ///
  /// A flush waits for its group at most twice as long as the last flush took, and no longer
  /// than this. Measured (8 writers on 2 busy cores, a flush of about 150 µs): the group takes
  /// 130 to 200 µs to write its entries; with as long as the last flush, 1 flush in 5 gave up
  /// on it in some runs, with twice as long, 1 in 100.
  static let longestGathering = Duration.milliseconds(1)

  /// Returns once every byte written before the call is on disk, flushing if needed.
  ///
  /// - Throws: ``LogSinkError/syncFailed(path:reason:)`` when the flush that should cover the
  ///   caller's entries failed, or the writer's earlier failure; a failure found by
  ///   ``checkFile(_:lookingUpPath:askingLinks:)`` (the file was deleted or replaced).
  func waitUntilDurable() throws(LogSinkError) {
    let target = state.withLock { state -> Int64? in
      guard state.durable < state.written, state.descriptor >= 0 else { return nil }
      state.group.targets.append(state.written)
      return state.written
    }
    guard let target else { return }
    try commit(upTo: target)
  }

  /// Flushes where no one can be told of a failure (a detach): a failure stops the writer,
  /// and the next write reports it.
  func flushQuietly() {
    do {
      try waitUntilDurable()
    } catch {
      // Recorded as the writer's failure, which every later write throws.
    }
  }

  private enum Step {
    /// The caller's entries are on disk, or the file is closed.
    case done
    /// Another caller flushes, for this one too: wait for it.
    case wait
    /// Wait for the group until the deadline, then flush; `flushes` is ``State/syncs`` when the
    /// wait began.
    case gather(until: ContinuousClock.Instant, flushes: Int)
    /// Flush up to `covering`.
    case lead(descriptor: Int32, covering: Int64)
  }

  /// Whether a caller whose entries end at `target` is still to be served: they are not on
  /// disk, and the writer neither failed nor closed (``hasEnded(_:target:)`` is false).
  private static func isPending(_ state: State, target: Int64) -> Bool {
    state.durable < target && state.failure == nil && state.descriptor >= 0
  }

  private func commit(upTo target: Int64) throws(LogSinkError) {
    let isReady = { (state: State) in
      !Self.isPending(state, target: target)
        || !(state.flushing
          || (state.group.gathering && !state.group.isComplete(durable: state.durable)))
    }
    while true {
      var step: Step
      do {
        step = try state.withLock(when: isReady) { state in
          Result { () throws(LogSinkError) in try decide(&state, target: target) }
        }.get()
      } catch {
        // A caller that completed a group and could not flush ended the gathering.
        state.wakeAll()
        throw error
      }
      if case .gather(let deadline, let flushes) = step {
        step = try gather(upTo: target, until: deadline, flushes: flushes)
      }
      switch step {
      case .done: return
      case .wait, .gather: continue
      case .lead(let descriptor, let covering):
        try flush(descriptor, covering: covering, target: target)
        return
      }
    }
  }

  /// What a caller that need not wait does: return, flush now, or gather first.
  private func decide(_ state: inout State, target: Int64) throws(LogSinkError) -> Step {
    if try hasEnded(&state, target: target) { return .done }
    let group = state.group
    // Gathering here means that this caller completes the group.
    if group.gathering || group.expected <= 1 || group.isComplete(durable: state.durable) {
      return try claim(&state, target: target)
    }
    state.group.gathering = true
    state.group.gatherings += 1
    return .gather(until: .now + group.budget, flushes: state.syncs)
  }

  /// Waits for the writers in flight until the group is complete or `deadline` has passed,
  /// then flushes; or waits for the flush of a caller that completed the group.
  ///
  /// The caller that completes the group flushes, without waking the gatherer; the gatherer
  /// wakes at the deadline, or when that flush ends. `flushes` tells whether a flush began
  /// since the gathering did: then the gathering is over, and `gathering` may be another
  /// caller's.
  private func gather(upTo target: Int64, until deadline: ContinuousClock.Instant, flushes: Int)
    throws(LogSinkError) -> Step
  {
    let isReady = { (state: State) in
      !Self.isPending(state, target: target) || state.syncs != flushes
        || state.group.isComplete(durable: state.durable)
    }
    let outcome = state.withLock(when: isReady, orUntil: deadline) { state in
      Result { () throws(LogSinkError) -> Step in
        guard state.syncs == flushes else { return .wait }
        do throws(LogSinkError) {
          if try hasEnded(&state, target: target) {
            state.group.gathering = false
            return .done
          }
        } catch {
          state.group.gathering = false
          throw error
        }
        return try claim(&state, target: target)
      }
    }
    switch outcome {
    case .success(.lead), .success(.wait): break
    // The gathering ended with no flush: wake the callers that waited for it.
    default: state.wakeAll()
    }
    return try outcome.get()
  }

  /// Whether the caller is done: its entries are on disk, or the file is closed.
  ///
  /// A caller that is done, or throws the writer's failure, leaves the group.
  private func hasEnded(_ state: inout State, target: Int64) throws(LogSinkError) -> Bool {
    if state.durable >= target || state.descriptor < 0 {
      state.group.leave(target)
      return true
    }
    if let failure = state.failure {
      state.group.leave(target)
      throw failure
    }
    return false
  }

  /// Makes the caller the leader of a flush of everything written so far, once the file is
  /// checked.
  ///
  /// If the check fails, a gathering ends: the caller wakes those who waited for it once it has
  /// released the lock.
  private func claim(_ state: inout State, target: Int64) throws(LogSinkError) -> Step {
    do throws(LogSinkError) {
      try checkFile(&state)
    } catch {
      state.group.leave(target)
      state.group.gathering = false
      throw error
    }
    state.flushing = true
    state.group.gathering = false
    state.syncs += 1
    return .lead(descriptor: state.descriptor, covering: state.written)
  }

  /// Flushes, records the outcome, and wakes the waiters.
  private func flush(_ descriptor: Int32, covering: Int64, target: Int64) throws(LogSinkError) {
    let start = ContinuousClock.now
    let status = synchronize(descriptor)
    let duration = start.duration(to: .now)
    defer { state.wakeAll() }
    try state.withLock { state throws(LogSinkError) in
      state.flushing = false
      state.group.expected = state.group.targets.count
      state.group.budget = min(duration * 2, Self.longestGathering)
      state.group.leave(target)
      guard status == 0 else {
        let failure = LogSinkError.syncFailed(
          path: path, reason: String(cString: strerror(status)))
        if state.failure == nil { state.failure = failure }
        throw failure
      }
      state.durable = max(state.durable, covering)
    }
  }
}
