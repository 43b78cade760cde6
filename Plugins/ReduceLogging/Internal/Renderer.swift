/// Decides which field names are redacted: a name is hidden when it contains one of the
/// configured names, ignoring case (`password` hides `password`, `newPassword`, `passwordHash`).
struct Redactor: Sendable {
  private let names: [String]

  init(_ names: Set<String>) {
    self.names = names.map { $0.lowercased() }.filter { !$0.isEmpty }.sorted()
  }

  var isEmpty: Bool { names.isEmpty }

  func hides(_ label: String) -> Bool {
    guard !names.isEmpty else { return false }
    let lowered = label.lowercased()
    return names.contains { lowered.contains($0) }
  }
}

/// Renders any value in Swift literal syntax through `Mirror`, replacing redacted fields.
///
/// Strings are quoted, structs read `Todo(title: "Milk", isDone: false)`, enums `.added("Milk")`,
/// optionals `nil` or their value. A type with its own `description` (Date, URL, UUID, or a type
/// of yours) is printed with it, as `String(reflecting:)` would.
struct Renderer: Sendable {
  let redactor: Redactor
  static let maximumDepth = 16

  func render(_ value: Any) -> String {
    var output = ""
    write(value, to: &output, depth: 0)
    return output
  }

  /// Whether a value is a leaf: printed with its own description, never taken apart.
  static func isLeaf(_ value: Any, _ mirror: Mirror) -> Bool {
    switch mirror.displayStyle {
    case .optional, .collection, .dictionary, .set, .tuple: return false
    case .enum, .struct, .class, .none:
      if value is String || value is Substring || value is Character { return true }
      if mirror.children.isEmpty, mirror.displayStyle != .enum { return true }
      return value is any CustomStringConvertible || value is any CustomDebugStringConvertible
    default: return true
    }
  }

  private func write(_ value: Any, to output: inout String, depth: Int) {
    let mirror = Mirror(reflecting: value)
    if Self.isLeaf(value, mirror) {
      output += Self.leafText(value)
      return
    }
    guard depth < Self.maximumDepth else {
      output += "..."
      return
    }
    switch mirror.displayStyle {
    case .optional:
      if let wrapped = mirror.children.first?.value {
        write(wrapped, to: &output, depth: depth + 1)
      } else {
        output += "nil"
      }
    case .collection:
      output += "["
      for (index, child) in mirror.children.enumerated() {
        if index > 0 { output += ", " }
        write(child.value, to: &output, depth: depth + 1)
      }
      output += "]"
    case .set:
      let elements = mirror.children.map { render($0.value) }.sorted()
      output += "Set([" + elements.joined(separator: ", ") + "])"
    case .dictionary:
      let pairs = mirror.children.map { child -> (String, String) in
        let pair = Mirror(reflecting: child.value).children.map(\.value)
        guard pair.count == 2 else { return (render(child.value), "") }
        let hidden = (pair[0] as? String).map(redactor.hides) ?? false
        return (render(pair[0]), hidden ? LogRedaction.placeholder : render(pair[1]))
      }
      if pairs.isEmpty {
        output += "[:]"
      } else {
        output +=
          "["
          + pairs.sorted { $0.0 < $1.0 }.map { "\($0): \($1)" }
          .joined(separator: ", ") + "]"
      }
    case .tuple:
      output += "("
      writeFields(mirror, to: &output, depth: depth)
      output += ")"
    case .enum:
      guard let payload = mirror.children.first else {
        output += "." + String(describing: value)
        return
      }
      output += "." + (payload.label ?? "?") + "("
      if redactor.hides(payload.label ?? "") {
        output += LogRedaction.placeholder
      } else {
        let inner = Mirror(reflecting: payload.value)
        if inner.displayStyle == .tuple {
          writeFields(inner, to: &output, depth: depth + 1)
        } else {
          write(payload.value, to: &output, depth: depth + 1)
        }
      }
      output += ")"
    default:
      output += String(describing: type(of: value)) + "("
      writeFields(mirror, to: &output, depth: depth)
      output += ")"
    }
  }

  /// A leaf's text: its own description when it has one (`"Milk"` for a string), otherwise
  /// `String(describing:)` (`Empty()`), never module-qualified names.
  static func leafText(_ value: Any) -> String {
    if value is any CustomDebugStringConvertible || value is any CustomStringConvertible {
      return String(reflecting: value)
    }
    return String(describing: value)
  }

  /// Writes `label: value` pairs, without labels for tuple positions (`.0`).
  private func writeFields(_ mirror: Mirror, to output: inout String, depth: Int) {
    for (index, child) in mirror.children.enumerated() {
      if index > 0 { output += ", " }
      let label = Self.fieldName(child.label)
      if let label { output += label + ": " }
      if let label, redactor.hides(label) {
        output += LogRedaction.placeholder
      } else {
        write(child.value, to: &output, depth: depth + 1)
      }
    }
  }

  /// A field's name, or nil for an unlabelled tuple position (`.0`).
  static func fieldName(_ label: String?) -> String? {
    guard let label, !label.hasPrefix(".") else { return nil }
    return label
  }
}

/// `==` of two values of unknown type: nil when the first is not `Equatable`.
func dynamicEquality(_ lhs: Any, _ rhs: Any) -> Bool? {
  guard let equatable = lhs as? any Equatable else { return nil }
  return isEqual(equatable, rhs)
}

private func isEqual<Value: Equatable>(_ lhs: Value, _ rhs: Any) -> Bool {
  guard let rhs = rhs as? Value else { return false }
  return lhs == rhs
}
