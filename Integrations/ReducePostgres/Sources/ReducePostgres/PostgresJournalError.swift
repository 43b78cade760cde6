/// Why a PostgreSQL journal refused an entry, could not commit it, or could not be opened.
///
/// An ``PostgresLogSink`` throws it from `write(_:)` and `waitUntilDurable()`; an `AuditTrail`
/// then fails the dispatch with `DispatchError.middlewareFailed(name:action:underlying:)` whose
/// `underlying` is this error.
public enum PostgresJournalError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The stream belongs to another writer: `holder` took it over (a promoted standby), so this
  /// writer may not append. Final: the sink accepts nothing more.
  case fenced(stream: String, holder: String)
  /// The table already holds another entry at `sequence`: a second writer appended to the
  /// stream. Final: the sink accepts nothing more.
  case conflict(stream: String, sequence: Int)
  /// PostgreSQL could not be reached, or the commit failed or was cut off. The entries that were
  /// being committed are kept and committed again before the sink accepts a new one; until
  /// that succeeds every write throws this error, so no new change is made.
  case unavailable(stream: String, reason: String)
  /// PostgreSQL did not answer within the sink's timeout. The entries are kept, as for
  /// ``unavailable(stream:reason:)``.
  case timedOut(stream: String, after: Duration)
  /// The stream's last stored line is not a chained entry with its row's `seq`: the table was
  /// edited by hand. Nothing is written until it is repaired.
  case cannotContinueChain(stream: String, sequence: Int, reason: String)
  /// The sink was given a record in a text format; a journal needs JSON lines.
  case notJSONLines(stream: String)
  /// A stream or writer name is empty.
  case invalidName(String)
  /// The sink was closed.
  case closed(stream: String)
  /// This writer's lease on the stream has lapsed by its own clock (it could not renew it in
  /// time), so a change made now might not be committed before another writer takes the
  /// stream over: the change is refused before it is made. The sink renews the lease in the
  /// background; once PostgreSQL answers, changes are accepted again, unless the stream was
  /// taken over (the sink then fails with ``fenced(stream:holder:)``).
  case leaseExpired(stream: String)
  /// An opening waited `waited` for the lease of the stream's holder, `holder`, to lapse, and
  /// it did not: the holder goes on renewing it. For a takeover, the holder ignores takeover
  /// requests, or another takeover raced this one; for a sink of the holder's own writer
  /// (`holder` is then `"<writer> (another session of this writer)"`), another sink of that
  /// writer is live: the process was started twice. The stream is left to its holder, and
  /// nothing was changed.
  case leaseHeld(stream: String, holder: String, waited: Duration)
  /// The lease is not longer than the commit timeout, or one of them is not positive: the
  /// lease must outlast a commit (see `PostgresLogSink`'s documentation).
  case invalidLease(lease: Duration, timeout: Duration)

  /// Whether the error is final: the sink accepts no more entries, and the store that wrote
  /// them should be rebuilt from the journal by whoever now holds the stream.
  public var isFinal: Bool {
    switch self {
    case .fenced, .conflict, .cannotContinueChain, .closed, .notJSONLines, .invalidName,
      .invalidLease:
      true
    case .unavailable, .timedOut, .leaseExpired, .leaseHeld: false
    }
  }

  /// A sentence that says what failed and what to do.
  public var description: String {
    switch self {
    case .fenced(let stream, let holder):
      "The journal stream \(stream) is held by the writer \(holder); this writer may not append to it. Rebuild this process as a standby, or take the stream over deliberately."
    case .conflict(let stream, let sequence):
      "Another writer already appended entry \(sequence) to the journal stream \(stream); this writer stops. Only one writer may append to a stream."
    case .unavailable(let stream, let reason):
      "PostgreSQL failed for the journal stream \(stream): \(reason). A sink keeps the entries of a failed commit and commits them again before it accepts a new change."
    case .timedOut(let stream, let after):
      "PostgreSQL did not answer within \(after) for the journal stream \(stream). A sink keeps the entries of a failed commit and commits them again before it accepts a new change."
    case .cannotContinueChain(let stream, let sequence, let reason):
      "Cannot continue the journal stream \(stream) after entry \(sequence): \(reason)."
    case .notJSONLines(let stream):
      "The journal stream \(stream) stores chained JSON lines; the record was in a text format."
    case .invalidName(let what):
      "The journal needs a non-empty \(what)."
    case .closed(let stream):
      "The sink of the journal stream \(stream) was closed."
    case .leaseExpired(let stream):
      "This writer's lease on the journal stream \(stream) lapsed before it could renew it, so the change was refused before it was made; the lease is renewed once PostgreSQL answers again."
    case .leaseHeld(let stream, let holder, let waited):
      "The writer \(holder) kept its lease on the journal stream \(stream) for the \(waited) this writer waited; the stream is left to it. If it is known to be stopped, open the stream ignoring its lease."
    case .invalidLease(let lease, let timeout):
      "A journal lease of \(lease) must be longer than the commit timeout of \(timeout), and both positive."
    }
  }
}
