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
//   reached it, its entries are on disk already: it returns at once.
// - If a flush is running, the caller waits for it to end, and decides again.
// - Otherwise it leads: it takes the current end of the stream as what it covers, marks the
//   flush running, releases the lock, calls `fsync`, retakes the lock, advances `durable`,
//   and wakes the waiters. Entries written while it flushes wait for the next leader.
//
// A failed `fsync` stops the writer (`failure`): the leader and every caller whose entries are
// not yet durable get `LogSinkError.syncFailed`, and so does every later write. After a failed
// `fsync` the kernel may have dropped the dirty pages and marked them clean, so a later
// `fsync` that succeeds proves nothing about them (PostgreSQL's rule since 2018: treat it as
// fatal). The log is whole up to `durable`; what follows cannot be trusted.

extension FileWriter {
  /// Returns once every byte written before the call is on disk, flushing if needed.
  ///
  /// - Throws: ``LogSinkError/syncFailed(path:reason:)`` when the flush that should cover the
  ///   caller's entries failed, or the writer's earlier failure; a failure found by
  ///   ``checkFile(_:)`` (the file was deleted or replaced).
  func waitUntilDurable() throws(LogSinkError) {
    let target = state.withLock { $0.written }
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
    case done
    case lead(descriptor: Int32)
  }

  /// How many times a leader gives the processor to other threads while the stream grows,
  /// before it flushes.
  static var gatheringRounds: Int { 16 }

  private func commit(upTo target: Int64) throws(LogSinkError) {
    let mustWait = { (state: State) in state.flushing && state.durable < target }
    let step = try state.withLock(waitingWhile: mustWait) { state throws(LogSinkError) -> Step in
      if state.durable >= target || state.descriptor < 0 { return .done }
      if let failure = state.failure { throw failure }
      try checkFile(&state)
      state.flushing = true
      state.syncs += 1
      return .lead(descriptor: state.descriptor)
    }
    guard case .lead(let descriptor) = step else { return }
    let covering = gatherWriters()
    let status = synchronize(descriptor)
    try state.withLock { state throws(LogSinkError) in
      state.flushing = false
      self.state.broadcast()
      guard status == 0 else {
        let failure = LogSinkError.syncFailed(
          path: path, reason: String(cString: strerror(status)))
        if state.failure == nil { state.failure = failure }
        throw failure
      }
      state.durable = max(state.durable, covering)
    }
  }

  /// Lets writers that are about to append do so before a flush starts, and returns the end of
  /// the stream the flush will cover.
  ///
  /// A flush covers what was written before it started, and only one runs at a time. Without
  /// this, the writers a flush releases write their next entries while the next flush already
  /// runs, and have to wait for the one after it: with n writers, flushes alternate between
  /// covering k and n - k entries, n / 2 on average. So the leader gives the processor up, and
  /// looks again, for as long as the stream keeps growing (at most ``gatheringRounds`` times):
  /// a lone writer pays one look, and busy writers fill the flush. PostgreSQL's `commit_delay`
  /// does the same with a fixed sleep; this waits only while entries keep arriving.
  private func gatherWriters() -> Int64 {
    var covering = state.withLock { $0.written }
    for _ in 0..<Self.gatheringRounds {
      sched_yield()
      let written = state.withLock { $0.written }
      if written == covering { break }
      covering = written
    }
    return covering
  }
}
