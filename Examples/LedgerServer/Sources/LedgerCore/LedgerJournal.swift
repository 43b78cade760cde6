import Foundation
public import Reduce
public import ReduceLogging
import ReducePostgres

/// Where a ledger records its changes, and rebuilds itself from at startup.
///
/// One case per kind of journal, chosen by `ledger-server --journal`: the audit trail's
/// hash-chained file, or a stream of the PostgreSQL journal (`ReducePostgres`). Either way every
/// change is written as the same chained JSON line before it is answered; a new kind is one more
/// case here (``Kind``, ``summary`` and ``open(historyLimit:)`` each gain a branch).
public enum LedgerJournal: Sendable {
  /// A hash-chained JSON-lines file kept by `ReduceLogging`'s `AuditTrail`: written before
  /// each change, flushed to disk before its request is answered when `durability` is
  /// `.everyEntry`, and replayed at startup when it exists.
  case file(path: String, durability: FileLogSink.Durability)
  /// A stream of `ReducePostgres`'s journal: each change's line is committed in PostgreSQL
  /// (one row per entry, group-committed with the changes of concurrent requests) before its
  /// request is answered. Opening it claims the stream for the options' writer (refused while
  /// another writer holds it) and replays it from its newest snapshot.
  case postgres(PostgresJournalOptions)

  /// The kinds of journal, as `--journal` names them.
  public enum Kind: String, CaseIterable, Sendable {
    /// ``LedgerJournal/file(path:durability:)``.
    case file
    /// ``LedgerJournal/postgres(_:)``.
    case postgres
  }

  /// The name of the audit trail middleware in the store's chain.
  public static let middlewareName = "audit"

  /// The journal's kind.
  public var kind: Kind {
    switch self {
    case .file: .file
    case .postgres: .postgres
    }
  }

  /// A line saying what the journal is, for the server's log.
  public var summary: String {
    switch self {
    case .file(let path, let durability):
      "file \(path) (\(durability == .everyEntry ? "durable" : "buffered"))"
    case .postgres(let options): options.summary
    }
  }

  /// Makes the ledger's store: rebuilds its state from the journal, then records every later
  /// change in it.
  ///
  /// - Parameter historyLimit: How many entries each account's history keeps.
  /// - Returns: The store with the journal in its chain, ready for a ``LedgerBook``.
  /// - Throws: ``LedgerJournalError`` when the journal cannot be replayed (it does not verify)
  ///   or opened (PostgreSQL cannot be reached, another writer holds the stream): the server
  ///   then stops before it answers anything.
  public func open(historyLimit: Int = Ledger.defaultHistoryLimit) async throws(LedgerJournalError)
    -> OpenJournal
  {
    let store: Store<Ledger>
    do {
      store = try Store(
        initialState: Ledger(), mutators: [Ledger.mutator(historyLimit: historyLimit)])
    } catch {
      throw .cannotOpen(reason: "\(error)")
    }
    switch self {
    case .file(let path, let durability):
      var replayed = 0
      if FileManager.default.fileExists(atPath: path) {
        // A restart: the state is what the log says it was. Replayed with no middleware, so
        // that nothing is recorded twice.
        do {
          replayed = try AuditLog.replay(
            contentsOf: URL(fileURLWithPath: path), into: store,
            actions: ReplayableActions([LedgerAction.self]))
        } catch {
          throw .cannotReplay(reason: "\(error)")
        }
      }
      // One sink value, kept for the flush: copies of a sink share its writer.
      let sink = FileLogSink(path: path, durability: durability, chained: true)
      do {
        try store.use(AuditTrail<Ledger>(name: Self.middlewareName, sink: sink))
      } catch {
        throw .cannotOpen(reason: "\(error)")
      }
      return OpenJournal(
        store: store, replayed: replayed, flush: { try sink.flush() },
        close: { try sink.flush() })
    case .postgres(let options):
      return try await Self.openPostgres(options, store: store)
    }
  }

  /// Opens a PostgreSQL stream: claims it, replays it into `store` from its newest snapshot
  /// through its last line, then puts the trail in the store's chain.
  private static func openPostgres(_ options: PostgresJournalOptions, store: Store<Ledger>)
    async throws(LedgerJournalError) -> OpenJournal
  {
    let configuration = options.configuration
    // The sink first: it refuses a stream another writer holds, and it reads the last line,
    // which the replay must reach (nothing can be appended meanwhile but by this writer).
    let sink: PostgresLogSink
    do {
      sink = try await PostgresLogSink.open(
        configuration: configuration, stream: options.stream, writer: options.writerName,
        ignoringHolderLease: options.ignoringHolderLease)
    } catch {
      throw .cannotOpen(reason: error.description)
    }
    let last = sink.openedPosition
    let source = PostgresJournalSource(configuration: configuration, stream: options.stream)
    let replayed: Int
    do {
      // A restart: the state is what the stream says it was, from its newest snapshot on.
      // Replayed with no middleware, so that nothing is recorded twice.
      let start = try await source.newestSnapshot(through: last.sequence)
      let position = try await AuditLog.replay(
        from: source, into: store, actions: ReplayableActions([LedgerAction.self]),
        start: start.map { .sequence($0) } ?? .beginning, through: last.sequence)
      guard position == last else {
        throw LedgerJournalError.cannotReplay(
          reason: "the replay ended at \(position), the stream's last line is \(last)")
      }
      replayed = last.sequence == 0 ? 0 : last.sequence - (start ?? 1) + 1
    } catch let error as LedgerJournalError {
      sink.close()
      throw error
    } catch {
      sink.close()
      throw .cannotReplay(reason: "\(error)")
    }
    do {
      try store.use(AuditTrail<Ledger>(name: middlewareName, sink: sink))
    } catch {
      sink.close()
      throw .cannotOpen(reason: "\(error)")
    }
    return OpenJournal(
      store: store, replayed: replayed, flush: { try sink.waitUntilDurable() },
      close: {
        defer { sink.close() }
        try sink.waitUntilDurable()
      })
  }
}

/// A ledger's store with its journal open: what ``LedgerJournal/open(historyLimit:)`` makes.
public struct OpenJournal: Sendable {
  /// The store, whose chain ends in the journal.
  public let store: Store<Ledger>
  /// How many entries of the journal the startup replay read: for a file, the applied ones;
  /// for a PostgreSQL stream, its lines from the newest snapshot (or the first) to the last.
  public let replayed: Int
  private let flushJournal: @Sendable () throws -> Void
  private let closeJournal: @Sendable () throws -> Void

  init(
    store: Store<Ledger>, replayed: Int, flush: @escaping @Sendable () throws -> Void,
    close: @escaping @Sendable () throws -> Void
  ) {
    self.store = store
    self.replayed = replayed
    self.flushJournal = flush
    self.closeJournal = close
  }

  /// Forces everything the journal has written to disk (or committed in PostgreSQL).
  ///
  /// - Throws: The journal's error when it cannot.
  public func flush() throws {
    try flushJournal()
  }

  /// Flushes the journal and lets its resources go: what the server does on shutdown.
  ///
  /// A file journal is only flushed; a PostgreSQL journal waits for its commits, then closes
  /// its connection, after which the store's changes fail.
  ///
  /// - Throws: The journal's error when it cannot flush (the PostgreSQL journal closes all
  ///   the same).
  public func close() throws {
    try closeJournal()
  }
}

/// Why a ``LedgerJournal`` could not be opened.
public enum LedgerJournalError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The journal holds entries that do not verify or cannot be applied.
  case cannotReplay(reason: String)
  /// The journal cannot be opened or continued.
  case cannotOpen(reason: String)

  /// A sentence saying what went wrong.
  public var description: String {
    switch self {
    case .cannotReplay(let reason): "the journal cannot be replayed: \(reason)"
    case .cannotOpen(let reason): "the journal cannot be opened: \(reason)"
    }
  }
}
