public import Foundation
public import Reduce

/// A middleware that keeps a store's write-ahead log: every change is recorded before it is
/// made, and a change whose entry cannot be written is not made.
///
/// ```swift
/// let audit = AuditTrail<Ledger>(path: "ledger.log", durability: .everyEntry)
/// let store = try Store(initialState: Ledger(), mutators: [balances], middleware: [audit])
/// let ledger = try store.dispatch(LedgerAction.deposited(account: "ada", amount: 100)).get()
/// // ledger.log: {"seq":1,"prev":"000…","ts":"…","action":"LedgerAction",
/// //   "payload":{"deposited":{"account":"ada","amount":100}},"outcome":"ok",
/// //   "durationNs":2100,"mutators":["\\Ledger.balances"]}
/// ```
///
/// For each action that passes the `filter` and reaches the reducers, the trail writes one
/// JSON-lines ``LogEntry`` once the change is decided (every `validate:` check passed) and
/// before anyone can see it (``Next/callAsFunction(_:willCommit:)``): the time, the action's
/// type and payload (its JSON when it is `Encodable`), and the keys of the mutators that make
/// the change. What an entry records is bounded by the action, never by the size of the state:
/// the readable diff of ``LoggingMiddleware`` walks the whole state and is for debugging.
///
/// - **Write-ahead.** If the entry cannot be written (a full disk, a removed file, an I/O
///   error), the action fails with ``DispatchError/middlewareFailed(name:action:underlying:)``
///   naming the sink's error, the state stays as it was, and the failure is published on the
///   store's `errors`. With a ``FileLogSink`` whose durability is
///   ``FileLogSink/Durability/everyEntry``, `dispatch` and `send` return only once the entry is
///   on disk; concurrent dispatchers share one flush (``LogSink/waitUntilDurable()``, run after
///   the store released its turn). If that flush fails, the dispatch fails, although its change
///   was made.
/// - **Failures.** An action that a check, a reducer or a later middleware refuses changes
///   nothing; it is recorded afterwards, with `"outcome":"failed"` and the error (a failure to
///   record it is published on `errors`; the dispatch's own error is returned).
/// - **Batches.** A `Batch` is one entry, with the mutators of all its actions, written before
///   the batch commits.
/// - **Not recorded:** an action no later middleware lets reach the reducers (swallowed, or
///   deferred until it does). Place the trail last in the chain, so that the actions it records
///   are the ones the reducers received: replaying them into a store rebuilds its state.
///
/// Payloads are recorded exactly, with no redaction by default, so that a replay can decode
/// them; keep secrets out of actions, or name fields in `redactedFields` (actions with redacted
/// fields then cannot be replayed faithfully).
public struct AuditTrail<State: Sendable>: Middleware {
  /// The middleware's name, unique in a store's chain.
  public let name: String
  /// Where the entries go.
  public let sink: any LogSink
  private let filter: (@Sendable (any Action) -> Bool)?
  private let encoder: ActionEncoder
  private let now: @Sendable () -> Date
  private let waitsForDisk: Bool
  private let shared = SharedLoggerState()

  /// Creates an audit trail that writes to a sink.
  ///
  /// - Parameters:
  ///   - name: The middleware's name.
  ///   - sink: Where entries go, as JSON lines: usually a chained
  ///     ``FileLogSink`` (``init(name:path:durability:filter:redactedFields:now:)``).
  ///   - filter: Which actions to record; the others are passed on unrecorded. Leave it out for
  ///     a log that replays to the store's state.
  ///   - redactedFields: Field names whose values are recorded as `<redacted>` (see
  ///     ``LogRedaction``); none by default.
  ///   - now: Gives the entries' timestamps.
  public init(
    name: String = "AuditTrail",
    sink: any LogSink,
    filter: (@Sendable (any Action) -> Bool)? = nil,
    redactedFields: Set<String> = [],
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.name = name
    self.sink = sink
    self.filter = filter
    self.encoder = ActionEncoder(redactor: Redactor(redactedFields))
    self.now = now
    self.waitsForDisk = sinkMayHoldBack(sink)
  }

  /// Creates an audit trail that writes a hash-chained JSON-lines file.
  ///
  /// - Parameters:
  ///   - name: The middleware's name.
  ///   - path: The log file's path; an existing chained log is continued.
  ///   - durability: When an entry is on disk: with ``FileLogSink/Durability/everyEntry`` (the
  ///     default) before its dispatch returns.
  ///   - filter: Which actions to record.
  ///   - redactedFields: Field names whose values are recorded as `<redacted>`.
  ///   - now: Gives the entries' timestamps.
  public init(
    name: String = "AuditTrail",
    path: String,
    durability: FileLogSink.Durability = .everyEntry,
    filter: (@Sendable (any Action) -> Bool)? = nil,
    redactedFields: Set<String> = [],
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.init(
      name: name, sink: FileLogSink(path: path, durability: durability, chained: true),
      filter: filter, redactedFields: redactedFields, now: now)
  }

  /// Opens a file sink, so that a log that cannot be written or continued is found before any
  /// action.
  ///
  /// - Parameter store: The store's identity.
  /// - Throws: A ``LogSinkError`` when the file cannot be opened or its chain continued.
  public func willAttach(to store: ObjectIdentifier) throws {
    try (sink as? FileLogSink)?.open()
  }

  /// Flushes a file sink to disk.
  ///
  /// - Parameter store: The store's identity.
  public func didDetach(from store: ObjectIdentifier) {
    (sink as? FileLogSink)?.flushIfOpen()
  }

  /// Records the action's change before it is made, or its failure after.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - context: The store's state and error reporting.
  ///   - next: Passes the action on.
  /// - Throws: The `DispatchError` of the rest of the chain, or the sink's failure to write.
  public func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>)
    throws
  {
    // A batch is one entry, written for the `Batch` itself: its actions pass on unrecorded.
    if context.batch != nil || filter?(action) == false {
      try next(action)
      return
    }
    let timestamp = now()
    let start = ContinuousClock.now
    do {
      try next(
        action,
        willCommit: { change in
          let entry = makeEntry(
            change.action, timestamp: timestamp, outcome: .ok, duration: start.duration(to: .now),
            mutators: change.mutators.map(\.description))
          try sink.write(LogRecord(entry: entry, format: .jsonLines))
        })
    } catch {
      // Refused by this trail's own write: the sink failed, nothing to record it in.
      if case .middlewareFailed(let refuser, _, _) = error, refuser == name { throw error }
      let entry = makeEntry(
        action, timestamp: timestamp, outcome: .failed(error), duration: start.duration(to: .now),
        mutators: nil)
      do {
        try sink.write(LogRecord(entry: entry, format: .jsonLines))
        waitForDisk(context)
      } catch let failure {
        context.report(failure)
      }
      throw error
    }
    waitForDisk(context)
  }

  /// Makes the dispatch wait, before it returns, until what the sink wrote is on disk.
  private func waitForDisk(_ context: MiddlewareContext<State>) {
    guard waitsForDisk else { return }
    let sink = sink
    context.beforeReturning { try sink.waitUntilDurable() }
  }

  private func makeEntry(
    _ action: any Action, timestamp: Date, outcome: LogEntry.Outcome, duration: Duration,
    mutators: [String]?
  ) -> LogEntry {
    var entry = LogEntry(
      sequence: shared.nextSequence(), timestamp: timestamp, action: actionTypeName(of: action),
      payload: payload(of: action).map { .json($0.serialized) }, outcome: outcome,
      duration: duration, changes: nil, mutators: mutators)
    entry.payloadIsSerialized = true
    return entry
  }

  private func payload(of action: any Action) -> JSONValue? {
    if let batch = action as? Batch { return encoder.json(of: batch, describingOthers: nil) }
    if let replacement = action as? ReplaceState<State> {
      guard let state = replacement.state as? any Encodable else { return nil }
      return .object([("state", encoder.json(ofValue: state))])
    }
    return encoder.json(of: action)
  }
}

/// Whether a sink may keep entries back from the disk until `waitUntilDurable()` is called: a
/// durable file does; a buffered file and the standard streams do not; another sink may.
func sinkMayHoldBack(_ sink: any LogSink) -> Bool {
  if let file = sink as? FileLogSink { return file.durability == .everyEntry }
  return !(sink is StreamLogSink)
}
