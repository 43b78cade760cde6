public import Foundation
public import Reduce
import Synchronization

/// A middleware that logs every action it sees: its type and payload, the outcome, the
/// duration, and what changed in the state.
///
/// ```swift
/// let logger = LoggingMiddleware<AppState>(format: .text(style: .compact), sink: .standardError)
/// let store = try Store(initialState: AppState(), mutators: [counter], middleware: [logger])
/// store.dispatch(CounterAction.incremented(by: 2))
/// // #1 2024-05-01T12:00:00.123Z CounterAction {"incremented":{"by":2}} ok 0.012ms | count: 0 -> 2
/// ```
///
/// For each commit of the store whose action passes the `filter`, and each action that fails,
/// the middleware writes one ``LogEntry`` to its ``LogSink``: the sequence number, the time
/// (ISO 8601, UTC), the action's type name, its payload (JSON when the action is `Encodable`;
/// otherwise, in text formats, a reflected description), the outcome (ok, or the
/// `DispatchError` of the rest of the chain, which is then rethrown unchanged), the duration, and
/// a structural diff of the old and new state built with `Mirror`. Fields whose names contain one
/// of `redactedFields` are shown as `<redacted>` in payloads and diffs.
///
/// - **Successes** are logged by the middleware's ``commitObserver`` once the store made the
///   change and told its observers, with the state before and after: whatever action made the
///   change, however it was dispatched (an action a later middleware passes on late is logged
///   when it commits). An action that reaches the reducers and that no mutator handles is logged
///   too, with no changes. An action a later middleware swallows never reaches the reducers and
///   is not logged.
/// - **Failures** are logged by ``handle(_:context:next:)`` when `next` throws.
/// - **A `Batch`** is one commit, so one entry, with the change of the whole batch. If one of its
///   actions fails, the batch fails and changes nothing: that is one entry too, the batch's,
///   with the action's error (its actions go through the chain inside the batch's own
///   `handle`, which logs the failure; theirs do not).
/// - **The duration** runs from the moment this middleware's `handle` passed the action on to
///   the moment the entry is made: for a success, the rest of the chain, the reducers and the
///   store's observers (for a batch, of all its actions); for a failure, until `next` threw. The
///   logger's own work (the diff, the entry) is not in it. A change passed on late by a later
///   middleware, while no `handle` of this logger runs, has a duration of zero and the time of
///   its commit.
///
/// Place it after throttling and before undo (thunk, throttle, logging, undo), so that it sees
/// the actions that reach the reducers. A sink's failure is published on the store's `errors`
/// as `DispatchError/middlewareFailed(name:action:underlying:)`, once per run of failures
/// (until a write succeeds again); the dispatch itself still succeeds.
public struct LoggingMiddleware<State: Sendable>: Middleware {
  /// The middleware's name, unique in a store's chain.
  public let name: String
  /// The format of the entries.
  public let format: LogFormat
  /// Where the entries go.
  public let sink: any LogSink
  private let filter: (@Sendable (any Action) -> Bool)?
  private let actionTransformer: (@Sendable (any Action) -> any Action)?
  private let stateTransformer: (@Sendable (State) -> Any)?
  private let includesStateDiff: Bool
  private let renderer: Renderer
  private let encoder: ActionEncoder
  private let shared: SharedLoggerState
  private let tracker: DispatchTracker
  /// Whether the sink may keep entries back from the disk until asked
  /// (`LogSink.waitUntilDurable()`); a buffered file does not.
  private let waitsForDisk: Bool

  /// Creates a logging middleware.
  ///
  /// - Parameters:
  ///   - name: The middleware's name; give two loggers in one store different names.
  ///   - format: Text for people, or JSON lines for machines and audit trails.
  ///   - sink: Where entries go: `.standardOutput`, `.standardError`, `.file(path:durability:
  ///     chained:)`, or a ``LogSink`` of your own.
  ///   - filter: Which actions to log, asked once for each commit's action and each failed
  ///     action.
  ///   - actionTransformer: Replaces an action by what should be logged of it (to redact or
  ///     shorten it). The store still reduces the original.
  ///   - stateTransformer: Replaces the state by what should be diffed (a part of it, or a copy
  ///     with secrets removed); only its result is kept from before a change.
  ///   - redactedFields: Field names whose values are never logged, matched without regard to
  ///     case as part of a name (`token` hides `accessToken`).
  ///   - includesStateDiff: Whether entries list the state's changes; without it no state is
  ///     kept from before a change and no diff is computed.
  ///   - clock: Measures durations.
  ///   - now: Gives the entries' timestamps.
  public init(
    name: String = "LoggingMiddleware",
    format: LogFormat = .text(style: .compact),
    sink: any LogSink = .standardOutput,
    filter: (@Sendable (any Action) -> Bool)? = nil,
    actionTransformer: (@Sendable (any Action) -> any Action)? = nil,
    stateTransformer: (@Sendable (State) -> Any)? = nil,
    redactedFields: Set<String> = LogRedaction.defaultFields,
    includesStateDiff: Bool = true,
    clock: any Clock<Duration> = ContinuousClock(),
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.name = name
    self.format = format
    self.sink = sink
    self.filter = filter
    self.actionTransformer = actionTransformer
    self.stateTransformer = stateTransformer
    self.includesStateDiff = includesStateDiff
    self.renderer = Renderer(redactor: Redactor(redactedFields))
    self.encoder = ActionEncoder(redactor: renderer.redactor)
    self.shared = SharedLoggerState()
    self.tracker = DispatchTracker(clock: clock, now: now)
    self.waitsForDisk = sink.defersDurability
  }

  /// Opens a file sink, so that a file that cannot be written is found before any action.
  ///
  /// - Parameter store: The store's identity.
  /// - Throws: A ``LogSinkError`` when the file cannot be opened or its chain continued, or
  ///   when a chained file is given a text format.
  public func willAttach(to store: ObjectIdentifier) throws {
    guard let file = sink as? FileLogSink else { return }
    if file.chained, format != .jsonLines {
      throw LogSinkError.chainRequiresJSONLines(path: file.path)
    }
    try file.open()
  }

  /// Flushes a file sink to disk.
  ///
  /// - Parameter store: The store's identity.
  public func didDetach(from store: ObjectIdentifier) {
    tracker.forget(store)
    (sink as? FileLogSink)?.flushIfOpen()
  }

  /// Passes the action on, and logs its failure.
  ///
  /// Its success is logged by the ``commitObserver``. The failure of one of a `Batch`'s actions
  /// is logged once, as the batch's.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - context: The store's state and error reporting.
  ///   - next: Passes the action on.
  /// - Throws: The `DispatchError` of the rest of the chain, unchanged.
  public func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>)
    throws
  {
    let store = context.storeID
    let outermost = tracker.enter(
      store, report: { error, action in context.report(error, for: action) })
    defer { tracker.exit(store) }
    do {
      try next(action)
    } catch {
      if outermost, filter?(action) != false {
        let timing = tracker.entryTiming(in: store)
        log(action, outcome: .failed(error), changes: nil, timing: timing, in: store)
      }
      throw error
    }
  }

  /// Logs each commit with what it changed: the state before and after when the entries have a
  /// diff (only the `stateTransformer`'s result, with one), nothing kept otherwise.
  public var commitObserver: CommitObserver<State>? {
    let logger = self
    var afterTurn: (@Sendable () throws -> Void)?
    if waitsForDisk { afterTurn = { logger.waitForDisk() } }
    // An action no mutator handles reaches the reducers, changes nothing and is not committed:
    // logged when it is shown, as the commit that does not come would be. (An observer outside
    // this one, an audit trail earlier in the chain that cannot write, may still refuse it: its
    // failure is then logged too.)
    let unhandled: @Sendable (PendingCommit) -> Void = { change in
      guard change.mutators.isEmpty, !change.replacesState else { return }
      logger.logCommit(of: change.action, in: change.store) {
        logger.includesStateDiff ? [] : nil
      }
    }
    guard includesStateDiff else {
      return CommitObserver(
        watching: { _ in () }, willCommit: unhandled,
        didCommit: { commit in logger.logCommit(of: commit.action, in: commit.store) { nil } },
        afterTurn: afterTurn)
    }
    let renderer = renderer
    if let stateTransformer {
      return CommitObserver(
        watching: { Transformed(value: stateTransformer($0)) }, willCommit: unhandled,
        didCommit: { commit in
          logger.logCommit(of: commit.action, in: commit.store) {
            StateDiff.changes(from: commit.before.value, to: commit.after.value, renderer: renderer)
          }
        }, afterTurn: afterTurn)
    }
    return CommitObserver(
      watching: { $0 }, willCommit: unhandled,
      didCommit: { commit in
        logger.logCommit(of: commit.action, in: commit.store) {
          StateDiff.changes(from: commit.before, to: commit.after, renderer: renderer)
        }
      }, afterTurn: afterTurn)
  }

  /// Logs a commit whose action passes the filter, timed before its diff is made.
  private func logCommit(
    of action: any Action, in store: ObjectIdentifier, changes: () -> [LogEntry.Change]?
  ) {
    guard filter?(action) != false else { return }
    let timing = tracker.entryTiming(in: store)
    log(action, outcome: .ok, changes: changes(), timing: timing, in: store)
  }

  private func log(
    _ action: any Action, outcome: LogEntry.Outcome, changes: [LogEntry.Change]?,
    timing: DispatchTracker.Timing, in store: ObjectIdentifier
  ) {
    let logged = actionTransformer?(action) ?? action
    var entry = LogEntry(
      sequence: shared.nextSequence(), timestamp: timing.timestamp,
      action: actionTypeName(of: logged), payload: nil, outcome: outcome,
      duration: timing.duration, changes: changes)
    entry.payloadStorage = payload(of: logged)
    do {
      try sink.write(LogRecord(entry: entry, format: format))
      shared.sinkSucceeded()
      if waitsForDisk { tracker.wroteEntry(for: action, in: store) }
    } catch {
      // Once per run of failures: a full disk is one problem, not one per action (and a
      // fallback action dispatched for the report would fail to be logged in turn).
      if shared.sinkFailed() { tracker.report(error, for: action, in: store) }
    }
  }

  /// After the turn: waits until this thread's entries are on disk.
  ///
  /// A failure is published, and the dispatch still succeeds.
  private func waitForDisk() {
    guard let written = tracker.takeWrittenEntry() else { return }
    do {
      try sink.waitUntilDurable()
    } catch {
      if shared.sinkFailed() { tracker.report(error, for: written.action, in: written.store) }
    }
  }

  private func payload(of action: any Action) -> PayloadStorage? {
    // Not `type(of:)`, which asks the runtime; for a plain type the two are the same.
    let actionType = action.dispatchedType
    let type = ObjectIdentifier(actionType)
    if !shared.hasNoPayload(type) {
      if action is ReplaceState<State> { return nil }
      if let batch = action as? Batch {
        let describe = format == .jsonLines ? nil : renderer.render
        return .value(encoder.json(of: batch, describingOthers: describe))
      }
      if let json = encoder.jsonBytes(of: action) { return .encoded(json) }
      // Neither replacement, batch nor `Encodable`: so is every action of a plain type.
      if TypeTraits.isPlain(actionType) { shared.noteNoPayload(type) }
    }
    return format == .jsonLines ? nil : .given(.description(renderer.render(action)))
  }
}

/// What a `stateTransformer` returned, kept from before a commit to after it.
///
/// `@unchecked Sendable`: made and read only in the store's turn, by the thread holding it.
private struct Transformed: @unchecked Sendable {
  let value: Any
}

/// The names the ``LoggingMiddleware`` redacts by default, and what it writes instead.
public enum LogRedaction {
  /// `password`, `secret` and `token`: any field whose name contains one of them, in any case.
  public static let defaultFields: Set<String> = ["password", "secret", "token"]
  /// What a redacted value is logged as: `<redacted>`.
  public static let placeholder = "<redacted>"
}

/// The state of one middleware shared by its copies: sequence numbers and whether its sink is
/// failing.
final class SharedLoggerState: Sendable {
  private let sequence = Atomic<Int>(0)
  private let failing = Atomic<Bool>(false)
  /// The plain action types found to have no payload: the casts that find out cost several
  /// hundred instructions each, a look-up here a few hundred in all.
  private let noPayload = Locked<Set<ObjectIdentifier>>([])

  func nextSequence() -> Int {
    sequence.wrappingAdd(1, ordering: .relaxed).newValue
  }

  /// Records a failed write; true when it starts a run of failures (and should be reported).
  func sinkFailed() -> Bool {
    !failing.exchange(true, ordering: .relaxed)
  }

  func sinkSucceeded() {
    if failing.load(ordering: .relaxed) { failing.store(false, ordering: .relaxed) }
  }

  /// Whether actions of a type were found to have no payload.
  func hasNoPayload(_ type: ObjectIdentifier) -> Bool {
    noPayload.withLock { $0.contains(type) }
  }

  /// Remembers that actions of a plain type have no payload.
  func noteNoPayload(_ type: ObjectIdentifier) {
    noPayload.withLock { types in
      // Generic action types could be made without end: keep the set small.
      if types.count >= 1024 { types.removeAll() }
      types.insert(type)
    }
  }
}
