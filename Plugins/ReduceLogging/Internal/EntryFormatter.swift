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
  static func jsonLineBytes(_ entry: LogEntry, sequence: Int, previous: SHA256.Digest?) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(320)
    writeJSONLine(entry, sequence: sequence, previous: previous, to: &bytes)
    return bytes
  }

  /// Writes the JSON line of an entry as UTF-8, without its newline.
  ///
  /// Numbers and the timestamp are written as digits, straight into the output: a `String`
  /// made for each cost about 700 instructions.
  ///
  /// - Parameters:
  ///   - entry: The entry.
  ///   - sequence: Its `seq`.
  ///   - previous: The previous line's digest, its `prev`; nil for an unchained line.
  ///   - line: Where the line is written.
  static func writeJSONLine(
    _ entry: LogEntry, sequence: Int, previous: SHA256.Digest?, to line: inout some ByteOutput
  ) {
    line.append("{\"seq\":")
    line.appendDecimal(Int64(sequence))
    // Each literal is appended at once (each append has a cost of its own, whatever its
    // length); hexadecimal digits need no escaping.
    if let previous {
      line.append(",\"prev\":\"")
      previous.appendHex(to: &line)
      line.append("\",\"ts\":\"")
    } else {
      line.append(",\"ts\":\"")
    }
    line.append(timestamp: entry.timestamp)
    if let snapshot = entry.snapshot {
      line.append("\",\"snapshot\":")
      snapshot.write(to: &line)
      line.append("}")
      return
    }
    line.append("\",\"action\":")
    JSONValue.writeString(entry.action, to: &line)
    switch entry.payloadStorage {
    case .value(let value)?:
      line.append(",\"payload\":")
      value.write(to: &line)
    case .encoded(let bytes)?:
      line.append(",\"payload\":")
      bytes.withUnsafeBytes { line.append(bytes: $0) }
    case .given(.json(let text))?:
      // Given by someone else: parsed, so that the line stays valid JSON.
      line.append(",\"payload\":")
      ((try? JSONParser.parse(Array(text.utf8))) ?? .string(text)).write(to: &line)
    case .given(.description)?, nil:
      break
    }
    switch entry.outcome {
    case .ok: line.append(",\"outcome\":\"ok\",\"durationNs\":")
    case .failed(let error):
      line.append(",\"outcome\":\"failed\",\"error\":")
      JSONValue.writeString(failureText(error), to: &line)
      line.append(",\"durationNs\":")
    }
    line.appendDecimal(nanoseconds(entry.duration))
    if let storage = entry.mutatorStorage {
      line.append(",\"mutators\":[")
      switch storage {
      case .names(let names): writeElements(names, { $0 }, to: &line)
      case .keys(let keys): writeElements(keys, { $0.rawValue }, to: &line)
      }
      line.append("]")
    }
    if let changes = entry.changes {
      line.append(",\"changes\":[")
      for (index, change) in changes.enumerated() {
        line.append(index > 0 ? ",{\"path\":" : "{\"path\":")
        JSONValue.writeString(change.path, to: &line)
        if let old = change.old {
          line.append(",\"old\":")
          JSONValue.writeString(old, to: &line)
        }
        if let new = change.new {
          line.append(",\"new\":")
          JSONValue.writeString(new, to: &line)
        }
        line.append("}")
      }
      line.append("]")
    }
    line.append("}")
  }

  /// Writes the text of each element as an element of a JSON array: escaped, separated by
  /// commas.
  private static func writeElements<Element>(
    _ elements: [Element], _ text: (Element) -> String, to line: inout some ByteOutput
  ) {
    for index in elements.indices {
      if index > 0 { line.append(",") }
      JSONValue.writeString(text(elements[index]), to: &line)
    }
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
