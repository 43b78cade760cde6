/// Compact JSON written as a value encodes itself, for ``JSONByteEncoder``: the bytes its
/// ``JSONValue`` tree would serialize to, written in one buffer without the tree.
///
/// A value type, kept in one ``JSONByteWriter`` that the containers share: each step the
/// containers take is one access to it, checked for exclusivity at run time as any class's
/// stored property is (a step that touched the frames, the members and the bytes as separate
/// properties paid several checks).
///
/// The containers a value asks for are open *frames*, innermost last. A container writes only
/// into its own frame once it is the innermost, and writing into an outer one closes the inner
/// ones: the order in which synthesized `Codable` code uses its containers. A container used
/// after its frame closed (a value that interleaves the use of two containers), a container
/// asked for twice in conflicting ways, or a `superEncoder` set ``failed``: the caller then
/// encodes the value with ``JSONValueEncoder`` instead, which takes any order.
///
/// Object keys are sorted, as `JSONEncoder` with `.sortedKeys` sorts them: a closing object
/// whose members came in another order (declaration order, usually) has them moved into place;
/// of a key written twice, the last value is kept.
struct JSONByteStream {
  /// An open container: an object or an array.
  struct Frame {
    let id: Int
    let isObject: Bool
    /// The value the container writes (``beginValue()``).
    let slot: Int
    /// How many members or elements it has.
    var count = 0
    /// For an object, where its members start in ``members``.
    let firstMember: Int
  }

  /// Which frame a container writes into: its identity and its depth.
  struct FrameReference {
    let id: Int
    let depth: Int

    /// The reference of a container handed out for a request the stream cannot follow.
    static let invalid = FrameReference(id: -1, depth: -1)
  }

  private(set) var bytes: [UInt8] = []
  private var frames: [Frame] = []
  /// The members of the open objects: each key, and where its `"key":` starts.
  private var members: [(key: String, start: Int)] = []
  /// The value begun and not yet written (``beginValue()``); 0 for none.
  private(set) var openSlot = 0
  private var lastID = 0
  /// Whether the value used the coding API in a way that cannot be written as a stream.
  private(set) var failed = false

  init() {
    // One allocation each for what an action's payload usually needs, rather than a few
    // as they grow.
    bytes.reserveCapacity(128)
    frames.reserveCapacity(4)
    members.reserveCapacity(8)
  }

  /// Empties the stream for another value; returns false, doing nothing, when its frames or
  /// members grew large (a deeply nested or wide value), which are then not worth keeping.
  ///
  /// The frames and members keep their storage. The bytes, handed out as the value's JSON,
  /// are emptied only when the next value begins (``beginReusing()``): by then whoever they
  /// were handed to has usually let them go, and their storage is reused too.
  mutating func reset() -> Bool {
    guard frames.capacity <= 16, members.capacity <= 64, bytes.capacity <= 16_384 else {
      return false
    }
    frames.removeAll(keepingCapacity: true)
    members.removeAll(keepingCapacity: true)
    openSlot = 0
    lastID = 0
    failed = false
    return true
  }

  /// Empties the bytes of the last value, for a stream kept from it (``reset()``): in place
  /// when no one holds them any more, in new storage otherwise (an array's copy on write).
  mutating func beginReusing() {
    bytes.removeAll(keepingCapacity: true)
    if bytes.capacity < 128 { bytes.reserveCapacity(128) }
  }

  /// Begins a value where the last member's key or element's separator was written; returns
  /// the value's slot, which a container or a single value fills.
  mutating func beginValue() -> Int {
    lastID += 1
    openSlot = lastID
    return lastID
  }

  /// Marks the open value written.
  mutating func fill(_ slot: Int) throws(JSONByteWriter.Unfollowable) {
    guard openSlot == slot else { throw stop() }
    openSlot = 0
  }

  /// Records a failure; returns the error to throw.
  @discardableResult
  mutating func stop() -> JSONByteWriter.Unfollowable {
    failed = true
    return JSONByteWriter.Unfollowable()
  }

  /// Opens a container for the slot, or finds the one opened for it already (a second call of
  /// `container(keyedBy:)` continues the first, as with `JSONEncoder`).
  mutating func open(isObject: Bool, for slot: Int) -> FrameReference {
    if openSlot == slot {
      openSlot = 0
      return push(isObject: isObject, slot: slot)
    }
    if let depth = frames.lastIndex(where: { $0.slot == slot }), frames[depth].isObject == isObject,
      openSlot == 0
    {
      return FrameReference(id: frames[depth].id, depth: depth)
    }
    stop()
    return .invalid
  }

  /// Opens a container as a member or element just begun (a nested container).
  mutating func push(isObject: Bool, slot: Int = 0) -> FrameReference {
    lastID += 1
    frames.append(
      Frame(id: lastID, isObject: isObject, slot: slot, firstMember: members.count))
    bytes.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
    return FrameReference(id: lastID, depth: frames.count - 1)
  }

  /// Begins a member of an object: closes the frames inside it, writes the separator and the
  /// key.
  mutating func beginMember(of frame: FrameReference, key: String) throws(JSONByteWriter
    .Unfollowable)
  {
    try activate(frame)
    if frames[frame.depth].count > 0 { bytes.append(UInt8(ascii: ",")) }
    frames[frame.depth].count += 1
    members.append((key, bytes.count))
    JSONValue.writeString(key, to: &bytes)
    bytes.append(UInt8(ascii: ":"))
  }

  /// Begins an element of an array: closes the frames inside it, writes the separator.
  mutating func beginElement(of frame: FrameReference) throws(JSONByteWriter.Unfollowable) {
    try activate(frame)
    if frames[frame.depth].count > 0 { bytes.append(UInt8(ascii: ",")) }
    frames[frame.depth].count += 1
  }

  /// How many elements an array has; 0 once it is closed.
  func count(of frame: FrameReference) -> Int {
    isOpen(frame) ? frames[frame.depth].count : 0
  }

  /// Closes every open frame: the value is written.
  mutating func finish() {
    while !frames.isEmpty { closeInnermost() }
  }

  private func isOpen(_ frame: FrameReference) -> Bool {
    frame.depth >= 0 && frame.depth < frames.count && frames[frame.depth].id == frame.id
  }

  /// Makes a frame the innermost, closing those inside it; fails for a closed frame, or while a
  /// value begun is not written.
  private mutating func activate(_ frame: FrameReference) throws(JSONByteWriter.Unfollowable) {
    guard openSlot == 0, isOpen(frame) else { throw stop() }
    while frames.count > frame.depth + 1 { closeInnermost() }
  }

  private mutating func closeInnermost() {
    guard let frame = frames.popLast() else { return }
    guard frame.isObject else {
      bytes.append(UInt8(ascii: "]"))
      return
    }
    let first = frame.firstMember
    var inOrder = true
    var index = first + 1
    while inOrder, index < members.count {
      inOrder = members[index - 1].key < members[index].key
      index += 1
    }
    if !inOrder { sortMembers(from: first) }
    // One by one from the end (an object has a few): `removeSubrange` cost about 240
    // instructions an object.
    while members.count > first { members.removeLast() }
    bytes.append(UInt8(ascii: "}"))
  }

  /// Rewrites the members of the innermost object, from `first` in ``members`` to the end of the
  /// bytes, sorted by key; of a key written twice, the last.
  private mutating func sortMembers(from first: Int) {
    let object = members[first...]
    let start = object[first].start
    // Each member's bytes, without the comma that follows it.
    var ranges: [(key: String, range: Range<Int>)] = []
    for index in object.indices {
      let end = index + 1 < members.count ? members[index + 1].start - 1 : bytes.count
      ranges.append((object[index].key, object[index].start..<end))
    }
    let order = ranges.indices.sorted { lhs, rhs in
      ranges[lhs].key != ranges[rhs].key ? ranges[lhs].key < ranges[rhs].key : lhs < rhs
    }
    var sorted: [UInt8] = []
    sorted.reserveCapacity(bytes.count - start)
    for (position, index) in order.enumerated() {
      if position + 1 < order.count, ranges[order[position + 1]].key == ranges[index].key {
        continue
      }
      if !sorted.isEmpty { sorted.append(UInt8(ascii: ",")) }
      sorted.append(contentsOf: bytes[ranges[index].range])
    }
    bytes.replaceSubrange(start..., with: sorted)
  }

  // MARK: Scalars

  mutating func appendLiteral(_ literal: StaticString) {
    literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  /// Text as it is: a number's JSON.
  mutating func appendRaw(_ text: String) {
    var text = text
    text.withUTF8 { bytes.append(contentsOf: $0) }
  }

  mutating func appendString(_ text: String) {
    JSONValue.writeString(text, to: &bytes)
  }

  mutating func append(_ value: Bool) {
    appendLiteral(value ? "true" : "false")
  }

  /// Decimal digits, as `String(describing:)` writes an integer.
  ///
  /// Not generic: the containers that call it are (over their keys), and unspecialized generic
  /// arithmetic asks the runtime for metadata at every call.
  mutating func append(_ value: Int64) {
    bytes.appendDecimal(value)
  }

  /// Decimal digits, as `String(describing:)` writes an integer.
  mutating func append(_ value: UInt64) {
    bytes.appendDecimal(value)
  }

  /// A number as ``JSONValueEncoder/number(_:_:)`` writes it; fails for a non-finite one, whose
  /// error that encoder reports.
  mutating func append(_ value: Double) throws(JSONByteWriter.Unfollowable) {
    guard value.isFinite else { throw stop() }
    if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
      append(Int64(value))
    } else {
      appendRaw(String(describing: value))
    }
  }

  /// A value of the standard types `JSONValueEncoder` writes as a primitive or a special value.
  mutating func append(_ value: JSONValue) {
    value.write(to: &bytes)
  }
}

/// The stream the containers of one encoding share.
final class JSONByteWriter {
  /// Why writing stopped: the value is to be encoded another way.
  struct Unfollowable: Error {}

  /// The stream, reached only through ``modify(_:)`` and ``update(_:)``: one access a step.
  private var stream = JSONByteStream()

  /// Runs one step on the stream, in one access to it.
  func modify<Result>(
    _ body: (inout JSONByteStream) throws(Unfollowable) -> Result
  ) throws(Unfollowable) -> Result {
    try body(&stream)
  }

  /// Runs one step that cannot fail.
  func update<Result>(_ body: (inout JSONByteStream) -> Result) -> Result {
    body(&stream)
  }

  var openSlot: Int { stream.openSlot }
  var failed: Bool { stream.failed }

  /// Closes every open frame and returns the bytes.
  func finish() -> [UInt8] {
    stream.finish()
    return stream.bytes
  }

  /// Empties the stream for another value (``JSONByteStream/reset()``); false when it is not
  /// worth keeping.
  func reset() -> Bool {
    stream.reset()
  }

  /// Empties the bytes of the last value (``JSONByteStream/beginReusing()``).
  func beginReusing() {
    stream.beginReusing()
  }
}
