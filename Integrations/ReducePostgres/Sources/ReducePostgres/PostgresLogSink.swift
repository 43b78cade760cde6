import Foundation
public import Logging
import NIOCore
public import PostgresNIO
public import ReduceLogging

/// A journal sink that keeps an `AuditTrail`'s hash-chained entries in PostgreSQL: one row per
/// entry, keyed by `(stream, seq)`, holding the entry's exact line.
///
/// ```swift
/// let sink = try await PostgresLogSink.open(
///   configuration: configuration, stream: "ledger", writer: "ledger-a")
/// let store = try Store(initialState: ledger, mutators: [balances])
/// try store.use(AuditTrail<Ledger>(sink: sink))
/// ```
///
/// **The lines.** Each entry is the line a chained `FileLogSink` would write: `seq` is the
/// number of the entry in the stream and `prev` the SHA-256 of the line before it (the genesis
/// value for the first), both given by this sink in the order the store hands it the entries
/// (the store's turn). The stream's lines, in `seq` order and joined with newlines, verify with
/// `AuditLog.verify(_:)` byte for byte. The column is `bytea`, so no encoding conversion
/// touches them.
///
/// **Group commit.** ``write(_:)`` numbers, chains and queues the line and returns; nothing is
/// sent while the store's turn is held. ``waitUntilDurable()``, which the trail runs after the
/// turn, before the dispatch returns, commits every queued line of every dispatcher waiting
/// meanwhile in one `INSERT` (one transaction), led by one of them, and returns once the caller's
/// lines are committed. With PostgreSQL's default `synchronous_commit = on`, committed means
/// flushed to the server's disk (and to its synchronous standbys, if it has any).
///
/// **Fencing and the lease.** A stream has one holder, named by `writer`, and a term. Opening a
/// stream that another writer holds fails with ``PostgresJournalError/fenced(stream:holder:)``.
/// The holder has a lease, `lease_until = now() + lease` by PostgreSQL's clock, renewed by every
/// commit (in the statement that checks the term and inserts) and, while the writer is idle, by
/// a renewal on the package's own event loop (when nothing renewed it for a third of
/// `lease - timeout`). The writer counts its lease from when it *sent* the renewing statement,
/// and `timeout` shorter: it ends at `sent + lease - timeout` by the writer's clock, at least
/// `timeout` before PostgreSQL's `lease_until`. ``write(_:)``, in the store's turn and so before
/// the change is made, refuses the entry once that lease has ended
/// (``PostgresJournalError/leaseExpired(stream:)``, which passes when a renewal succeeds), or
/// once a writer waits to take the stream over (``PostgresJournalError/fenced(stream:holder:)``).
///
/// A takeover (`takingOver`: a promotion, the operator's decision) asks the holder to stop (it
/// names itself the stream's `taker`; the holder's commits and renewals then leave the lease as
/// it is, and it refuses new entries), waits until `lease_until < now()` by PostgreSQL's clock
/// (for at most `takeoverTimeout`, then ``PostgresJournalError/leaseHeld(stream:holder:waited:)``),
/// raises the term in one statement that checks both, and only then reads the stream's last
/// line. So every change the old holder made was made before its own lease ended, at least
/// `timeout` before PostgreSQL allowed the takeover: its commit lands first, and the new holder
/// continues after it. Every commit of the old holder after the takeover inserts nothing and
/// fails with `fenced`; a renewal that finds the term changed stops the sink too.
///
/// What the lease assumes: the commit of an accepted change reaches PostgreSQL within `timeout`
/// of the change (the wait for a commit in flight included), and the writer's clock and
/// PostgreSQL's run at the same rate (their times may differ: each side only measures durations
/// on its own clock). A writer paused for longer than that between a change and its commit (a
/// stopped process, a frozen virtual machine), or whose commit is held up on the network, can
/// still find the stream taken over when its commit arrives: that change is then in its memory
/// and not in the journal (see below). `ignoringHolderLease` skips the wait, for an operator who
/// knows the old holder is stopped; if it is not, its changes of its last `timeout` may be lost
/// that way. The lease must be longer than `timeout` (else
/// ``PostgresJournalError/invalidLease(lease:timeout:)``); with the defaults (15 s and 10 s) an
/// idle writer renews every 1.7 s, and a takeover waits at most 15 s after the holder's last
/// renewal.
///
/// **Sessions.** Each `open` makes a session (a random UUID) and records it on the stream's row
/// with the lease; every commit and renewal checks that the row's session is still the sink's.
/// A second sink of the same writer (a primary started twice, or restarted after a crash) opens only once the lease
/// of the writer's earlier session has lapsed by PostgreSQL's clock: it waits for it, as a
/// takeover does, for at most `takeoverTimeout`, then fails with
/// ``PostgresJournalError/leaseHeld(stream:holder:waited:)`` (holder
/// `"<writer> (another session of this writer)"`), before it applies anything. A live first sink
/// renews its lease, so a primary started twice is refused; a crashed one's lease lapses, so a
/// supervisor's restart opens within one lease of the crash. `close()` ends the lease, so the
/// next sink opens at once; `ignoringHolderLease` opens at once too, for a supervisor that knows
/// the earlier process is dead (it killed it). If it is not (a paused process), that process's
/// next commit or renewal finds the session changed and its sink stops with
/// ``PostgresJournalError/fenced(stream:holder:)``, as after a takeover: a change made in its
/// last `timeout` may then be in its memory and not in the journal. Fenced and a conflict are
/// final.
///
/// **What a failure leaves.** An `AuditTrail` makes a change before its entry is committed
/// (the entry is written first, in the turn; the commit waits for the turn to be released), so a
/// dispatch whose commit fails has changed the store's state though it returns an error:
///
/// - A failure that may pass (PostgreSQL restarting, a lost connection, a timeout:
///   ``PostgresJournalError/unavailable(stream:reason:)``,
///   ``PostgresJournalError/timedOut(stream:after:)``) fails the dispatches of that group;
///   their lines are kept, and committed again (or found committed already) before the sink
///   accepts another entry. Until that succeeds, every
///   ``write(_:)`` throws, so each later dispatch fails before it changes anything. Once
///   PostgreSQL is back, the journal again holds every change the store made, unless the
///   stream was taken over meanwhile (a failure longer than the lease): then as below.
/// - A final failure at a commit (fenced: a takeover that ignored the lease, or a pause longer
///   than the margin; a conflict) fails that group's dispatches and every later one. The group's
///   changes are in the store's state and not in the journal: the store must not serve
///   anything more; rebuild it from the journal, as a standby of the new holder. A refusal at
///   ``write(_:)`` (the lease, a takeover's request) changes nothing.
///
/// The sink's API is synchronous; see ``waitUntilDurable()`` for how it waits for PostgreSQL.
public final class PostgresLogSink: LogSink, Sendable {
  /// The stream the sink appends to.
  public let stream: String
  /// The writer's name, recorded as the stream's holder.
  public let writer: String
  /// The stream's term when the sink opened it (raised by every takeover).
  public let term: Int
  /// The stream's last line when the sink opened it (`JournalPosition.start` for a new
  /// stream): the sink's first entry follows it.
  public let openedPosition: JournalPosition
  /// How long PostgreSQL grants this writer's lease for, from each renewal.
  public let lease: Duration
  /// The longest a commit (with reconnecting) may take before it fails; the writer counts its
  /// lease as ending this much sooner than PostgreSQL does.
  public let timeout: Duration
  private let connection: JournalConnection
  private let queue: CommitQueue
  let leaseState: Lease
  private let renewal: LeaseRenewal

  private init(
    stream: String, writer: String, term: Int, chain: JournalChain, lease: Lease,
    connection: JournalConnection
  ) {
    self.stream = stream
    self.writer = writer
    self.term = term
    self.openedPosition = chain.position
    self.lease = lease.length
    self.timeout = lease.margin
    self.connection = connection
    self.leaseState = lease
    let queue = CommitQueue(
      chain: chain,
      admit: { () throws(PostgresJournalError) in try lease.check() },
      commit: { rows throws(PostgresJournalError) in
        try Self.commit(rows, stream: stream, term: term, lease: lease, connection: connection)
      })
    self.queue = queue
    renewal = LeaseRenewal(lease: lease, term: term, connection: connection) { error in
      queue.stop(error)
    }
    renewal.start()
  }

  deinit {
    renewal.stop()
  }

  /// Opens a stream for appending: creates the tables if needed, claims or checks the stream's
  /// holder (taking it over if asked, once the holder's lease lapsed), takes the lease, and
  /// reads the stream's last line to continue its chain.
  ///
  /// - Parameters:
  ///   - configuration: How to reach PostgreSQL (`PostgresConnection.Configuration`, over TCP
  ///     or a unix socket).
  ///   - stream: The stream's name: one store's journal.
  ///   - writer: This writer's name, the same across its restarts (a host name, say).
  ///   - takingOver: Whether to take the stream from its holder (a promotion). Without it,
  ///     opening a stream another writer holds fails. The takeover asks the holder to stop,
  ///     waits until its lease has lapsed by PostgreSQL's clock, then raises the term.
  ///   - ignoringHolderLease: Whether to take the stream at once, without waiting for the
  ///     holder's lease (with `takingOver`), or for the lease of this writer's earlier session
  ///     (without it: a restart): only for an operator or supervisor who knows that holder is
  ///     stopped (its process killed, its machine off). If it is in fact running, the changes
  ///     it made in its last `timeout` may be in its memory and not in the journal.
  ///   - takeoverTimeout: The longest the opening waits for the holder's lease to lapse: the
  ///     lease of the holder taken over (with `takingOver`), or of this writer's earlier
  ///     session (another sink, or a process that died without `close()`).
  ///   - checkpoints: Keyed checkpoints (`AuditCheckpoints`) to add to the chain, so that
  ///     someone who can write the table but does not hold the key cannot rewrite the chain
  ///     unnoticed; none by default.
  ///   - lease: How long PostgreSQL grants this writer's lease for, from each commit or
  ///     renewal; longer than `timeout`.
  ///   - timeout: The longest a commit (with reconnecting) may take before it fails.
  ///   - logger: Where postgres-nio logs.
  /// - Returns: The sink, positioned after the stream's last line.
  /// - Throws: ``PostgresJournalError/fenced(stream:holder:)`` when another writer holds the
  ///   stream (or waits to take it over, or took it over first);
  ///   ``PostgresJournalError/leaseHeld(stream:holder:waited:)`` when the opening waited
  ///   `takeoverTimeout` in vain for the holder's lease, or for the lease of this writer's
  ///   earlier session (another sink of the writer is live);
  ///   ``PostgresJournalError/invalidLease(lease:timeout:)`` when `lease` is not longer than
  ///   `timeout`; ``PostgresJournalError/unavailable(stream:reason:)``
  ///   when PostgreSQL cannot be reached;
  ///   ``PostgresJournalError/cannotContinueChain(stream:sequence:reason:)`` when the last line
  ///   is not a chained entry.
  public static func open(
    configuration: PostgresConnection.Configuration, stream: String, writer: String,
    takingOver: Bool = false, ignoringHolderLease: Bool = false,
    takeoverTimeout: Duration = .seconds(60), checkpoints: AuditCheckpoints? = nil,
    lease: Duration = .seconds(15), timeout: Duration = .seconds(10),
    logger: Logger = Logger(label: "ReducePostgres")
  ) async throws(PostgresJournalError) -> PostgresLogSink {
    guard !stream.isEmpty else { throw .invalidName("stream name") }
    guard !writer.isEmpty else { throw .invalidName("writer name") }
    guard timeout > .zero, lease > timeout else {
      throw .invalidLease(lease: lease, timeout: timeout)
    }
    let connection = JournalConnection(
      configuration: configuration, timeout: timeout, logger: logger)
    func run(_ query: PostgresQuery) async throws(PostgresJournalError) -> PostgresQueryResult {
      do {
        return try await connection.run(query)
      } catch {
        switch error {
        case .timedOut: throw .timedOut(stream: stream, after: timeout)
        case .uniqueViolation:
          throw .unavailable(stream: stream, reason: "a unique key was broken while opening")
        case .failed(let reason): throw .unavailable(stream: stream, reason: reason)
        }
      }
    }
    func holder() async throws(PostgresJournalError) -> StreamHolder {
      let row = try await run(JournalSQL.holder(stream: stream)).rows.first.flatMap {
        try? $0.decode((String, Int64, String?, Double).self)
      }
      guard let (name, term, taker, remaining) = row else {
        throw .unavailable(stream: stream, reason: "the stream's holder could not be read")
      }
      return StreamHolder(name: name, term: Int(term), taker: taker, remaining: remaining)
    }
    let exists = try await run(JournalSQL.tablesExist).rows.first.flatMap {
      try? $0.decode(Bool.self)
    }
    if exists != true {
      for statement in JournalSQL.schema {
        do {
          _ = try await run(statement)
        } catch .unavailable(_, let reason)
          where reason.contains("42P07") || reason.contains("42701")
        {
          // Created meanwhile by another writer.
        } catch .unavailable(_, let reason) where reason.contains("a unique key was broken") {
          // Created meanwhile by another writer (a duplicate in the catalog).
        }
      }
    }
    _ = try await run(JournalSQL.register(stream: stream, writer: writer))
    let current = try await holder()
    // This sink's session: every commit and renewal checks that it is still the stream's.
    let session = UUID().uuidString
    let term: Int
    let granted: ContinuousClock.Instant
    if takingOver {
      (term, granted) = try await takeOver(
        stream: stream, writer: writer, session: session, from: current,
        ignoringLease: ignoringHolderLease, waitingAtMost: takeoverTimeout, lease: lease,
        run: run, holder: holder)
    } else {
      (term, granted) = try await claim(
        stream: stream, writer: writer, session: session, from: current,
        ignoringLease: ignoringHolderLease, waitingAtMost: takeoverTimeout, lease: lease,
        run: run, holder: holder)
    }
    var position = JournalPosition.start
    if let row = try await run(JournalSQL.last(stream: stream)).rows.first {
      guard let (seq, line) = try? row.decode((Int64, ByteBuffer).self) else {
        throw .unavailable(stream: stream, reason: "the last line could not be read")
      }
      let bytes = Array(buffer: line)
      try checkLastLine(bytes, sequence: Int(seq), stream: stream)
      position = JournalPosition(sequence: Int(seq), hash: AuditLog.hash(ofLine: bytes))
    }
    let chain: JournalChain
    do {
      chain = try JournalChain(after: position, checkpoints: checkpoints)
    } catch {
      throw .cannotContinueChain(
        stream: stream, sequence: position.sequence, reason: error.description)
    }
    return PostgresLogSink(
      stream: stream, writer: writer, term: term, chain: chain,
      lease: Lease(
        stream: stream, writer: writer, session: session, length: lease, margin: timeout,
        grantedBy: granted),
      connection: connection)
  }

  /// Takes the stream over from its holder: asks it to stop (unless `ignoringLease`), waits
  /// until its lease has lapsed by PostgreSQL's clock, then raises the term in one statement
  /// that checks both; returns the new term and when the statement that granted this writer's
  /// lease was sent.
  private static func takeOver(
    stream: String, writer: String, session: String,
    from holder: StreamHolder,
    ignoringLease: Bool, waitingAtMost limit: Duration, lease: Duration,
    run: (PostgresQuery) async throws(PostgresJournalError) -> PostgresQueryResult,
    holder read: () async throws(PostgresJournalError) -> StreamHolder
  ) async throws(PostgresJournalError) -> (term: Int, granted: ContinuousClock.Instant) {
    let term = holder.term
    return try await waitForLease(
      stream: stream, from: holder, waitingAtMost: limit,
      requesting: ignoringLease
        ? nil : JournalSQL.requestTakeover(stream: stream, term: term, writer: writer),
      trying: JournalSQL.takeOver(
        stream: stream, term: term, writer: writer, session: session, lease: lease,
        ignoringLease: ignoringLease),
      withdrawing: JournalSQL.withdrawTakeover(stream: stream, term: term, writer: writer),
      cancelled: "the takeover was cancelled", run: run, holder: read
    ) { now throws(PostgresJournalError) in
      // Another takeover raised the term first.
      guard now.term == term else { throw .fenced(stream: stream, holder: now.name) }
      return now.name
    }
  }

  /// Claims the stream for a new session of its holder, `writer`, keeping the term: once the
  /// lease of the writer's earlier session (another sink, in this process or another, or a
  /// process that died) has lapsed by PostgreSQL's clock, or at once if `ignoringLease`; returns
  /// the term and when the statement that granted this session's lease was sent.
  ///
  /// Unlike a takeover, it does not ask the earlier session to stop: a live one keeps its
  /// lease, and the claim fails after `limit` with
  /// ``PostgresJournalError/leaseHeld(stream:holder:waited:)``.
  private static func claim(
    stream: String, writer: String, session: String,
    from holder: StreamHolder,
    ignoringLease: Bool, waitingAtMost limit: Duration, lease: Duration,
    run: (PostgresQuery) async throws(PostgresJournalError) -> PostgresQueryResult,
    holder read: () async throws(PostgresJournalError) -> StreamHolder
  ) async throws(PostgresJournalError) -> (term: Int, granted: ContinuousClock.Instant) {
    let term = holder.term
    return try await waitForLease(
      stream: stream, from: holder, waitingAtMost: limit,
      trying: JournalSQL.claim(
        stream: stream, term: term, writer: writer, session: session, lease: lease,
        ignoringLease: ignoringLease),
      cancelled: "the opening was cancelled", run: run, holder: read
    ) { current throws(PostgresJournalError) in
      guard current.term == term, current.name == writer else {
        throw .fenced(
          stream: stream,
          holder: current.name == writer ? Lease.otherSession(of: writer) : current.name)
      }
      if let taker = current.taker { throw .fenced(stream: stream, holder: taker) }
      return Lease.otherSession(of: writer)
    }
  }

  /// The wait of a takeover and of a claim: sends `request` (if any), then `statement` until it
  /// grants the lease (answering the term), for at most `limit`; returns the term and when the
  /// granting statement was sent.
  ///
  /// `judge` checks the holder before the first try and after each: it throws when the wait
  /// cannot succeed (fenced), and otherwise names the holder for
  /// ``PostgresJournalError/leaseHeld(stream:holder:waited:)``. Between tries the wait sleeps
  /// until the holder's lease would lapse (it can only be extended meanwhile), a little after.
  /// Giving up (the limit, or the task cancelled, then
  /// ``PostgresJournalError/unavailable(stream:reason:)`` with `cancelled`), it sends
  /// `withdrawal` (if any), ignoring its failure.
  private static func waitForLease(
    stream: String, from holder: StreamHolder, waitingAtMost limit: Duration,
    requesting request: PostgresQuery? = nil, trying statement: PostgresQuery,
    withdrawing withdrawal: PostgresQuery? = nil, cancelled: String,
    run: (PostgresQuery) async throws(PostgresJournalError) -> PostgresQueryResult,
    holder read: () async throws(PostgresJournalError) -> StreamHolder,
    judging judge: (StreamHolder) throws(PostgresJournalError) -> String
  ) async throws(PostgresJournalError) -> (term: Int, granted: ContinuousClock.Instant) {
    let start = ContinuousClock.now
    _ = try judge(holder)
    if let request { _ = try await run(request) }
    while true {
      let sent = ContinuousClock.now
      let granted = try await run(statement).rows.first.flatMap { try? $0.decode(Int64.self) }
      if let granted { return (Int(granted), sent) }
      let current = try await read()
      let name = try judge(current)
      let waited = start.duration(to: .now)
      guard waited < limit else {
        if let withdrawal { _ = try? await run(withdrawal) }
        throw .leaseHeld(stream: stream, holder: name, waited: waited)
      }
      do {
        try await Task.sleep(for: min(current.untilLapsed, limit - waited))
      } catch {
        if let withdrawal { _ = try? await run(withdrawal) }
        throw .unavailable(stream: stream, reason: cancelled)
      }
    }
  }

  /// Numbers, chains and queues the entry's line; ``waitUntilDurable()`` commits it.
  ///
  /// Runs in the store's turn and sends nothing, unless an earlier commit failed: its lines are
  /// then committed again first, and if that fails too, this entry is refused.
  ///
  /// - Parameter record: The entry, in `LogFormat.jsonLines`.
  /// - Throws: A ``PostgresJournalError``: the sink stopped (fenced, a conflict, closed), or the
  ///   lines of a failed commit still cannot be committed.
  public func write(_ record: LogRecord) throws {
    try append(record)
  }

  /// Queues the entry (and a checkpoint when one is due) and returns the last `seq` queued.
  @discardableResult
  func append(_ record: LogRecord) throws(PostgresJournalError) -> Int {
    guard record.format == .jsonLines else { throw .notJSONLines(stream: stream) }
    return try queue.append(record)
  }

  /// True: an entry is committed only once ``waitUntilDurable()`` has returned.
  public var defersDurability: Bool { true }

  /// Waits until every entry written before the call is committed in PostgreSQL.
  ///
  /// A group commit: if a commit is running, the caller waits for it and decides again;
  /// otherwise it commits every queued line, its own and those of every dispatcher that wrote
  /// meanwhile, in one transaction.
  ///
  /// The wait blocks the calling thread (the `LogSink` API is synchronous), for at most the
  /// sink's timeout. The commit itself runs on an event loop thread that this package owns,
  /// never on Swift concurrency's cooperative pool nor on an event loop the application drives,
  /// so a blocked thread, cooperative or not, cannot hold it up. Blocking a cooperative thread
  /// for the length of a commit costs what a blocking `fsync` of a `FileLogSink` costs: that
  /// thread does no other work meanwhile.
  ///
  /// One thing can still hold a commit up: a PostgreSQL lock on the journal's tables held by a
  /// task of the same process that needs the cooperative pool to go on (an open transaction
  /// that ran DDL or `LOCK` on them, say). If the dispatchers blocked in this wait fill the
  /// pool, that task cannot finish its transaction, and the commits wait for its lock until
  /// the timeout. The sink's own statements never hold a lock across an `await` (found the
  /// hard way: creating the tables in one transaction did exactly this); keep it so in yours.
  /// Do not dispatch to an audited store from an event loop of ``eventLoopGroup``.
  ///
  /// - Throws: A ``PostgresJournalError``: the commit that covered the caller's entries failed
  ///   (their changes are made; see the type's documentation), or the sink stopped.
  public func waitUntilDurable() throws {
    try queue.waitUntilCommitted()
  }

  /// Why the sink stopped accepting entries (fenced, a conflict, closed), if it did.
  var stopReason: PostgresJournalError? { queue.stopReason }

  /// The `seq` of the last entry known to be committed.
  public var committedSequence: Int { queue.committedSequence }

  /// How many commits the sink made, and how many entries they held in all.
  public var commitCounts: (commits: Int, entries: Int) {
    let counts = queue.groupCounts
    return (counts.groups, counts.lines)
  }

  /// Stops the sink, ends its lease and closes its connection; entries not yet committed are
  /// not committed.
  ///
  /// Every later write throws ``PostgresJournalError/closed(stream:)``. Ending the lease lets a
  /// takeover (a planned switchover) go ahead at once rather than wait for it to lapse; it is
  /// sent after the commit in flight, if any, on the same connection, and waited for at most
  /// ``timeout``. If PostgreSQL cannot be reached, the lease lapses by itself.
  public func close() {
    queue.stop(.closed(stream: stream))
    renewal.stop()
    _ = try? connection.runBlocking(
      JournalSQL.release(stream: stream, term: term, session: leaseState.session))
    connection.close()
  }

  /// The event loops the package's connections run on (one thread), never to be blocked.
  public static var eventLoopGroup: any EventLoopGroup { JournalConnection.eventLoops }

  /// Checks that the stored last line begins as a chained line with its row's `seq`:
  /// `{"seq":<seq>,"prev":"<64 hexadecimal digits>"`.
  private static func checkLastLine(_ bytes: [UInt8], sequence: Int, stream: String)
    throws(PostgresJournalError)
  {
    let start = Array(#"{"seq":\#(sequence),"prev":""#.utf8)
    let hex = Array("0123456789abcdef".utf8)
    guard bytes.starts(with: start), bytes.count >= start.count + 65,
      bytes[start.count..<start.count + 64].allSatisfy(hex.contains),
      bytes[start.count + 64] == UInt8(ascii: "\"")
    else {
      throw .cannotContinueChain(
        stream: stream, sequence: sequence,
        reason: "the stored line does not begin with seq \(sequence) and a prev hash")
    }
  }

  /// Commits a group: inserts it if the term is still the writer's, and sorts out a
  /// conflict on the key (lines of an earlier commit whose answer was lost are found, the
  /// same bytes, and left as they are).
  static func commit(
    _ rows: [JournalRow], stream: String, term: Int, lease: Lease, connection: JournalConnection
  ) throws(PostgresJournalError) {
    var remaining = rows
    for _ in 0..<3 {
      guard let first = remaining.first, let last = remaining.last else { return }
      do {
        let sent = lease.sending()
        let result = try connection.runBlocking(
          JournalSQL.insert(
            stream: stream, term: term, session: lease.session, lease: lease.length,
            rows: remaining))
        guard
          let (inserted, held, taker, holder) = result.rows.first.flatMap({
            try? $0.decode((Int64, Int64, String?, String?).self)
          })
        else {
          throw PostgresJournalError.unavailable(
            stream: stream, reason: "the commit's answer could not be read")
        }
        // The term or the session is no longer the writer's: the stream was taken over, or
        // another sink of the writer claimed it.
        guard held == 1 else {
          throw PostgresJournalError.fenced(
            stream: stream, holder: lease.holderDescription(holder))
        }
        lease.renewed(sentAt: sent, taker: taker)
        if inserted == Int64(remaining.count) { return }
        throw PostgresJournalError.unavailable(
          stream: stream, reason: "\(inserted) of \(remaining.count) rows were inserted")
      } catch let error as PostgresJournalError {
        throw error
      } catch QueryFailure.uniqueViolation {
        let stored = try storedLines(
          stream: stream, from: first.sequence, through: last.sequence, connection: connection)
        for row in remaining {
          guard let bytes = stored[row.sequence] else { continue }
          guard bytes == row.bytes else {
            throw .conflict(stream: stream, sequence: row.sequence)
          }
        }
        remaining.removeAll { stored[$0.sequence] != nil }
      } catch QueryFailure.timedOut {
        throw .timedOut(stream: stream, after: connection.timeout)
      } catch QueryFailure.failed(let reason) {
        throw .unavailable(stream: stream, reason: reason)
      } catch {
        throw .unavailable(stream: stream, reason: "\(error)")
      }
    }
    throw .unavailable(stream: stream, reason: "the lines kept conflicting with stored ones")
  }

  private static func storedLines(
    stream: String, from first: Int, through last: Int, connection: JournalConnection
  ) throws(PostgresJournalError) -> [Int: [UInt8]] {
    let result: PostgresQueryResult
    do {
      result = try connection.runBlocking(
        JournalSQL.lines(stream: stream, from: first, through: last))
    } catch .timedOut {
      throw .timedOut(stream: stream, after: connection.timeout)
    } catch {
      throw .unavailable(stream: stream, reason: "\(error)")
    }
    var lines: [Int: [UInt8]] = [:]
    for row in result.rows {
      guard let (seq, line) = try? row.decode((Int64, ByteBuffer).self) else { continue }
      lines[Int(seq)] = Array(buffer: line)
    }
    return lines
  }
}

/// A stream's holder as its row reads when a sink opens it.
private struct StreamHolder {
  /// The holder's writer name.
  let name: String
  /// The stream's term.
  let term: Int
  /// The writer waiting to take the stream over, if any.
  let taker: String?
  /// The seconds until the holder's lease lapses by PostgreSQL's clock; 0 once it has.
  let remaining: Double

  /// How long to sleep for the lease to have lapsed: until it ends, and a little after.
  var untilLapsed: Duration {
    .milliseconds(Int64((remaining * 1000).rounded(.up)) + 5)
  }
}
