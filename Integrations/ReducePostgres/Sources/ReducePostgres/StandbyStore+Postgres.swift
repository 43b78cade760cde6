public import Logging
public import PostgresNIO
public import Reduce
public import ReduceLogging

extension StandbyStore {
  /// Promotes the standby of a PostgreSQL stream: takes the stream over, applies every entry
  /// committed before, and makes the standby's store a primary whose `AuditTrail` continues
  /// the chain.
  ///
  /// The takeover comes first: it makes `writer` the stream's holder with a new term, waiting
  /// for the old primary's commit in flight, if any; from then on every commit of the old
  /// primary fails (``PostgresJournalError/fenced(stream:holder:)``), so the entries the
  /// standby then catches up with are all there will be. Promotion never happens by itself:
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
  ///   - checkpoints: Keyed checkpoints, as the old primary wrote them.
  ///   - middleware: The app's middleware, outermost first.
  ///   - name: The audit trail's name.
  ///   - timeout: The longest a commit may take.
  ///   - logger: Where postgres-nio logs.
  /// - Returns: The store, now a primary.
  /// - Throws: A ``PostgresJournalError`` when the stream cannot be taken over; a
  ///   `StandbyError` as `StandbyStore.promote(middleware:journal:)` throws it, with
  ///   `StandbyError.diverged(applied:journal:)` when the standby did not end at the stream's
  ///   last line.
  public func promote(
    takingOver stream: String, configuration: PostgresConnection.Configuration, writer: String,
    checkpoints: AuditCheckpoints? = nil, middleware: [any Middleware<State>] = [],
    name: String = "AuditTrail", timeout: Duration = .seconds(10),
    logger: Logger = Logger(label: "ReducePostgres")
  ) async throws -> Store<State> {
    let sink = try await PostgresLogSink.open(
      configuration: configuration, stream: stream, writer: writer, takingOver: true,
      checkpoints: checkpoints, timeout: timeout, logger: logger)
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
