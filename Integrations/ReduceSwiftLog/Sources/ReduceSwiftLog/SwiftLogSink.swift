public import Logging
import Reduce
public import ReduceLogging

/// A log sink that sends each entry to a swift-log `Logger`: a short message, the action's type
/// name, with the rest of the entry as structured metadata.
///
/// ```swift
/// let logger = Logger(label: "ledger")
/// let debug = LoggingMiddleware<Ledger>(sink: .logger(logger))
/// let store = try Store(initialState: Ledger(), mutators: [balances], middleware: [debug])
/// store.dispatch(Deposit(account: "ada", amount: 100))
/// // With swift-log's StreamLogHandler:
/// // 2024-05-01T12:00:00+0000 info ledger: reduce.changes.count=1
/// //   reduce.changes.paths=["balances[\"ada\"]"] reduce.durationNs=20621 reduce.outcome=ok
/// //   reduce.payload={"account":"ada","amount":100} reduce.seq=1 [ReduceSwiftLog] Deposit
/// ```
///
/// A success is logged at ``successLevel`` (`info` by default), a failure at ``failureLevel``
/// (`error` by default). A failure's `DispatchError` is the log event's error (swift-log's
/// `LogEvent.error`: `StreamLogHandler` shows it as `error.message` and `error.type`). The
/// metadata keys are those of ``MetadataKey``; a key is left out when the entry has no value
/// for it. The entry's values are already redacted by the middleware that made it
/// (`redactedFields:`), and the sink adds no value of its own: a redacted field stays
/// `<redacted>`.
///
/// The sink logs on the thread and in the task that runs the action through the middleware,
/// as every sink is called: a `Logger.MetadataProvider` of the logger's handler that reads a
/// task-local value (a request id) reads it there. An entry whose level the logger's
/// `logLevel` filters out costs one comparison: its metadata is not built and the metadata
/// provider is not asked. Writing never throws.
///
/// The logger's handler writes the entry synchronously, in the store's turn, as the built-in
/// sinks do: give the logger a handler that does not block on slow output.
public struct SwiftLogSink: LogSink {
  /// The logger the entries go to, with its handler, level, metadata and metadata provider.
  public let logger: Logger
  /// The level of an entry whose dispatch succeeded.
  public let successLevel: Logger.Level
  /// The level of an entry whose dispatch failed.
  public let failureLevel: Logger.Level
  /// How many changed paths an entry's ``MetadataKey/changedPaths`` lists at most; the count
  /// in ``MetadataKey/changeCount`` is always the whole number.
  public let maximumChangedPaths: Int
  /// Called each time the sink builds an entry's metadata: lets the tests see that a filtered
  /// entry builds none.
  private let metadataWillBuild: (@Sendable () -> Void)?

  /// Creates a sink that logs to `logger`.
  ///
  /// - Parameters:
  ///   - logger: The logger the entries go to.
  ///   - successLevel: The level of an entry whose dispatch succeeded.
  ///   - failureLevel: The level of an entry whose dispatch failed.
  ///   - maximumChangedPaths: How many changed paths an entry lists at most (a negative number
  ///     counts as 0); the number of changes is always given whole.
  public init(
    logger: Logger,
    successLevel: Logger.Level = .info,
    failureLevel: Logger.Level = .error,
    maximumChangedPaths: Int = 20
  ) {
    self.init(
      logger: logger, successLevel: successLevel, failureLevel: failureLevel,
      maximumChangedPaths: maximumChangedPaths, metadataWillBuild: nil)
  }

  /// Creates a sink that tells `metadataWillBuild` each time it builds an entry's metadata.
  init(
    logger: Logger, successLevel: Logger.Level, failureLevel: Logger.Level,
    maximumChangedPaths: Int, metadataWillBuild: (@Sendable () -> Void)?
  ) {
    self.logger = logger
    self.successLevel = successLevel
    self.failureLevel = failureLevel
    self.maximumChangedPaths = max(0, maximumChangedPaths)
    self.metadataWillBuild = metadataWillBuild
  }

  /// Logs the record's entry, unless the logger's level filters its level out.
  ///
  /// - Parameter record: The entry; its text, in the middleware's format, is not read.
  public func write(_ record: LogRecord) {
    let entry = record.entry
    let failure: DispatchError?
    if case .failed(let error) = entry.outcome { failure = error } else { failure = nil }
    let level = failure == nil ? successLevel : failureLevel
    // `Logger.log` checks the level too, but only after the call: checked here, a filtered
    // entry reads none of its fields.
    guard logger.logLevel <= level else { return }
    logger.log(
      level: level, Logger.Message(stringLiteral: entry.action), error: failure,
      metadata: metadata(for: entry))
  }

  /// The metadata the sink logs for an entry, without the logger's own.
  ///
  /// - Parameter entry: The entry.
  /// - Returns: The entry's fields under the keys of ``MetadataKey``.
  public func metadata(for entry: LogEntry) -> Logger.Metadata {
    metadataWillBuild?()
    var metadata: Logger.Metadata = [
      MetadataKey.sequence: .stringConvertible(entry.sequence),
      MetadataKey.durationNanoseconds: .stringConvertible(Self.nanoseconds(of: entry.duration)),
    ]
    // The error itself is the event's error (`write(_:)`), which the handler shows.
    metadata[MetadataKey.outcome] = entry.outcome.isSuccess ? "ok" : "failed"
    if let payload = entry.payload {
      metadata[MetadataKey.payload] = .string(payload.text)
    }
    if let mutators = entry.mutators {
      metadata[MetadataKey.mutators] = .array(mutators.map { .string($0) })
    }
    if let changes = entry.changes {
      metadata[MetadataKey.changeCount] = .stringConvertible(changes.count)
      metadata[MetadataKey.changedPaths] = .array(
        changes.prefix(maximumChangedPaths).map { .string($0.path) })
    }
    return metadata
  }

  /// A duration in whole nanoseconds, as the JSON lines' `durationNs`; saturated at `Int64`'s
  /// bounds.
  static func nanoseconds(of duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return seconds < 0 ? .min : .max }
    let (total, overflowAgain) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
    if overflowAgain { return seconds < 0 ? .min : .max }
    return total
  }
}

extension SwiftLogSink {
  /// The metadata keys of an entry, under the `reduce.` prefix (swift-log's dot notation), so
  /// that they do not collide with the keys of the logger and its metadata provider.
  ///
  /// Their names follow the fields of the `LogFormat.jsonLines` format.
  public enum MetadataKey: Sendable {
    /// `reduce.seq`: the entry's number in the middleware that made it, from 1.
    ///
    /// The count starts at 1 in each process. An `AuditTrail`'s file numbers its own
    /// entries, continuing after a restart: a trail that logs to a `Logger` counts its own.
    public static let sequence = "reduce.seq"
    /// `reduce.outcome`: `ok`, or `failed` when the dispatch failed.
    public static let outcome = "reduce.outcome"
    /// `reduce.durationNs`: how long the rest of the chain and the reducers took, in whole
    /// nanoseconds.
    public static let durationNanoseconds = "reduce.durationNs"
    /// `reduce.payload`: the action's payload, redacted.
    ///
    /// Compact JSON for an `Encodable` action; for another action, in a text-format
    /// `LoggingMiddleware`'s entries, its description. Absent when the entry has none.
    public static let payload = "reduce.payload"
    /// `reduce.mutators`: the keys of the mutators that made the change, in order (an array);
    /// in an `AuditTrail`'s entries that succeeded only.
    public static let mutators = "reduce.mutators"
    /// `reduce.changes.count`: how many paths of the state changed; in a `LoggingMiddleware`'s
    /// entries that diff the state only.
    public static let changeCount = "reduce.changes.count"
    /// `reduce.changes.paths`: the changed paths (an array), the first
    /// ``SwiftLogSink/maximumChangedPaths`` of them, without their values.
    public static let changedPaths = "reduce.changes.paths"
  }
}

extension LogSink where Self == SwiftLogSink {
  /// A swift-log `Logger`: each entry is one log event, its message the action's type name.
  ///
  /// - Parameters:
  ///   - logger: The logger the entries go to.
  ///   - successLevel: The level of an entry whose dispatch succeeded.
  ///   - failureLevel: The level of an entry whose dispatch failed.
  /// - Returns: The sink.
  public static func logger(
    _ logger: Logger, successLevel: Logger.Level = .info, failureLevel: Logger.Level = .error
  ) -> SwiftLogSink {
    SwiftLogSink(logger: logger, successLevel: successLevel, failureLevel: failureLevel)
  }
}
