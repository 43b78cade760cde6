public import Foundation

extension AuditLog {
  /// One entry of a JSON-lines log, read back: what `reduce-audit show` prints.
  public struct Entry: Sendable, CustomStringConvertible {
    /// The entry's `seq`.
    public var sequence: Int
    /// The entry's `prev` (the previous line's SHA-256), or nil in a log that is not chained.
    public var previousHash: String?
    /// The entry's `ts`.
    public var timestamp: Date
    /// The action's type name.
    public var action: String
    /// The payload as compact JSON text, or nil when the action was not `Encodable`.
    public var payload: String?
    /// Whether the dispatch succeeded.
    public var succeeded: Bool
    /// The failure, when it did not.
    public var error: String?
    /// How long the dispatch took downstream of the logger, when recorded.
    public var duration: Duration?
    /// The changed paths, when recorded.
    public var changes: [LogEntry.Change]?
    /// The keys of the mutators that made the change (an ``AuditTrail``'s entries).
    public var mutators: [String]?
    /// The state when the log was rotated, as JSON, for the first entry of a new file.
    ///
    /// Its `action` is then `snapshot`; nil for every other entry.
    public var snapshot: String?
    /// Whether the entry is a keyed checkpoint (``AuditCheckpoints``); its `action` is then
    /// `checkpoint`.
    public var isCheckpoint: Bool

    /// Reads one line of a JSON-lines log.
    ///
    /// - Parameters:
    ///   - text: The line, without its newline.
    ///   - line: The line's number, for the error.
    /// - Throws: ``AuditLogError/malformedEntry(line:reason:)`` when the line is not an entry.
    public init(parsing text: String, line: Int) throws(AuditLogError) {
      let value: JSONValue
      do {
        value = try JSONParser.parse(Array(text.utf8))
      } catch {
        throw .malformedEntry(line: line, reason: error.message)
      }
      guard let sequence = value["seq"]?.intValue else {
        throw .malformedEntry(line: line, reason: "no integer `seq`")
      }
      guard let stamp = value["ts"]?.stringValue, let timestamp = Timestamp.parse(stamp) else {
        throw .malformedEntry(line: line, reason: "no ISO 8601 `ts`")
      }
      self.snapshot = value["snapshot"]?.serialized
      self.isCheckpoint = value["checkpoint"] != nil
      let special = snapshot != nil ? "snapshot" : isCheckpoint ? "checkpoint" : nil
      guard let action = value["action"]?.stringValue ?? special else {
        throw .malformedEntry(line: line, reason: "no `action`")
      }
      guard
        let outcome = value["outcome"]?.stringValue ?? (special == nil ? nil : "ok"),
        outcome == "ok" || outcome == "failed"
      else {
        throw .malformedEntry(line: line, reason: "no `outcome` of \"ok\" or \"failed\"")
      }
      if case .array(let keys)? = value["mutators"] {
        self.mutators = keys.compactMap(\.stringValue)
      } else {
        self.mutators = nil
      }
      self.sequence = sequence
      self.previousHash = value["prev"]?.stringValue
      self.timestamp = timestamp
      self.action = action
      self.payload = value["payload"]?.serialized
      self.succeeded = outcome == "ok"
      self.error = value["error"]?.stringValue
      self.duration = value["durationNs"]?.intValue.map { .nanoseconds($0) }
      if case .array(let items)? = value["changes"] {
        self.changes = items.map {
          LogEntry.Change(
            path: $0["path"]?.stringValue ?? "?", old: $0["old"]?.stringValue,
            new: $0["new"]?.stringValue)
        }
      } else {
        self.changes = nil
      }
    }

    /// The entry in the expanded text layout.
    public var description: String {
      if isCheckpoint {
        return "#\(sequence) \(Timestamp.format(timestamp)) checkpoint\n"
          + "  a keyed checkpoint of the chain before it: reduce-audit verify --key-file F checks it"
      }
      if let snapshot {
        return "#\(sequence) \(Timestamp.format(timestamp)) snapshot\n"
          + "  the state when the log was rotated: \(snapshot.utf8.count) bytes of JSON"
      }
      return EntryFormatter.expanded(
        sequence: sequence, timestamp: Timestamp.format(timestamp), action: action,
        payload: payload, outcome: succeeded ? "ok" : "failed: " + (error ?? "unknown error"),
        duration: duration.map(EntryFormatter.durationText), changes: changes,
        extra: mutators.map { ["mutators: " + $0.joined(separator: ", ")] } ?? [])
    }
  }

  /// Parses an ISO 8601 UTC time as the logs write it (`2024-05-01T12:00:00.123Z`), or a
  /// date (`2024-05-01`, midnight UTC).
  ///
  /// - Parameter text: The time.
  /// - Returns: The date, or nil when the text is not in one of those forms.
  public static func parseTime(_ text: String) -> Date? {
    Timestamp.parse(text)
  }

  /// Formats a time as the logs write it: ISO 8601, UTC, milliseconds.
  ///
  /// - Parameter date: The time.
  /// - Returns: Its text (`2024-05-01T12:00:00.123Z`).
  public static func formatTime(_ date: Date) -> String {
    Timestamp.format(date)
  }
}
