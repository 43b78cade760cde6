import Foundation
import Reduce

/// Encodes an `Encodable` value straight into compact JSON bytes: the bytes the
/// ``JSONValueEncoder`` tree of the value serializes to, written as the value encodes itself.
///
/// Measured on an audited ledger, whose actions are enums with a payload: building the tree of
/// ``JSONValueEncoder`` (a class instance per value, a coding path per key, members sorted
/// through an index array), then writing it, cost about 20,000 instructions per entry; writing
/// as the value encodes costs a fraction of that.
///
/// ``encode(_:)`` returns nil for what it does not write as ``JSONValueEncoder`` would: a value
/// that throws (a non-finite number, its own error), or that uses its containers in an order
/// the stream cannot follow (see ``JSONByteStream``). The caller encodes such a value again
/// with ``JSONValueEncoder``, whose result or error is the one to record.
enum JSONByteEncoder {
  static func encode(_ value: any Encodable) -> [UInt8]? {
    let writer: JSONByteWriter
    if let spare = spareWriter.withLock({ $0.take() }) {
      spare.beginReusing()
      writer = spare
    } else {
      writer = JSONByteWriter()
    }
    defer { recycle(writer) }
    do {
      let slot = writer.update { $0.beginValue() }
      try encodeValue(value, into: slot, of: writer, at: CodingPathParts([]))
    } catch {
      return nil
    }
    guard !writer.failed else { return nil }
    return writer.finish()
  }

  /// A writer kept from the last encoding, whose frames, members and bytes keep their storage:
  /// a new writer and its arrays cost about 1,100 instructions more per entry of an audited
  /// ledger.
  ///
  /// A writer is used by one encoding at a time: taken out here, and put back when done.
  private static let spareWriter = Locked<JSONByteWriter?>(nil)

  /// Keeps a writer for the next encoding, emptied, unless it grew large.
  private static func recycle(_ writer: JSONByteWriter) {
    guard writer.reset() else { return }
    spareWriter.withLock { $0 = writer }
  }

  /// Writes a value into its begun slot: as ``JSONValueEncoder/special(_:codingPath:)`` writes
  /// it, or as it encodes itself; `{}` if it encodes nothing.
  static func encodeValue<T: Encodable>(
    _ value: T, into slot: Int, of writer: JSONByteWriter, at path: CodingPathParts
  ) throws {
    // The special types by type identity, before `value` is boxed for the look-up.
    if T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self,
      let special = try JSONValueEncoder.special(value, codingPath: path.codingPath)
    {
      try writer.modify { stream throws(JSONByteWriter.Unfollowable) in
        stream.append(special)
        try stream.fill(slot)
      }
      return
    }
    try value.encode(to: StreamEncoder(writer: writer, slot: slot, path: path))
    try writer.modify { stream throws(JSONByteWriter.Unfollowable) in
      if stream.failed { throw stream.stop() }
      if stream.openSlot == slot {
        stream.appendLiteral("{}")
        try stream.fill(slot)
      }
    }
  }

  /// Writes a value as ``JSONValueEncoder``'s unkeyed and single-value containers do: the
  /// standard scalar types as primitives, other values as ``encodeValue(_:into:of:at:)``.
  static func encodeElement<T: Encodable>(
    _ value: T, into slot: Int, of writer: JSONByteWriter, at path: CodingPathParts
  ) throws {
    // The common scalars by type identity, without the dynamic casts below.
    let write: (inout JSONByteStream) throws(JSONByteWriter.Unfollowable) -> Void
    if T.self == Int.self, let value = value as? Int {
      write = { $0.append(Int64(value)) }
    } else if T.self == String.self, let value = value as? String {
      write = { $0.appendString(value) }
    } else if T.self == Bool.self, let value = value as? Bool {
      write = { $0.append(value) }
    } else if T.self == Double.self, let value = value as? Double {
      write = { stream throws(JSONByteWriter.Unfollowable) in try stream.append(value) }
    } else if value is any BinaryInteger || value is any BinaryFloatingPoint {
      let primitive = try JSONValueEncoder.primitive(value, path.codingPath)
      write = { $0.append(primitive) }
    } else {
      try encodeValue(value, into: slot, of: writer, at: path)
      return
    }
    try writer.modify { stream throws(JSONByteWriter.Unfollowable) in
      try write(&stream)
      try stream.fill(slot)
    }
  }
}

/// A coding path as its parent's path and a last key: the array is made only when asked for
/// (most values that encode themselves as one scalar never ask).
struct CodingPathParts {
  let parent: [any CodingKey]
  let key: (any CodingKey)?

  init(_ parent: [any CodingKey], _ key: (any CodingKey)? = nil) {
    self.parent = parent
    self.key = key
  }

  var codingPath: [any CodingKey] { key.map { parent + [$0] } ?? parent }
}

/// The encoder a value encodes itself to.
private struct StreamEncoder: Encoder {
  let writer: JSONByteWriter
  let slot: Int
  let path: CodingPathParts
  var codingPath: [any CodingKey] { path.codingPath }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(
      StreamKeyedContainer<Key>(
        writer: writer, frame: writer.update { $0.open(isObject: true, for: slot) }, path: path))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    StreamUnkeyedContainer(
      writer: writer, frame: writer.update { $0.open(isObject: false, for: slot) },
      codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    StreamSingleContainer(writer: writer, slot: slot, path: path)
  }
}

/// One step on the stream that may fail.
private typealias Step = (inout JSONByteStream) throws(JSONByteWriter.Unfollowable) -> Void

private struct StreamKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let writer: JSONByteWriter
  let frame: JSONByteStream.FrameReference
  let path: CodingPathParts
  var codingPath: [any CodingKey] { path.codingPath }

  /// Writes a member, its key and then what `write` writes, in one step on the stream.
  private func member(_ key: Key, _ write: Step) throws {
    let name = key.stringValue
    try writer.modify { stream throws(JSONByteWriter.Unfollowable) in
      try stream.beginMember(of: frame, key: name)
      try write(&stream)
    }
  }

  mutating func encodeNil(forKey key: Key) throws { try member(key) { $0.appendLiteral("null") } }
  mutating func encode(_ value: Bool, forKey key: Key) throws {
    try member(key) { $0.append(value) }
  }
  mutating func encode(_ value: String, forKey key: Key) throws {
    try member(key) { $0.appendString(value) }
  }
  mutating func encode(_ value: Double, forKey key: Key) throws {
    try member(key) { stream throws(JSONByteWriter.Unfollowable) in try stream.append(value) }
  }
  mutating func encode(_ value: Float, forKey key: Key) throws {
    try member(key) { stream throws(JSONByteWriter.Unfollowable) in
      try stream.append(Double(value))
    }
  }
  mutating func encode(_ value: Int, forKey key: Key) throws { try signed(Int64(value), key) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { try signed(Int64(value), key) }
  mutating func encode(_ value: Int16, forKey key: Key) throws { try signed(Int64(value), key) }
  mutating func encode(_ value: Int32, forKey key: Key) throws { try signed(Int64(value), key) }
  mutating func encode(_ value: Int64, forKey key: Key) throws { try signed(value, key) }
  mutating func encode(_ value: UInt, forKey key: Key) throws { try unsigned(UInt64(value), key) }
  mutating func encode(_ value: UInt8, forKey key: Key) throws { try unsigned(UInt64(value), key) }
  mutating func encode(_ value: UInt16, forKey key: Key) throws {
    try unsigned(UInt64(value), key)
  }
  mutating func encode(_ value: UInt32, forKey key: Key) throws {
    try unsigned(UInt64(value), key)
  }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { try unsigned(value, key) }

  private func signed(_ value: Int64, _ key: Key) throws { try member(key) { $0.append(value) } }
  private func unsigned(_ value: UInt64, _ key: Key) throws {
    try member(key) { $0.append(value) }
  }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    let name = key.stringValue
    let slot = try writer.modify { stream throws(JSONByteWriter.Unfollowable) in
      try stream.beginMember(of: frame, key: name)
      return stream.beginValue()
    }
    try JSONByteEncoder.encodeValue(
      value, into: slot, of: writer, at: CodingPathParts(codingPath, key))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(
      StreamKeyedContainer<NestedKey>(
        writer: writer, frame: nested(isObject: true, key), path: CodingPathParts(codingPath, key)))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    StreamUnkeyedContainer(
      writer: writer, frame: nested(isObject: false, key), codingPath: codingPath + [key])
  }

  private func nested(isObject: Bool, _ key: Key) -> JSONByteStream.FrameReference {
    let name = key.stringValue
    let frame = frame
    return
      (try? writer.modify { stream throws(JSONByteWriter.Unfollowable) in
        try stream.beginMember(of: frame, key: name)
        return stream.push(isObject: isObject)
      }) ?? .invalid
  }

  mutating func superEncoder() -> any Encoder {
    unfollowable(writer)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    unfollowable(writer)
  }
}

/// An encoder that writes nothing, for a `superEncoder`: the value is encoded with
/// ``JSONValueEncoder`` instead.
private func unfollowable(_ writer: JSONByteWriter) -> any Encoder {
  writer.update { _ = $0.stop() }
  return StreamEncoder(writer: writer, slot: -1, path: CodingPathParts([]))
}

private struct StreamUnkeyedContainer: UnkeyedEncodingContainer {
  let writer: JSONByteWriter
  let frame: JSONByteStream.FrameReference
  let codingPath: [any CodingKey]
  var count: Int { writer.update { $0.count(of: frame) } }

  mutating func encodeNil() throws {
    let frame = frame
    try writer.modify { stream throws(JSONByteWriter.Unfollowable) in
      try stream.beginElement(of: frame)
      stream.appendLiteral("null")
    }
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    let frame = frame
    let slot = try writer.modify { stream throws(JSONByteWriter.Unfollowable) in
      try stream.beginElement(of: frame)
      return stream.beginValue()
    }
    try JSONByteEncoder.encodeElement(
      value, into: slot, of: writer, at: CodingPathParts(codingPath))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    KeyedEncodingContainer(
      StreamKeyedContainer<NestedKey>(
        writer: writer, frame: nested(isObject: true), path: CodingPathParts(codingPath)))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    StreamUnkeyedContainer(writer: writer, frame: nested(isObject: false), codingPath: codingPath)
  }

  private func nested(isObject: Bool) -> JSONByteStream.FrameReference {
    let frame = frame
    return
      (try? writer.modify { stream throws(JSONByteWriter.Unfollowable) in
        try stream.beginElement(of: frame)
        return stream.push(isObject: isObject)
      }) ?? .invalid
  }

  mutating func superEncoder() -> any Encoder {
    unfollowable(writer)
  }
}

private struct StreamSingleContainer: SingleValueEncodingContainer {
  let writer: JSONByteWriter
  let slot: Int
  let path: CodingPathParts
  var codingPath: [any CodingKey] { path.codingPath }

  mutating func encodeNil() throws {
    let slot = slot
    try writer.modify { stream throws(JSONByteWriter.Unfollowable) in
      guard stream.openSlot == slot else { throw stream.stop() }
      stream.appendLiteral("null")
      try stream.fill(slot)
    }
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    let slot = slot
    try writer.modify { stream throws(JSONByteWriter.Unfollowable) in
      guard stream.openSlot == slot else { throw stream.stop() }
    }
    try JSONByteEncoder.encodeElement(value, into: slot, of: writer, at: path)
  }
}
