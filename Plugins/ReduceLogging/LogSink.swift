/// Where a ``LoggingMiddleware`` writes its entries: the standard streams, a file, or a logging
/// system of your own.
///
/// A sink is called synchronously, on the dispatching thread, once per entry, with no lock of
/// the store held. It may be called from several threads at once when the middleware serves
/// several stores or a deferred delivery; the built-in sinks serialize their writes. Throw to
/// report a failure: the middleware publishes it on the store's `errors` as
/// `DispatchError.middlewareFailed`, once per run of failures (a later failure is published
/// again after a write succeeded), and the dispatch itself still succeeds. A sink must not
/// block forever; the built-in ones give up after a timeout or an error.
///
/// ```swift
/// struct MemorySink: LogSink {
///   let lines: Mutex<[String]>
///   func write(_ record: LogRecord) {
///     lines.withLock { $0.append(record.text) }
///   }
/// }
/// ```
public protocol LogSink: Sendable {
  /// Writes one entry.
  ///
  /// - Parameter record: The entry, and its text in the middleware's format.
  /// - Throws: Any error, reported on the store's `errors`.
  func write(_ record: LogRecord) throws

  /// Waits until every entry this sink accepted before the call is on disk.
  ///
  /// Called by an ``AuditTrail`` (and a ``LoggingMiddleware``) on the dispatching thread after
  /// the store has released its turn, so concurrent dispatchers share one flush: a sink that
  /// makes entries durable does it here rather than in ``write(_:)``, and one flush can cover
  /// the entries of every dispatcher that waits meanwhile (``FileLogSink`` with
  /// ``FileLogSink/Durability/everyEntry`` does). The default implementation does nothing, for
  /// sinks that have nothing to wait for.
  ///
  /// - Throws: Any error: the dispatch then fails, and the error is reported on the store's
  ///   `errors`: the entries may not be on disk.
  func waitUntilDurable() throws

  /// Whether an entry is on disk only once ``waitUntilDurable()`` has returned: the middleware
  /// then calls it before each dispatch that wrote an entry returns. False by default (the
  /// middleware does not call it); true for a ``FileLogSink`` with
  /// ``FileLogSink/Durability/everyEntry``.
  var defersDurability: Bool { get }
}

extension LogSink {
  /// Returns at once: the sink has nothing to wait for.
  public func waitUntilDurable() throws {}

  /// False: entries are as durable as they will be once ``write(_:)`` returns.
  public var defersDurability: Bool { false }
}

/// One entry handed to a ``LogSink``: the structured ``LogEntry`` and its formatted text.
public struct LogRecord: Sendable {
  /// The entry.
  public let entry: LogEntry
  /// The middleware's format.
  public let format: LogFormat

  /// Creates a record.
  ///
  /// - Parameters:
  ///   - entry: The entry.
  ///   - format: The format its ``text`` is written in.
  public init(entry: LogEntry, format: LogFormat) {
    self.entry = entry
    self.format = format
  }

  /// The entry in the record's format, without a final newline.
  ///
  /// An expanded text entry spans several lines. The text is computed when read.
  public var text: String {
    switch format {
    case .jsonLines: EntryFormatter.jsonLine(entry, sequence: entry.sequence, previous: nil)
    case .text(style: .compact): EntryFormatter.compact(entry)
    case .text(style: .expanded): EntryFormatter.expanded(entry)
    }
  }
}
