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
/// - `reduce_journal_streams (stream, holder, term, lease_until, taker, session)`: who may
///   append to each stream. Taking a stream over raises its term; `session` names the one sink
///   (one `open`) of the holder that may append under it. Every commit checks that the term and
///   the session are still the writer's and renews the writer's lease
///   (`lease_until = now() + lease`, by PostgreSQL's clock) in the same statement, updating the
///   row, so that a takeover waits for commits in flight and every commit after it fails. `taker` names a writer waiting to take the stream
///   over: while it is set, renewals leave `lease_until` as it is, and the holder stops
///   accepting changes; the takeover raises the term once `lease_until < now()`. A second sink
///   of the holder claims the session (keeping the term) only once `lease_until <= now()`.
enum JournalSQL {
  /// The channel every commit notifies, with the stream's name as the payload.
  static let channel = "reduce_journal"

  /// Whether both tables exist, with the lease's columns: one row of `(bool)`.
  static let tablesExist: PostgresQuery = """
    SELECT to_regclass('reduce_journal') IS NOT NULL
      AND to_regclass('reduce_journal_streams') IS NOT NULL
      AND (SELECT count(*) FROM pg_attribute
        WHERE attrelid = to_regclass('reduce_journal_streams')
          AND attname IN ('lease_until', 'taker', 'session') AND NOT attisdropped) = 3
    """

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
    // The lease, added to a table made by an earlier version (whose holder renews no lease:
    // its lease counts from now).
    """
    ALTER TABLE reduce_journal_streams
      ADD COLUMN IF NOT EXISTS lease_until timestamptz NOT NULL DEFAULT now()
    """,
    "ALTER TABLE reduce_journal_streams ADD COLUMN IF NOT EXISTS taker text",
    // The session, added to a table made by an earlier version: NULL until a sink of this
    // version claims the stream (once the lease lapsed).
    "ALTER TABLE reduce_journal_streams ADD COLUMN IF NOT EXISTS session text",
  ]

  /// Registers the stream with `writer` as its holder, if it is new, with a lapsed lease and no
  /// session (the opening sink claims both next).
  static func register(stream: String, writer: String) -> PostgresQuery {
    """
    INSERT INTO reduce_journal_streams (stream, holder, term, lease_until)
      VALUES (\(stream), \(writer), 1, now()) ON CONFLICT (stream) DO NOTHING
    """
  }

  /// The stream's holder, term and taker, and how long its holder's lease still runs by
  /// PostgreSQL's clock, in seconds (0 once it lapsed): one row of `(text, int8, text?, float8)`.
  static func holder(stream: String) -> PostgresQuery {
    """
    SELECT holder, term, taker,
      CASE WHEN lease_until <= now() THEN 0
        ELSE extract(epoch FROM lease_until - now())::float8 END
      FROM reduce_journal_streams WHERE stream = \(stream)
    """
  }

  /// Makes `session` the session of `writer`, the holder of `term`, and renews its lease, if
  /// no taker waits and (unless `ignoringLease`) the lease of the holder's earlier session has
  /// lapsed by PostgreSQL's clock: at most one row of `(int8)`, the term.
  static func claim(
    stream: String, term: Int, writer: String, session: String, lease: Duration,
    ignoringLease: Bool
  ) -> PostgresQuery {
    """
    UPDATE reduce_journal_streams
      SET session = \(session),
        lease_until = greatest(lease_until, now() + \(seconds(lease)) * interval '1 second')
      WHERE stream = \(stream) AND term = \(Int64(term)) AND holder = \(writer)
        AND taker IS NULL AND (lease_until <= now() OR \(ignoringLease))
      RETURNING term
    """
  }

  /// A lease's length in seconds, bound as `float8` (`now() + $n * interval '1 second'`).
  private static func seconds(_ lease: Duration) -> Double {
    Double(JournalConnection.nanoseconds(lease)) / 1e9
  }

  /// Renews the lease of the writer holding `term` in `session`, unless a taker waits, never
  /// shortening it (a statement abandoned after a timeout may run after a later one, with an
  /// earlier `now()`): one row of `(int8, text?, text?)`: 1 when the term and the session are still the
  /// writer's (0 when the stream was taken over, or another sink of the writer claimed it), the
  /// taker waiting (the lease was then left as it was), and the holder.
  static func renew(stream: String, term: Int, session: String, lease: Duration)
    -> PostgresQuery
  {
    """
    WITH renewed AS (
      UPDATE reduce_journal_streams
        SET lease_until = CASE WHEN taker IS NULL
          THEN greatest(lease_until, now() + \(seconds(lease)) * interval '1 second')
          ELSE lease_until END
        WHERE stream = \(stream) AND term = \(Int64(term)) AND session = \(session)
        RETURNING taker)
    SELECT (SELECT count(*) FROM renewed), (SELECT taker FROM renewed),
      (SELECT holder FROM reduce_journal_streams WHERE stream = \(stream))
    """
  }

  /// Ends the lease of the writer holding `term` in `session` now, so that a takeover (or the
  /// writer's next sink) need not wait for it.
  static func release(stream: String, term: Int, session: String) -> PostgresQuery {
    """
    UPDATE reduce_journal_streams SET lease_until = now()
      WHERE stream = \(stream) AND term = \(Int64(term)) AND session = \(session)
        AND lease_until > now()
    """
  }

  /// Records `writer` as waiting to take over the stream from the holder of `term`; its renewals
  /// then leave the lease as it is.
  static func requestTakeover(stream: String, term: Int, writer: String) -> PostgresQuery {
    """
    UPDATE reduce_journal_streams SET taker = \(writer)
      WHERE stream = \(stream) AND term = \(Int64(term))
    """
  }

  /// Withdraws `writer`'s request to take over the stream from the holder of `term`.
  static func withdrawTakeover(stream: String, term: Int, writer: String) -> PostgresQuery {
    """
    UPDATE reduce_journal_streams SET taker = NULL
      WHERE stream = \(stream) AND term = \(Int64(term)) AND taker = \(writer)
    """
  }

  /// Makes `writer` the stream's holder with the term after `term`, in `session`, with a
  /// lease, if `term` is
  /// still the stream's and (unless `ignoringLease`) its holder's lease has lapsed by
  /// PostgreSQL's clock: at most one row of `(int8)`, the new term.
  static func takeOver(
    stream: String, term: Int, writer: String, session: String, lease: Duration,
    ignoringLease: Bool
  ) -> PostgresQuery {
    """
    UPDATE reduce_journal_streams
      SET holder = \(writer), term = term + 1, taker = NULL, session = \(session),
        lease_until = now() + \(seconds(lease)) * interval '1 second'
      WHERE stream = \(stream) AND term = \(Int64(term))
        AND (lease_until < now() OR \(ignoringLease))
      RETURNING term
    """
  }

  /// The stream's last line: at most one row of `(int8, bytea)`.
  static func last(stream: String) -> PostgresQuery {
    "SELECT seq, line FROM reduce_journal WHERE stream = \(stream) ORDER BY seq DESC LIMIT 1"
  }

  /// Inserts rows if `term` and `session` are still the stream's, renews the writer's lease as
  /// ``renew(stream:term:session:lease:)`` does, and notifies the followers: one row of
  /// `(int8, int8, text?, text?)`: the number inserted, 1 when the term is still the writer's
  /// (0 when the stream was taken over, or another sink of the writer claimed it: nothing is
  /// inserted), the taker waiting, and the holder.
  ///
  /// One statement, so one transaction; the data-modifying CTEs run whether or not their rows
  /// are read, and the notification is delivered at commit.
  static func insert(
    stream: String, term: Int, session: String, lease: Duration, rows: [JournalRow]
  ) -> PostgresQuery {
    let sequences = rows.map { Int64($0.sequence) }
    let lines = rows.map { ByteBuffer(bytes: $0.bytes) }
    let snapshots = rows.map(\.isSnapshot)
    return """
      WITH holder AS (
        UPDATE reduce_journal_streams
          SET lease_until = CASE WHEN taker IS NULL
            THEN greatest(lease_until, now() + \(seconds(lease)) * interval '1 second')
            ELSE lease_until END
          WHERE stream = \(stream) AND term = \(Int64(term)) AND session = \(session)
          RETURNING taker),
      inserted AS (
        INSERT INTO reduce_journal (stream, seq, line, snapshot)
          SELECT \(stream), r.seq, r.line, r.snapshot
            FROM unnest(\(sequences)::int8[], \(lines)::bytea[], \(snapshots)::bool[])
              AS r(seq, line, snapshot)
            WHERE EXISTS (SELECT 1 FROM holder)
          RETURNING seq),
      notified AS (
        SELECT pg_notify(\(channel), \(stream)) FROM (SELECT 1 FROM inserted LIMIT 1) AS any_row)
      SELECT (SELECT count(*) FROM inserted) + 0 * (SELECT count(*) FROM notified),
        (SELECT count(*) FROM holder), (SELECT taker FROM holder),
        (SELECT holder FROM reduce_journal_streams WHERE stream = \(stream))
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
