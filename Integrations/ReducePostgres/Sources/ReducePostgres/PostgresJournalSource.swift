public import Logging
import NIOCore
public import PostgresNIO
public import ReduceLogging

/// A PostgreSQL journal stream, read by `seq`: what replay, a `JournalReader` and a
/// `StandbyStore` read a ``PostgresLogSink``'s entries from.
///
/// ```swift
/// let journal = PostgresJournalSource(configuration: configuration, stream: "ledger")
/// let store = try Store(initialState: Ledger(), mutators: [balances])
/// try await AuditLog.replay(
///   from: journal, into: store, actions: ReplayableActions([LedgerAction.self]))
/// ```
///
/// **Following.** ``waitForLines(after:timeout:)`` listens on the journal's notification channel
/// (`LISTEN reduce_journal`; every commit of a sink notifies it, with the stream's name, when
/// it commits). PostgreSQL keeps no notification for a listener that is not connected, so one
/// sent while the listener (re)connects is lost: once listening, the wait first asks for the
/// stream's last `seq` (a catch-up query) and returns at once when lines came meanwhile; the
/// reader then reads them with ``lines(from:limit:)``. After every notification the reader
/// queries again the same way, so a notification only wakes it; the rows are what it reads.
///
/// **Order.** A stream has one writer at a time, which numbers its lines in the store's turn and
/// commits them in `seq` order, one group after another: a reader never sees a line before the
/// lines that precede it (no gap that fills in later, the problem of event stores whose
/// concurrent writers commit out of order).
public final class PostgresJournalSource: JournalSource {
  /// The stream read.
  public let stream: String
  private let connection: JournalConnection
  private let listener: NotificationListener

  /// Creates a source; it connects when first asked.
  ///
  /// - Parameters:
  ///   - configuration: How to reach PostgreSQL.
  ///   - stream: The stream to read.
  ///   - timeout: The longest one query may take.
  ///   - logger: Where postgres-nio logs.
  public init(
    configuration: PostgresConnection.Configuration, stream: String,
    timeout: Duration = .seconds(10), logger: Logger = Logger(label: "ReducePostgres")
  ) {
    self.stream = stream
    self.connection = JournalConnection(
      configuration: configuration, timeout: timeout, logger: logger)
    self.listener = NotificationListener(
      configuration: configuration, stream: stream, logger: logger)
  }

  deinit {
    listener.stop()
  }

  /// The stored lines from `sequence` on, in `seq` order, at most `limit` of them.
  ///
  /// - Parameters:
  ///   - sequence: The first `seq` wanted.
  ///   - limit: The most lines to return.
  /// - Returns: The lines.
  /// - Throws: ``PostgresJournalError/unavailable(stream:reason:)`` or
  ///   ``PostgresJournalError/timedOut(stream:after:)``.
  public func lines(from sequence: Int, limit: Int) async throws -> [JournalLine] {
    guard
      let result = try await run(
        JournalSQL.lines(stream: stream, from: sequence, limit: max(1, limit)))
    else { return [] }
    var lines: [JournalLine] = []
    lines.reserveCapacity(result.rows.count)
    for row in result.rows {
      let (seq, line) = try decode(row, as: (Int64, ByteBuffer).self)
      lines.append(JournalLine(sequence: Int(seq), bytes: Array(buffer: line)))
    }
    return lines
  }

  /// The `seq` of the newest snapshot at or before `sequence`.
  ///
  /// - Parameter sequence: The latest `seq` that will do; nil for the newest anywhere.
  /// - Returns: The snapshot's `seq`, or nil.
  /// - Throws: As ``lines(from:limit:)``.
  public func newestSnapshot(through sequence: Int?) async throws -> Int? {
    let result = try await run(JournalSQL.newestSnapshot(stream: stream, through: sequence))
    guard let row = result?.rows.first else { return nil }
    return try decode(row, as: Int64?.self).map(Int.init)
  }

  /// The `seq` of the stream's last line; 0 when it holds none.
  ///
  /// - Returns: The `seq`.
  /// - Throws: As ``lines(from:limit:)``.
  public func lastSequence() async throws -> Int {
    let result = try await run(JournalSQL.lastSequence(stream: stream))
    guard let row = result?.rows.first else { return 0 }
    return try decode(row, as: Int64?.self).map(Int.init) ?? 0
  }

  /// Waits until a line after `sequence` may have been committed, or `timeout` has passed.
  ///
  /// Listens first, then checks the stream's last `seq` (lines committed before the listening
  /// began are found there), then waits for a notification of the stream. Returns early when
  /// the task is cancelled.
  ///
  /// - Parameters:
  ///   - sequence: The last `seq` the reader has.
  ///   - timeout: The longest to wait.
  /// - Throws: As ``lines(from:limit:)``, when the catch-up query fails.
  public func waitForLines(after sequence: Int, timeout: Duration) async throws {
    let deadline = ContinuousClock.now + timeout
    let heard = await listener.listening(until: deadline)
    if try await lastSequence() > sequence { return }
    guard let heard else {
      // Not listening (PostgreSQL unreachable): wait a little, and let the reader ask again.
      try? await Task.sleep(until: min(deadline, .now + .milliseconds(100)))
      return
    }
    await listener.wait(after: heard, until: deadline)
  }

  /// Runs a query; nil when the journal's tables do not exist yet (no writer opened a stream
  /// yet: the stream is empty).
  private func run(_ query: PostgresQuery) async throws(PostgresJournalError)
    -> PostgresQueryResult?
  {
    do {
      return try await connection.run(query)
    } catch .failed(let reason) where reason.contains("SQLSTATE 42P01") {
      return nil
    } catch {
      switch error {
      case .timedOut: throw .timedOut(stream: stream, after: connection.timeout)
      case .uniqueViolation:
        throw .unavailable(stream: stream, reason: "a unique key was broken by a read")
      case .failed(let reason): throw .unavailable(stream: stream, reason: reason)
      }
    }
  }

  private func decode<T: PostgresDecodable>(_ row: PostgresRow, as type: T.Type)
    throws(PostgresJournalError) -> T
  {
    do {
      return try row.decode(T.self)
    } catch {
      throw .unavailable(stream: stream, reason: "a row could not be decoded: \(error)")
    }
  }

  private func decode<A: PostgresDecodable, B: PostgresDecodable>(
    _ row: PostgresRow, as type: (A, B).Type
  ) throws(PostgresJournalError) -> (A, B) {
    do {
      return try row.decode((A, B).self)
    } catch {
      throw .unavailable(stream: stream, reason: "a row could not be decoded: \(error)")
    }
  }
}
