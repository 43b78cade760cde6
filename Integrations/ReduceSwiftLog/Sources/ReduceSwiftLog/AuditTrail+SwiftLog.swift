public import Foundation
public import Logging
public import Reduce
public import ReduceLogging

extension AuditTrail {
  /// Creates an audit trail that logs each recorded change to a swift-log `Logger`.
  ///
  /// An audit trail has one sink. To keep the durable file and log to a `Logger` as well, put
  /// this trail just before the file's trail, which stays last in the chain:
  ///
  /// ```swift
  /// let store = try Store(
  ///   initialState: Ledger(), mutators: [balances],
  ///   middleware: [
  ///     AuditTrail<Ledger>(logger: logger),
  ///     AuditTrail<Ledger>(path: "ledger.log", durability: .everyEntry),
  ///   ])
  /// ```
  ///
  /// The file's trail writes its entry first: a change its file refuses is not made, and this
  /// trail logs it as a failure (at the failure level) rather than as a success. Placed after
  /// the file's trail instead, it would log the change before the file could refuse it.
  ///
  /// Unlike a file trail, this one redacts `LogRedaction.defaultFields` by default: the
  /// entries are read by people and by log pipelines, never replayed.
  ///
  /// - Parameters:
  ///   - name: The middleware's name, unique in the store's chain: the default differs from
  ///     a file trail's.
  ///   - logger: The logger the entries go to (see ``SwiftLogSink``).
  ///   - successLevel: The level of an entry whose change was made.
  ///   - failureLevel: The level of an entry whose action failed.
  ///   - filter: Which actions to log; the others are passed on unlogged.
  ///   - redactedFields: Field names whose values are logged as `<redacted>`.
  ///   - now: Gives the entries' timestamps.
  public init(
    name: String = "SwiftLogAuditTrail",
    logger: Logger,
    successLevel: Logger.Level = .info,
    failureLevel: Logger.Level = .error,
    filter: (@Sendable (any Action) -> Bool)? = nil,
    redactedFields: Set<String> = LogRedaction.defaultFields,
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.init(
      name: name,
      sink: SwiftLogSink(logger: logger, successLevel: successLevel, failureLevel: failureLevel),
      filter: filter, redactedFields: redactedFields, now: now)
  }
}
