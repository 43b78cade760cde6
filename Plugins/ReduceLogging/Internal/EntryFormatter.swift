import Reduce

/// The text and JSON forms of a ``LogEntry``.
enum EntryFormatter {
  static func jsonLine(_ entry: LogEntry, sequence: Int, previous: String?) -> String {
    var members: [(String, JSONValue)] = [("seq", .number(String(sequence)))]
    if let previous { members.append(("prev", .string(previous))) }
    members.append(("ts", .string(Timestamp.format(entry.timestamp))))
    members.append(("action", .string(entry.action)))
    if case .json(let text)? = entry.payload {
      let value = (try? JSONParser.parse(Array(text.utf8))) ?? .string(text)
      members.append(("payload", value))
    }
    switch entry.outcome {
    case .ok: members.append(("outcome", .string("ok")))
    case .failed(let error):
      members.append(("outcome", .string("failed")))
      members.append(("error", .string(failureText(error))))
    }
    members.append(("durationNs", .number(String(nanoseconds(entry.duration)))))
    if let changes = entry.changes {
      members.append(("changes", .array(changes.map(json(of:)))))
    }
    return JSONValue.object(members).serialized
  }

  static func json(of change: LogEntry.Change) -> JSONValue {
    var members: [(String, JSONValue)] = [("path", .string(change.path))]
    if let old = change.old { members.append(("old", .string(old))) }
    if let new = change.new { members.append(("new", .string(new))) }
    return .object(members)
  }

  static func compact(_ entry: LogEntry) -> String {
    var line = "#\(entry.sequence) \(Timestamp.format(entry.timestamp)) \(entry.action)"
    if let payload = entry.payload { line += " " + payload.text }
    line += " " + outcomeText(entry.outcome) + " " + durationText(entry.duration)
    if let changes = entry.changes, !changes.isEmpty {
      line += " | " + changes.map(\.description).joined(separator: "; ")
    }
    return line
  }

  static func expanded(_ entry: LogEntry) -> String {
    expanded(
      sequence: entry.sequence, timestamp: Timestamp.format(entry.timestamp),
      action: entry.action, payload: entry.payload?.text, outcome: outcomeText(entry.outcome),
      duration: durationText(entry.duration), changes: entry.changes)
  }

  /// The expanded layout, shared with `reduce-audit show`.
  static func expanded(
    sequence: Int, timestamp: String, action: String, payload: String?, outcome: String,
    duration: String?, changes: [LogEntry.Change]?, extra: [String] = []
  ) -> String {
    var lines = ["#\(sequence) \(timestamp) \(action)"]
    if let payload { lines.append("  payload: " + payload) }
    lines.append("  outcome: " + outcome)
    if let duration { lines.append("  duration: " + duration) }
    lines.append(contentsOf: extra.map { "  " + $0 })
    if let changes {
      if changes.isEmpty {
        lines.append("  changes: none")
      } else {
        lines.append("  changes:")
        lines.append(contentsOf: changes.map { "    " + $0.description })
      }
    }
    return lines.joined(separator: "\n")
  }

  static func outcomeText(_ outcome: LogEntry.Outcome) -> String {
    switch outcome {
    case .ok: "ok"
    case .failed(let error): "failed: " + failureText(error)
    }
  }

  /// The failure without the action (the entry names it, redacted).
  static func failureText(_ error: DispatchError) -> String {
    switch error {
    case .reducerFailed(let key, _, let underlying):
      "mutator '\(key)' threw \(underlying)"
    case .rejected(let name, _, let underlying):
      "rejected by '\(name)': \(underlying)"
    case .middlewareFailed(let name, _, let underlying):
      "middleware '\(name)' failed: \(underlying)"
    }
  }

  static func nanoseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }

  static func durationText(_ duration: Duration) -> String {
    durationText(nanoseconds: nanoseconds(duration))
  }

  static func durationText(nanoseconds: Int64) -> String {
    let microseconds = max(nanoseconds, 0) / 1000
    let fraction = String(microseconds % 1000)
    return "\(microseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count)
      + fraction + "ms"
  }
}
