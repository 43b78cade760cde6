public import Logging
public import PostgresNIO
public import Reduce
public import ReduceLogging

extension StandbyStore {
  /// Promotes the standby of a PostgreSQL stream: takes the stream over, applies every entry
  /// committed before, and makes the standby's store a primary whose `AuditTrail` continues
  /// the chain.
  ///
  /// The takeover comes first: it asks the old primary to stop accepting changes, waits until
  /// the old primary's lease has lapsed by PostgreSQL's clock (a running primary commits what
  /// it accepted before; a dead one commits nothing more), then makes `writer` the stream's
  /// holder with a new term; from then on every commit of the old primary fails
  /// (``PostgresJournalError/fenced(stream:holder:)``), so the entries the standby then catches
  /// up with are all there will be. Promotion never happens by itself:
  /// deciding that the primary is gone is the operator's call. If the promotion fails after the
  /// takeover, the stream stays held by `writer` (the old primary stays fenced) and the
  /// standby goes on following: promote it again.
  ///
  /// ```swift
  /// let standby = try StandbyStore(
  ///   initialState: Ledger(), mutators: [balances],
  ///   journal: PostgresJournalSource(configuration: configuration, stream: "ledger"),
  ///   actions: ReplayableActions([LedgerAction.self]))
  /// // … the primary died, and the operator decided to fail over:
  /// let store = try await standby.promote(
  ///   takingOver: "ledger", configuration: configuration, writer: "ledger-b")
  /// ```
  ///
  /// - Parameters:
  ///   - stream: The stream the standby follows.
  ///   - configuration: How to reach PostgreSQL.
  ///   - writer: The new primary's writer name.
  ///   - ignoringHolderLease: Whether to take the stream at once, without waiting for the old
  ///     primary's lease to lapse: only when the old primary is known to be stopped (see
  ///     ``PostgresLogSink``: if it is running, its changes of its last `timeout` may be in its
  ///     memory and not in the journal).
  ///   - takeoverTimeout: The longest the takeover waits for the old primary's lease to lapse.
  ///   - checkpoints: Keyed checkpoints, as the old primary wrote them.
  ///   - middleware: The app's middleware, outermost first.
  ///   - name: The audit trail's name.
  ///   - lease: How long PostgreSQL grants the new primary's lease for; longer than `timeout`.
  ///   - timeout: The longest a commit may take.
  ///   - logger: Where postgres-nio logs.
  /// - Returns: The store, now a primary.
  /// - Throws: A ``PostgresJournalError`` when the stream cannot be taken over
  ///   (``PostgresJournalError/leaseHeld(stream:holder:waited:)`` when the old primary kept its
  ///   lease for `takeoverTimeout`); a
  ///   `StandbyError` as `StandbyStore.promote(middleware:journal:)` throws it, with
  ///   `StandbyError.diverged(applied:journal:)` when the standby did not end at the stream's
  ///   last line.
  public func promote(
    takingOver stream: String, configuration: PostgresConnection.Configuration, writer: String,
    ignoringHolderLease: Bool = false, takeoverTimeout: Duration = .seconds(60),
    checkpoints: AuditCheckpoints? = nil, middleware: [any Middleware<State>] = [],
    name: String = "AuditTrail", lease: Duration = .seconds(15),
    timeout: Duration = .seconds(10), logger: Logger = Logger(label: "ReducePostgres")
  ) async throws -> Store<State> {
    let sink = try await PostgresLogSink.open(
      configuration: configuration, stream: stream, writer: writer, takingOver: true,
      ignoringHolderLease: ignoringHolderLease, takeoverTimeout: takeoverTimeout,
      checkpoints: checkpoints, lease: lease, timeout: timeout, logger: logger)
    do {
      return try await promote(middleware: middleware) { position in
        guard position == sink.openedPosition else {
          throw StandbyError.diverged(applied: position, journal: sink.openedPosition)
        }
        return AuditTrail<State>(name: name, sink: sink)
      }
    } catch {
      sink.close()
      throw error
    }
  }
}
