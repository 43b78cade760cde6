import Reduce

/// Decides which field names are redacted: a name is hidden when it contains one of the
/// configured names, ignoring case (`password` hides `password`, `newPassword`, `passwordHash`).
struct Redactor: Sendable {
  private let names: [String]
  /// The names' UTF-8 bytes when every name is ASCII, for the byte-wise search; else nil.
  private let asciiNames: [[UInt8]]?

  init(_ names: Set<String>) {
    self.names = names.map { $0.lowercased() }.filter { !$0.isEmpty }.sorted()
    let bytes = self.names.map { Array($0.utf8) }
    asciiNames = bytes.allSatisfy { $0.allSatisfy { $0 < 0x80 } } ? bytes : nil
  }

  var isEmpty: Bool { names.isEmpty }

  func hides(_ label: String) -> Bool {
    guard !names.isEmpty else { return false }
    if let asciiNames, let hidden = Self.asciiHides(label, asciiNames) { return hidden }
    let lowered = label.lowercased()
    return names.contains { lowered.contains($0) }
  }

  /// Answers `hides` for an ASCII label and ASCII names, byte by byte; nil for another label.
  ///
  /// The general path lowercases a copy and searches it through Foundation, thousands of
  /// instructions per name. For ASCII text both give the same answer.
  private static func asciiHides(_ label: String, _ names: [[UInt8]]) -> Bool? {
    var label = label
    return label.withUTF8 { bytes -> Bool? in
      guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
      return names.contains { name in
        guard name.count <= bytes.count else { return false }
        for start in 0...(bytes.count - name.count) {
          var index = 0
          while index < name.count {
            let byte = bytes[start + index]
            let lowered = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
            if lowered != name[index] { break }
            index += 1
          }
          if index == name.count { return true }
        }
        return false
      }
    }
  }
}

/// Whether each struct type seen (without a custom mirror) is a leaf: the casts that decide it
/// cost thousands of instructions, a look-up here a few hundred.
private let leafStructs = Locked<[ObjectIdentifier: Bool]>([:])

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
    case .struct:
      let key = ObjectIdentifier(type(of: value))
      if let known = leafStructs.withLock({ $0[key] }) { return known }
      let isLeaf = isLeafStructOrOther(value, mirror)
      // A plain struct without a custom mirror has the same mirror (fields) for every value,
      // and the casts from it depend on its type alone: the answer holds for the type.
      if TypeTraits.isPlain(type(of: value)), !(value is any CustomReflectable) {
        leafStructs.withLock { known in
          if known.count >= 1024 { known.removeAll() }
          known[key] = isLeaf
        }
      }
      return isLeaf
    case .enum, .class, .none:
      return isLeafStructOrOther(value, mirror)
    default: return true
    }
  }

  private static func isLeafStructOrOther(_ value: Any, _ mirror: Mirror) -> Bool {
    if value is String || value is Substring || value is Character { return true }
    if mirror.children.isEmpty, mirror.displayStyle != .enum { return true }
    return value is any CustomStringConvertible || value is any CustomDebugStringConvertible
  }

  private func write(_ value: Any, to output: inout String, depth: Int) {
    if let text = Self.commonLeafText(value) {
      output += text
      return
    }
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

// MARK: Common leaves

/// How two values of one common standard-library leaf type compare.
enum LeafComparison {
  /// `==` holds.
  case equal
  /// `==` does not hold; the values' texts, which may still be equal (`nan`).
  case different(old: String, new: String)
}

extension Renderer {
  /// The text of a value of a common standard-library leaf type (integers, floating point,
  /// `Bool`, `String`), as `render` writes it; nil for a value of any other type.
  ///
  /// The type is found by its identity: no `Mirror`, no dynamic casts to protocols. The text is
  /// what `leafText` gets from `String(reflecting:)`: `debugDescription` for the types that are
  /// `CustomDebugStringConvertible` (floating point, `String`), `description` for the others.
  static func commonLeafText(_ value: Any) -> String? {
    switch ObjectIdentifier(type(of: value)) {
    case ObjectIdentifier(Int.self): unbox(value, as: Int.self).description
    case ObjectIdentifier(Int64.self): unbox(value, as: Int64.self).description
    case ObjectIdentifier(Int32.self): unbox(value, as: Int32.self).description
    case ObjectIdentifier(UInt.self): unbox(value, as: UInt.self).description
    case ObjectIdentifier(UInt64.self): unbox(value, as: UInt64.self).description
    case ObjectIdentifier(Double.self): unbox(value, as: Double.self).debugDescription
    case ObjectIdentifier(Float.self): unbox(value, as: Float.self).debugDescription
    case ObjectIdentifier(Bool.self): unbox(value, as: Bool.self).description
    case ObjectIdentifier(String.self): unbox(value, as: String.self).debugDescription
    default: nil
    }
  }

  /// Compares two values of one common standard-library leaf type as `StateDiff` does (`==`,
  /// then the texts); nil when they are of another type, or of different types.
  static func compareCommonLeaves(_ old: Any, _ new: Any) -> LeafComparison? {
    let identity = ObjectIdentifier(type(of: old))
    guard identity == ObjectIdentifier(type(of: new)) else { return nil }
    switch identity {
    case ObjectIdentifier(Int.self): return compare(old, new, as: Int.self, { $0.description })
    case ObjectIdentifier(Int64.self): return compare(old, new, as: Int64.self, { $0.description })
    case ObjectIdentifier(Int32.self): return compare(old, new, as: Int32.self, { $0.description })
    case ObjectIdentifier(UInt.self): return compare(old, new, as: UInt.self, { $0.description })
    case ObjectIdentifier(UInt64.self):
      return compare(old, new, as: UInt64.self, { $0.description })
    case ObjectIdentifier(Double.self):
      return compare(old, new, as: Double.self, { $0.debugDescription })
    case ObjectIdentifier(Float.self):
      return compare(old, new, as: Float.self, { $0.debugDescription })
    case ObjectIdentifier(Bool.self): return compare(old, new, as: Bool.self, { $0.description })
    case ObjectIdentifier(String.self):
      return compare(old, new, as: String.self, { $0.debugDescription })
    default: return nil
    }
  }

  /// The value inside `value`, whose dynamic type the caller found to be `T` by its identity.
  private static func unbox<T>(_ value: Any, as type: T.Type) -> T {
    guard let value = value as? T else {
      preconditionFailure("The renderer compared a value as \(T.self), which it is not.")
    }
    return value
  }

  /// Compares two values known to be of type `T`; `text` must be what `String(reflecting:)`
  /// gives for `T`: `debugDescription` for a `CustomDebugStringConvertible` type, else
  /// `description` (its order of preference).
  private static func compare<T: Equatable>(
    _ old: Any, _ new: Any, as type: T.Type, _ text: (T) -> String
  ) -> LeafComparison? {
    let old = unbox(old, as: T.self)
    let new = unbox(new, as: T.self)
    if old == new { return .equal }
    return .different(old: text(old), new: text(new))
  }
}

/// `==` of two values of unknown type: nil when the first is not `Equatable`.
func dynamicEquality(_ lhs: Any, _ rhs: Any) -> Bool? {
  let type = type(of: lhs)
  let key = ObjectIdentifier(type)
  if let known = equalities.withLock({ $0[key] }) { return known.equal.map { $0(lhs, rhs) } }
  // For a plain type, whether its values are `Equatable` depends on the type alone.
  let isPlain = TypeTraits.isPlain(type)
  guard let equatable = lhs as? any Equatable else {
    if isPlain { remember(KnownEquality(equal: nil), for: key) }
    return nil
  }
  if isPlain { remember(KnownEquality(equal: equality(of: equatable)), for: key) }
  return isEqual(equatable, rhs)
}

/// How the values of one type compare: by `==`, or not at all.
///
/// Not `Sendable` (an opened generic type's metatype is not), yet shared through the lock: the
/// closure captures nothing but a type, and is only ever called.
private struct KnownEquality {
  let equal: ((Any, Any) -> Bool)?
}

/// How the values of each plain type seen compare: the cast to `any Equatable` that finds out
/// costs over a thousand instructions, a look-up here a few hundred.
private let equalities = Locked<[ObjectIdentifier: KnownEquality]>([:])

private func remember(_ equality: KnownEquality, for key: ObjectIdentifier) {
  equalities.withLock { known in
    if known.count >= 1024 { known.removeAll() }
    known[key] = equality
  }
}

/// `==` for values of the type of `value`, as `dynamicEquality` computes it.
private func equality<Value: Equatable>(of value: Value) -> (Any, Any) -> Bool {
  { lhs, rhs in
    guard let lhs = lhs as? Value else { return false }
    return isEqual(lhs, rhs)
  }
}

private func isEqual<Value: Equatable>(_ lhs: Value, _ rhs: Any) -> Bool {
  guard let rhs = rhs as? Value else { return false }
  return lhs == rhs
}
