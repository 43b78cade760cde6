import Foundation
import Reduce

/// The text and JSON forms of a ``LogEntry``.
enum EntryFormatter {
  /// The JSON line of an entry, written straight into one buffer of UTF-8: the same text as
  /// the `JSONValue` object of its members, serialized, without building that tree.
  static func jsonLine(_ entry: LogEntry, sequence: Int, previous: SHA256.Digest?) -> String {
    String(decoding: jsonLineBytes(entry, sequence: sequence, previous: previous), as: UTF8.self)
  }

  /// The JSON line of an entry as UTF-8, without its newline.
  ///
  /// - Parameters:
  ///   - entry: The entry.
  ///   - sequence: Its `seq`.
  ///   - previous: The previous line's digest, its `prev`; nil for an unchained line.
  ///   - storage: An array whose storage the line is written into, emptied first (its capacity
  ///     is kept).
  /// - Returns: The line.
  static func jsonLineBytes(
    _ entry: LogEntry, sequence: Int, previous: SHA256.Digest?,
    reusing storage: consuming [UInt8] = []
  ) -> [UInt8] {
    var line = JSONLineWriter(reusing: consume storage)
    line.raw("{\"seq\":")
    line.integer(Int64(sequence))
    // Each literal is appended at once (an append costs about 90 instructions, whatever its
    // length); hexadecimal digits need no escaping.
    if let previous {
      line.raw(",\"prev\":\"")
      line.hex(previous)
      line.raw("\",\"ts\":\"")
    } else {
      line.raw(",\"ts\":\"")
    }
    line.timestamp(entry.timestamp)
    line.raw("\",\"action\":")
    line.string(entry.action)
    switch entry.payloadStorage {
    case .value(let value)?:
      line.raw(",\"payload\":")
      line.value(value)
    case .encoded(let bytes)?:
      line.raw(",\"payload\":")
      line.bytes(bytes)
    case .given(.json(let text))?:
      // Given by someone else: parsed, so that the line stays valid JSON.
      line.raw(",\"payload\":")
      line.value((try? JSONParser.parse(Array(text.utf8))) ?? .string(text))
    case .given(.description)?, nil:
      break
    }
    switch entry.outcome {
    case .ok: line.raw(",\"outcome\":\"ok\",\"durationNs\":")
    case .failed(let error):
      line.raw(",\"outcome\":\"failed\",\"error\":")
      line.string(failureText(error))
      line.raw(",\"durationNs\":")
    }
    line.integer(nanoseconds(entry.duration))
    if let mutators = entry.mutators {
      line.raw(",\"mutators\":[")
      for (index, key) in mutators.enumerated() {
        if index > 0 { line.raw(",") }
        line.string(key)
      }
      line.raw("]")
    }
    if let changes = entry.changes {
      line.raw(",\"changes\":[")
      for (index, change) in changes.enumerated() {
        line.raw(index > 0 ? ",{\"path\":" : "{\"path\":")
        line.string(change.path)
        if let old = change.old {
          line.raw(",\"old\":")
          line.string(old)
        }
        if let new = change.new {
          line.raw(",\"new\":")
          line.string(new)
        }
        line.raw("}")
      }
      line.raw("]")
    }
    line.raw("}")
    return line.bytes
  }

  static func compact(_ entry: LogEntry) -> String {
    var line = "#\(entry.sequence) \(Timestamp.format(entry.timestamp)) \(entry.action)"
    if let payload = entry.payload { line += " " + payload.text }
    line += " " + outcomeText(entry.outcome) + " " + durationText(entry.duration)
    if let changes = entry.changes, !changes.isEmpty {
      line += " | " + changes.map(\.description).joined(separator: "; ")
    } else if let mutators = entry.mutators, !mutators.isEmpty {
      line += " | mutators: " + mutators.joined(separator: ", ")
    }
    return line
  }

  static func expanded(_ entry: LogEntry) -> String {
    expanded(
      sequence: entry.sequence, timestamp: Timestamp.format(entry.timestamp),
      action: entry.action, payload: entry.payload?.text, outcome: outcomeText(entry.outcome),
      duration: durationText(entry.duration), changes: entry.changes,
      extra: entry.mutators.map { ["mutators: " + $0.joined(separator: ", ")] } ?? [])
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

/// Builds a JSON line as UTF-8 bytes.
///
/// Appending bytes is a copy, appending to a `String` is not much less but checks and grows it
/// piece by piece. Numbers and the timestamp are written as digits into the bytes: a `String`
/// made for each cost about 700 instructions.
private struct JSONLineWriter {
  private(set) var bytes: [UInt8]

  /// Creates a writer whose bytes reuse the storage of `storage`, emptied.
  init(reusing storage: consuming [UInt8]) {
    bytes = consume storage
    bytes.removeAll(keepingCapacity: true)
    bytes.reserveCapacity(320)
  }

  /// Appends text as it is.
  mutating func raw(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  /// Appends an integer's decimal digits, as `String(_:)` writes them.
  mutating func integer(_ value: Int64) {
    bytes.appendDecimal(value)
  }

  /// Appends a timestamp's text (``Timestamp/format(_:)``), without quotes.
  mutating func timestamp(_ date: Date) {
    Timestamp.write(date, to: &bytes)
  }

  /// Appends a digest's hexadecimal digits, without quotes.
  mutating func hex(_ digest: SHA256.Digest) {
    digest.appendHex(to: &bytes)
  }

  /// Appends bytes as they are: compact JSON.
  mutating func bytes(_ json: [UInt8]) {
    bytes.append(contentsOf: json)
  }

  /// Appends a JSON value, compact.
  mutating func value(_ value: JSONValue) {
    value.write(to: &bytes)
  }

  /// Appends a JSON string literal, escaped as `JSONValue.writeString` escapes it.
  mutating func string(_ text: String) {
    JSONValue.writeString(text, to: &bytes)
  }
}
