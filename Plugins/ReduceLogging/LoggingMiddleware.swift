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
/// For each action that passes the `filter`, the middleware reads the state, passes the action
/// on with `next`, reads the state again, and writes one ``LogEntry`` to its ``LogSink``: the
/// sequence number, the time (ISO 8601, UTC), the action's type name, its payload (JSON when the
/// action is `Encodable`; otherwise, in text formats, a reflected description), the outcome
/// (ok, or the `DispatchError` of the rest of the chain, which is then rethrown unchanged), the
/// duration of the rest of the chain and the reducers, and a structural diff of the old and new
/// state built with `Mirror`. Fields whose names contain one of `redactedFields` are shown as
/// `<redacted>` in payloads and diffs.
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
  private let measure: @Sendable (() -> DispatchError?) -> (DispatchError?, Duration)
  private let now: @Sendable () -> Date
  private let shared: SharedLoggerState
  /// Whether the sink may keep entries back from the disk until asked
  /// (`LogSink.waitUntilDurable()`); a buffered file does not.
  private let waitsForDisk: Bool
  /// Passes an action on; made where `State` is known, so that it runs specialised.
  private let forward: @Sendable (any Action, Next<State>) throws(DispatchError) -> Void

  /// Creates a logging middleware.
  ///
  /// - Parameters:
  ///   - name: The middleware's name; give two loggers in one store different names.
  ///   - format: Text for people, or JSON lines for machines and audit trails.
  ///   - sink: Where entries go: `.standardOutput`, `.standardError`, `.file(path:durability:
  ///     chained:)`, or a ``LogSink`` of your own.
  ///   - filter: Which actions to log; the others are passed on at the cost of this one call.
  ///   - actionTransformer: Replaces an action by what should be logged of it (to redact or
  ///     shorten it). The store still reduces the original.
  ///   - stateTransformer: Replaces the state by what should be diffed (a part of it, or a copy
  ///     with secrets removed).
  ///   - redactedFields: Field names whose values are never logged, matched without regard to
  ///     case as part of a name (`token` hides `accessToken`).
  ///   - includesStateDiff: Whether entries list the state's changes; without it the state is
  ///     not read and no diff is computed.
  ///   - clock: Measures durations.
  ///   - now: Gives the entries' timestamps.
  @inlinable
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
    // Inlined where the store's state type is concrete, this closure is compiled for it: the
    // rest of the chain then runs specialised instead of through generic metadata.
    self.init(
      name: name, format: format, sink: sink, filter: filter,
      actionTransformer: actionTransformer, stateTransformer: stateTransformer,
      redactedFields: redactedFields, includesStateDiff: includesStateDiff, clock: clock,
      now: now
    ) { action, next throws(DispatchError) in
      try next(action)
    }
  }

  @usableFromInline
  init(
    name: String,
    format: LogFormat,
    sink: any LogSink,
    filter: (@Sendable (any Action) -> Bool)?,
    actionTransformer: (@Sendable (any Action) -> any Action)?,
    stateTransformer: (@Sendable (State) -> Any)?,
    redactedFields: Set<String>,
    includesStateDiff: Bool,
    clock: any Clock<Duration>,
    now: @escaping @Sendable () -> Date,
    forward: @escaping @Sendable (any Action, Next<State>) throws(DispatchError) -> Void
  ) {
    self.forward = forward
    self.name = name
    self.format = format
    self.sink = sink
    self.filter = filter
    self.actionTransformer = actionTransformer
    self.stateTransformer = stateTransformer
    self.includesStateDiff = includesStateDiff
    self.renderer = Renderer(redactor: Redactor(redactedFields))
    self.encoder = ActionEncoder(redactor: renderer.redactor)
    self.measure = Self.stopwatch(clock)
    self.now = now
    self.shared = SharedLoggerState()
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
    (sink as? FileLogSink)?.flushIfOpen()
  }

  /// Logs the action around passing it on.
  ///
  /// A `Batch` is one entry, with the change of the whole batch; the batch's own actions, which
  /// the store then sends through the chain with `context.batch` set, pass on unlogged.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - context: The store's state and error reporting.
  ///   - next: Passes the action on.
  /// - Throws: The `DispatchError` of the rest of the chain, unchanged.
  public func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>)
    throws
  {
    // A batch is one entry, written for the `Batch` itself: its actions pass on unlogged.
    if context.batch != nil || filter?(action) == false {
      try forward(action, next)
      return
    }
    let timestamp = now()
    let oldState = includesStateDiff ? context.state : nil
    let (failure, duration) = measure { () -> DispatchError? in
      do throws(DispatchError) {
        try forward(action, next)
        return nil
      } catch {
        return error
      }
    }
    var changes: [LogEntry.Change]?
    if let oldState {
      let newState = context.state
      if let stateTransformer {
        changes = StateDiff.changes(
          from: stateTransformer(oldState), to: stateTransformer(newState), renderer: renderer)
      } else {
        changes = StateDiff.changes(from: oldState, to: newState, renderer: renderer)
      }
    }
    let logged = actionTransformer?(action) ?? action
    var entry = LogEntry(
      sequence: shared.nextSequence(), timestamp: timestamp, action: actionTypeName(of: logged),
      payload: nil, outcome: failure.map(LogEntry.Outcome.failed) ?? .ok, duration: duration,
      changes: changes)
    entry.payloadStorage = payload(of: logged)
    do {
      try sink.write(LogRecord(entry: entry, format: format))
      shared.sinkSucceeded()
      if waitsForDisk { waitForDisk(context) }
    } catch {
      // Once per run of failures: a full disk is one problem, not one per action (and a
      // fallback action dispatched for the report would fail to be logged in turn).
      if shared.sinkFailed() { context.report(error) }
    }
    if let failure { throw failure }
  }

  /// Makes the dispatch wait, before it returns, until the entry is on disk; a failure is
  /// published, and the dispatch still succeeds.
  private func waitForDisk(_ context: MiddlewareContext<State>) {
    let sink = sink
    let shared = shared
    context.beforeReturning {
      do {
        try sink.waitUntilDurable()
      } catch {
        if shared.sinkFailed() { context.report(error) }
      }
    }
  }

  private static func stopwatch<C: Clock<Duration>>(_ clock: C)
    -> @Sendable (() -> DispatchError?) -> (DispatchError?, Duration)
  {
    { body in
      let start = clock.now
      let result = body()
      return (result, start.duration(to: clock.now))
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
