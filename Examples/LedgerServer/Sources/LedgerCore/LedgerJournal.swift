import Foundation
public import Reduce
public import ReduceLogging

/// Where a ledger records its changes, and rebuilds itself from at startup.
///
/// One case per kind of journal, chosen by `ledger-server --journal`. Today there is one, the
/// audit trail's hash-chained file; a PostgreSQL journal, when the integration exists, is one
/// more case here (``Kind``, ``summary`` and ``open(historyLimit:)`` each gain a branch).
public enum LedgerJournal: Sendable {
  /// A hash-chained JSON-lines file kept by `ReduceLogging`'s `AuditTrail`: written before
  /// each change, flushed to disk before its request is answered when `durability` is
  /// `.everyEntry`, and replayed at startup when it exists.
  case file(path: String, durability: FileLogSink.Durability)

  /// The kinds of journal, as `--journal` names them.
  public enum Kind: String, CaseIterable, Sendable {
    /// ``LedgerJournal/file(path:durability:)``.
    case file
  }

  /// The name of the audit trail middleware in the store's chain.
  public static let middlewareName = "audit"

  /// The journal's kind.
  public var kind: Kind {
    switch self {
    case .file: .file
    }
  }

  /// A line saying what the journal is, for the server's log.
  public var summary: String {
    switch self {
    case .file(let path, let durability):
      "file \(path) (\(durability == .everyEntry ? "durable" : "buffered"))"
    }
  }

  /// Makes the ledger's store: rebuilds its state from the journal, then records every later
  /// change in it.
  ///
  /// - Parameter historyLimit: How many entries each account's history keeps.
  /// - Returns: The store with the journal in its chain, ready for a ``LedgerBook``.
  /// - Throws: ``LedgerJournalError`` when the journal cannot be replayed (it does not verify)
  ///   or opened: the server then stops before it answers anything.
  public func open(historyLimit: Int = Ledger.defaultHistoryLimit) throws(LedgerJournalError)
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
      return OpenJournal(store: store, replayed: replayed, flush: { try sink.flush() })
    }
  }
}

/// A ledger's store with its journal open: what ``LedgerJournal/open(historyLimit:)`` makes.
public struct OpenJournal: Sendable {
  /// The store, whose chain ends in the journal.
  public let store: Store<Ledger>
  /// How many entries of the journal the startup replay applied.
  public let replayed: Int
  private let flushJournal: @Sendable () throws -> Void

  init(store: Store<Ledger>, replayed: Int, flush: @escaping @Sendable () throws -> Void) {
    self.store = store
    self.replayed = replayed
    self.flushJournal = flush
  }

  /// Forces everything the journal has written to disk: what the server does on shutdown.
  ///
  /// - Throws: The journal's error when it cannot.
  public func flush() throws {
    try flushJournal()
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
