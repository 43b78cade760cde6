import NIOCore
import PostgresNIO

/// A writer's lease on its stream, as the writer's own clock sees it.
///
/// Every statement that renews the lease (a commit, a renewal, the opening claim) sets
/// `lease_until` to at least `now() + length` by PostgreSQL's clock (never earlier than it
/// was), and PostgreSQL runs it after the writer sent it. So, clocks running at the same rate, the lease PostgreSQL grants ends no earlier than
/// `sent + length` on the writer's clock. The writer counts it as ending `margin` (the commit
/// timeout) sooner: a change made before ``expiry`` has at least `margin` to be committed before
/// PostgreSQL would let another writer take the stream over.
///
/// Decided under the lock; the lock is never held while sending.
final class Lease: Sendable {
  struct State {
    /// When this writer stops accepting changes, unless the lease is renewed.
    var expiry: ContinuousClock.Instant
    /// When a statement that renews the lease was last sent.
    var lastSent: ContinuousClock.Instant
    /// A writer waiting to take the stream over: changes are refused, the lease is not renewed.
    var taker: String?
    /// Whether a background renewal is in flight.
    var renewing = false
  }

  let stream: String
  /// The writer's name.
  let writer: String
  /// The sink's session: made by its `open`, recorded on the stream's row; every renewing
  /// statement checks that it is still the row's.
  let session: String
  /// How long PostgreSQL grants the lease for, from each renewal.
  let length: Duration
  /// How much sooner than PostgreSQL the writer counts the lease as ended: the commit timeout.
  let margin: Duration
  private let state: Monitor<State>

  /// Creates the lease a statement sent at `sent` granted.
  ///
  /// - Parameters:
  ///   - stream: The stream, for errors.
  ///   - writer: The writer's name.
  ///   - session: The sink's session.
  ///   - length: How long PostgreSQL grants the lease for.
  ///   - margin: How much sooner the writer counts it as ended (less than `length`).
  ///   - sent: When the statement that granted it was sent.
  init(
    stream: String, writer: String, session: String, length: Duration, margin: Duration,
    grantedBy sent: ContinuousClock.Instant
  ) {
    self.stream = stream
    self.writer = writer
    self.session = session
    self.length = length
    self.margin = margin
    state = Monitor(State(expiry: sent + length - margin, lastSent: sent))
  }

  /// Who holds the stream, for a renewing statement that found the term or the session no
  /// longer the writer's: `holder` (the row's holder), or another session of this writer.
  func holderDescription(_ holder: String?) -> String {
    guard let holder else { return "another writer" }
    return holder == writer ? Self.otherSession(of: writer) : holder
  }

  /// How an error names another sink (another `open`) of `writer`.
  static func otherSession(of writer: String) -> String {
    "\(writer) (another session of this writer)"
  }

  /// When the writer stops accepting changes unless the lease is renewed first.
  var expiry: ContinuousClock.Instant { state.withLock { $0.expiry } }

  /// Throws unless a change may be made now: the lease runs, and no writer waits to take over.
  ///
  /// - Throws: ``PostgresJournalError/fenced(stream:holder:)`` naming the writer waiting to take
  ///   the stream over; ``PostgresJournalError/leaseExpired(stream:)`` once the lease lapsed.
  func check() throws(PostgresJournalError) {
    let (expiry, taker) = state.withLock { ($0.expiry, $0.taker) }
    if let taker { throw .fenced(stream: stream, holder: taker) }
    guard ContinuousClock.now < expiry else { throw .leaseExpired(stream: stream) }
  }

  /// Records that a renewing statement is being sent, and returns when.
  func sending() -> ContinuousClock.Instant {
    let now = ContinuousClock.now
    state.withLock { $0.lastSent = max($0.lastSent, now) }
    return now
  }

  /// Records the answer to a renewing statement sent at `sent` that found the term still the
  /// writer's: the lease runs to `sent + length - margin`, unless a taker waits (PostgreSQL then
  /// left it as it was, and the writer accepts no more changes).
  ///
  /// - Parameters:
  ///   - sent: When the statement was sent.
  ///   - taker: The writer waiting to take the stream over, if one does.
  func renewed(sentAt sent: ContinuousClock.Instant, taker: String?) {
    state.withLock { state in
      if let taker {
        state.taker = taker
      } else if state.taker == nil {
        state.expiry = max(state.expiry, sent + length - margin)
      }
    }
  }

  /// Starts a background renewal if none is in flight and nothing renewed the lease for
  /// `interval`: returns when it is sent, or nil.
  func beginRenewal(after interval: Duration) -> ContinuousClock.Instant? {
    let now = ContinuousClock.now
    return state.withLock { state in
      guard !state.renewing, state.taker == nil, state.lastSent + interval <= now else {
        return nil
      }
      state.renewing = true
      state.lastSent = now
      return now
    }
  }

  /// Ends a background renewal.
  func endRenewal() {
    state.withLock { $0.renewing = false }
  }
}

/// Renews a writer's lease while the writer is idle, from a repeated task on the package's own
/// event loop: no thread of the application, blocked or busy, can hold it up.
///
/// It renews when no statement renewed the lease for a third of the lease's validity
/// (`length - margin`), so an idle writer's lease never lapses while PostgreSQL answers. A renewal
/// that finds the stream taken over calls `fenced`.
final class LeaseRenewal: Sendable {
  private let lease: Lease
  private let term: Int
  private let connection: JournalConnection
  private let interval: Duration
  private let fenced: @Sendable (PostgresJournalError) -> Void
  private let task = Monitor<RepeatedTask?>(nil)

  /// Creates the renewal; ``start()`` starts it.
  ///
  /// - Parameters:
  ///   - lease: The lease to renew.
  ///   - term: The writer's term.
  ///   - connection: The sink's connection. A renewal is due only when nothing was sent for a
  ///     while, so it seldom queues a commit behind it; if it times out, the connection is
  ///     closed (as after a commit's timeout) and the next statement opens another.
  ///   - fenced: Called (on the event loop) when a renewal finds the stream taken over.
  init(
    lease: Lease, term: Int, connection: JournalConnection,
    fenced: @escaping @Sendable (PostgresJournalError) -> Void
  ) {
    self.lease = lease
    self.term = term
    self.connection = connection
    self.interval = (lease.length - lease.margin) / 3
    self.fenced = fenced
  }

  /// Schedules the renewal: checks twice per interval whether one is due.
  func start() {
    let period = TimeAmount.nanoseconds(max(JournalConnection.nanoseconds(interval / 2), 1_000_000))
    let scheduled = JournalConnection.eventLoops.next().scheduleRepeatedTask(
      initialDelay: period, delay: period
    ) { [weak self] task in
      guard let self else {
        task.cancel()
        return
      }
      self.renewIfDue()
    }
    task.withLock { $0 = scheduled }
  }

  /// Stops renewing.
  func stop() {
    let scheduled = task.withLock { slot in
      defer { slot = nil }
      return slot
    }
    scheduled?.cancel()
  }

  private func renewIfDue() {
    guard let sent = lease.beginRenewal(after: interval) else { return }
    let query = JournalSQL.renew(
      stream: lease.stream, term: term, session: lease.session, lease: lease.length)
    connection.run(query) { [lease, fenced, task] result in
      defer { lease.endRenewal() }
      // A failed renewal changes nothing: the lease lapses unless a later one succeeds.
      guard case .success(let rows) = result, let row = rows.first,
        let (held, taker, holder) = try? row.decode((Int64, String?, String?).self)
      else { return }
      if held == 0 {
        task.withLock { $0 }?.cancel()
        fenced(.fenced(stream: lease.stream, holder: lease.holderDescription(holder)))
      } else {
        lease.renewed(sentAt: sent, taker: taker)
      }
    }
  }

  deinit {
    task.withLock { $0 }?.cancel()
  }
}
