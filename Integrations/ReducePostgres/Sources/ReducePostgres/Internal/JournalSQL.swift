import NIOCore
import PostgresNIO

/// One stored line of a stream: its `seq`, its exact bytes, and whether it is a snapshot.
struct JournalRow: Sendable, Equatable {
  var sequence: Int
  var bytes: [UInt8]
  var isSnapshot: Bool
}

/// The journal's tables and the statements on them.
///
/// - `reduce_journal (stream, seq, line, snapshot)`: one row per entry, keyed by
///   `(stream, seq)`. `line` is `bytea`: the exact bytes the chain hashes, which no encoding
///   conversion between client and server can touch (`text` is converted when the two
///   encodings differ; `jsonb` rewrites the JSON).
/// - `reduce_journal_streams (stream, holder, term)`: who may append to each stream. Taking a
///   stream over raises its term; every commit checks that the term is still the writer's, in
///   the same statement, holding a share lock on the row, so that a takeover waits for commits
///   in flight and every commit after it fails.
enum JournalSQL {
  /// The channel every commit notifies, with the stream's name as the payload.
  static let channel = "reduce_journal"

  /// Whether both tables exist: one row of `(bool)`.
  static let tablesExist: PostgresQuery =
    "SELECT to_regclass('reduce_journal') IS NOT NULL AND to_regclass('reduce_journal_streams') IS NOT NULL"

  /// The statements that create the tables, each run on its own.
  ///
  /// No transaction spans them, so no lock is held between two of them. Two writers creating
  /// them at once may see a duplicate-object error (SQLSTATE 42P07, or 23505 on the catalog),
  /// which means done.
  static let schema: [PostgresQuery] = [
    """
    CREATE TABLE IF NOT EXISTS reduce_journal (
      stream text NOT NULL,
      seq bigint NOT NULL CHECK (seq > 0),
      line bytea NOT NULL,
      snapshot boolean NOT NULL DEFAULT false,
      PRIMARY KEY (stream, seq))
    """,
    """
    CREATE INDEX IF NOT EXISTS reduce_journal_snapshots ON reduce_journal (stream, seq)
      WHERE snapshot
    """,
    """
    CREATE TABLE IF NOT EXISTS reduce_journal_streams (
      stream text PRIMARY KEY,
      holder text NOT NULL,
      term bigint NOT NULL)
    """,
  ]

  /// Registers the stream with `writer` as its holder, if it is new.
  static func register(stream: String, writer: String) -> PostgresQuery {
    """
    INSERT INTO reduce_journal_streams (stream, holder, term) VALUES (\(stream), \(writer), 1)
      ON CONFLICT (stream) DO NOTHING
    """
  }

  /// The stream's holder and term: one row of `(text, int8)`.
  static func holder(stream: String) -> PostgresQuery {
    "SELECT holder, term FROM reduce_journal_streams WHERE stream = \(stream)"
  }

  /// Makes `writer` the stream's holder with the next term: one row of `(text, int8)`.
  static func takeOver(stream: String, writer: String) -> PostgresQuery {
    """
    UPDATE reduce_journal_streams SET holder = \(writer), term = term + 1
      WHERE stream = \(stream) RETURNING holder, term
    """
  }

  /// The stream's last line: at most one row of `(int8, bytea)`.
  static func last(stream: String) -> PostgresQuery {
    "SELECT seq, line FROM reduce_journal WHERE stream = \(stream) ORDER BY seq DESC LIMIT 1"
  }

  /// Inserts rows if `term` is still the stream's, and notifies the followers: one row of
  /// `(int8)`, the number inserted (0 when the term is no longer the stream's).
  ///
  /// One statement, so one transaction; the data-modifying CTE runs whether or not its rows are
  /// read, and the notification is delivered at commit.
  static func insert(stream: String, term: Int, rows: [JournalRow]) -> PostgresQuery {
    let sequences = rows.map { Int64($0.sequence) }
    let lines = rows.map { ByteBuffer(bytes: $0.bytes) }
    let snapshots = rows.map(\.isSnapshot)
    return """
      WITH holder AS (
        SELECT 1 FROM reduce_journal_streams
          WHERE stream = \(stream) AND term = \(Int64(term)) FOR SHARE),
      inserted AS (
        INSERT INTO reduce_journal (stream, seq, line, snapshot)
          SELECT \(stream), r.seq, r.line, r.snapshot
            FROM unnest(\(sequences)::int8[], \(lines)::bytea[], \(snapshots)::bool[])
              AS r(seq, line, snapshot)
            WHERE EXISTS (SELECT 1 FROM holder)
          RETURNING seq),
      notified AS (
        SELECT pg_notify(\(channel), \(stream)) FROM (SELECT 1 FROM inserted LIMIT 1) AS any_row)
      SELECT (SELECT count(*) FROM inserted) + 0 * (SELECT count(*) FROM notified)
      """
  }

  /// The stored lines of a stream from `first` to `last`: rows of `(int8, bytea)`.
  static func lines(stream: String, from first: Int, through last: Int) -> PostgresQuery {
    """
    SELECT seq, line FROM reduce_journal
      WHERE stream = \(stream) AND seq BETWEEN \(Int64(first)) AND \(Int64(last)) ORDER BY seq
    """
  }

  /// At most `limit` stored lines of a stream from `first` on: rows of `(int8, bytea)`.
  static func lines(stream: String, from first: Int, limit: Int) -> PostgresQuery {
    """
    SELECT seq, line FROM reduce_journal
      WHERE stream = \(stream) AND seq >= \(Int64(first)) ORDER BY seq LIMIT \(Int64(limit))
    """
  }

  /// The `seq` of the newest snapshot at or before `through`: one row of `(int8)` or NULL.
  static func newestSnapshot(stream: String, through: Int?) -> PostgresQuery {
    """
    SELECT max(seq) FROM reduce_journal
      WHERE stream = \(stream) AND snapshot AND seq <= \(Int64(through ?? Int(Int64.max)))
    """
  }

  /// The `seq` of the stream's last line: one row of `(int8)` or NULL.
  static func lastSequence(stream: String) -> PostgresQuery {
    "SELECT max(seq) FROM reduce_journal WHERE stream = \(stream)"
  }
}
