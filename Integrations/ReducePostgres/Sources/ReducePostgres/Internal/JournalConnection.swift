import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// Why a query of a ``JournalConnection`` failed.
enum QueryFailure: Error, Sendable, Equatable {
  /// The statement broke a unique key (SQLSTATE 23505).
  case uniqueViolation
  /// No answer before the deadline; the connection was closed.
  case timedOut
  /// Anything else: no connection, a server error, the connection cut off.
  case failed(String)
}

/// One connection to PostgreSQL, opened when first needed and opened again after it was lost,
/// that runs queries with a deadline, from a thread or from a task.
///
/// The connection's I/O runs on an event loop of this package's own
/// (``JournalConnection/eventLoops``), never on a thread of Swift concurrency's cooperative pool
/// nor on an event loop the application drives. That is what makes ``runBlocking(_:)`` safe:
/// the thread it blocks waits for work that no blocked thread can hold up (short of a
/// PostgreSQL lock held by a task that needs the pool: see `PostgresLogSink.waitUntilDurable()`),
/// and a wait is bounded by ``timeout``.
final class JournalConnection: Sendable {
  /// The event loop every journal connection of the process runs on: one thread, made on first
  /// use and kept for the life of the process (like NIO's own singletons).
  static let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

  let configuration: PostgresConnection.Configuration
  /// The longest a query (with the connecting before it) may take.
  let timeout: Duration
  let logger: Logger
  private let current = Monitor<PostgresConnection?>(nil)
  private var eventLoop: any EventLoop { Self.eventLoops.next() }

  init(configuration: PostgresConnection.Configuration, timeout: Duration, logger: Logger) {
    var configuration = configuration
    configuration.options.connectTimeout = .nanoseconds(Self.nanoseconds(timeout))
    self.configuration = configuration
    self.timeout = timeout
    self.logger = logger
  }

  deinit {
    if let connection = current.withLock({ $0 }) { Self.close(connection) }
  }

  /// Runs a query and waits for all its rows, blocking the calling thread.
  ///
  /// Safe on any thread but an event loop of ``eventLoops`` (none of the package's callers is
  /// one): see the type's documentation. On a cooperative thread it holds that thread for at
  /// most ``timeout``, as a blocking system call would.
  ///
  /// - Parameter query: The query.
  /// - Returns: Its rows.
  /// - Throws: A ``QueryFailure``.
  func runBlocking(_ query: PostgresQuery) throws(QueryFailure) -> PostgresQueryResult {
    let outcome = Outcome()
    start(query).whenComplete { outcome.complete($0) }
    let result = outcome.wait(until: ContinuousClock.now + timeout)
    return try finish(result)
  }

  /// Runs a query and waits for all its rows, suspending the calling task.
  ///
  /// - Parameter query: The query.
  /// - Returns: Its rows.
  /// - Throws: A ``QueryFailure``.
  func run(_ query: PostgresQuery) async throws(QueryFailure) -> PostgresQueryResult {
    let future = start(query)
    let deadline = future.eventLoop.scheduleTask(in: .nanoseconds(Self.nanoseconds(timeout))) {
      ()
    }
    let result: Result<PostgresQueryResult, any Error>? = await withCheckedContinuation {
      continuation in
      let once = Once(continuation)
      future.whenComplete { once.resume($0) }
      deadline.futureResult.whenSuccess { once.resume(nil) }
    }
    deadline.cancel()
    return try finish(result)
  }

  /// Runs a query without blocking a thread or suspending a task: `completion` gets its rows or
  /// its failure, on an event loop of ``eventLoops``, within ``timeout``.
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - completion: Called once, with the rows or a ``QueryFailure``; it must not block.
  func run(
    _ query: PostgresQuery,
    then completion: @escaping @Sendable (Result<PostgresQueryResult, QueryFailure>) -> Void
  ) {
    let future = start(query)
    let answered = Monitor(false)
    let deliver: @Sendable (Result<PostgresQueryResult, any Error>?) -> Void = { result in
      let first = answered.withLock { done in
        defer { done = true }
        return !done
      }
      guard first else { return }
      do throws(QueryFailure) {
        completion(.success(try self.finish(result)))
      } catch {
        completion(.failure(error))
      }
    }
    let deadline = future.eventLoop.scheduleTask(in: .nanoseconds(Self.nanoseconds(timeout))) {
      deliver(nil)
    }
    future.whenComplete { result in
      deadline.cancel()
      deliver(result)
    }
  }

  /// Closes the connection, if one is open; the next query opens another.
  func close() {
    let connection = current.withLock { slot in
      defer { slot = nil }
      return slot
    }
    if let connection { Self.close(connection) }
  }

  private func finish(_ result: Result<PostgresQueryResult, any Error>?) throws(QueryFailure)
    -> PostgresQueryResult
  {
    switch result {
    case .success(let rows)?:
      return rows
    case .failure(let error)?:
      let failure = Self.failure(error)
      if failure != .uniqueViolation { closeIfBroken() }
      throw failure
    case nil:
      // Nothing arrived in time: abandon the connection, so that its query cannot hold up the
      // next one, and whatever it still does is done on a connection no one uses.
      close()
      throw .timedOut
    }
  }

  /// Forgets a connection that was closed under the query.
  private func closeIfBroken() {
    let broken = current.withLock { slot -> PostgresConnection? in
      guard let connection = slot, connection.isClosed else { return nil }
      slot = nil
      return connection
    }
    if let broken { Self.close(broken) }
  }

  private func start(_ query: PostgresQuery) -> EventLoopFuture<PostgresQueryResult> {
    let logger = logger
    return connection().flatMap { $0.query(query, logger: logger) }
  }

  private func connection() -> EventLoopFuture<PostgresConnection> {
    if let open = current.withLock({ $0 }), !open.isClosed {
      return open.eventLoop.makeSucceededFuture(open)
    }
    return PostgresConnection.connect(
      on: eventLoop, configuration: configuration, id: 1, logger: logger
    ).map { [current] connection in
      let kept = current.withLock { slot -> PostgresConnection in
        if let open = slot, !open.isClosed { return open }
        slot = connection
        return connection
      }
      // Another caller connected meanwhile: keep one connection.
      if kept !== connection { Self.close(connection) }
      return kept
    }
  }

  /// Closes a connection, keeping it alive until it is closed (postgres-nio asserts, in debug
  /// builds, that a connection is closed before it is deinitialized).
  static func close(_ connection: PostgresConnection) {
    connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
  }

  static func failure(_ error: any Error) -> QueryFailure {
    guard let error = error as? PSQLError else { return .failed(String(describing: error)) }
    if error.code == .server {
      let state = error.serverInfo?[.sqlState] ?? ""
      if state == "23505" { return .uniqueViolation }
      let message = error.serverInfo?[.message] ?? "a server error"
      return .failed("\(message) (SQLSTATE \(state))")
    }
    if let underlying = error.underlying {
      return .failed("\(error.code): \(underlying)")
    }
    return .failed("\(error.code)")
  }

  static func nanoseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }
}

/// The result of a query, handed from the event loop to a blocked thread.
private final class Outcome: Sendable {
  private let slot = Monitor<Result<PostgresQueryResult, any Error>?>(nil)

  func complete(_ result: Result<PostgresQueryResult, any Error>) {
    slot.withLock { $0 = result }
    slot.broadcast()
  }

  func wait(until deadline: ContinuousClock.Instant) -> Result<PostgresQueryResult, any Error>? {
    let pending: (Result<PostgresQueryResult, any Error>?) -> Bool = {
      if case .none = $0 { true } else { false }
    }
    return slot.withLock(waitingWhile: pending, until: deadline) { $0 }
  }
}

/// Resumes a continuation with the first of several results to arrive.
private final class Once: Sendable {
  private let continuation:
    Monitor<CheckedContinuation<Result<PostgresQueryResult, any Error>?, Never>?>

  init(_ continuation: CheckedContinuation<Result<PostgresQueryResult, any Error>?, Never>) {
    self.continuation = Monitor(continuation)
  }

  func resume(_ result: Result<PostgresQueryResult, any Error>?) {
    let waiting = continuation.withLock { slot in
      defer { slot = nil }
      return slot
    }
    waiting?.resume(returning: result)
  }
}
