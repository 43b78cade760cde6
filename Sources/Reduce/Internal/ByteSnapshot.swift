/// The bytes a value occupied in the state at its last refresh.
///
/// The same bytes mean the same value, because the bytes are recorded only when the group keeps
/// the value it read (it changed): the group's last value then holds the references among them,
/// so none can have been freed and its address reused, and a buffer the state shares with it is
/// copied before it is changed. (Different bytes do not mean a different value: the value is
/// then read and compared, as without a snapshot.) A value that has not changed since the store
/// was subscribed to is read every time its range is touched, until it changes. An action's mutators touch a range of the state,
/// and every value inside it is refreshed; most are unchanged. Measured on `scoped-1000`, where
/// an action to one child touches its group of ten: a comparison of a child's bytes instead of a
/// read and a comparison through code not compiled for the child's type, about 400 instructions
/// each, saved (see Guides/Performance.md).
///
/// `@unchecked Sendable`: read and written only by the thread holding the store's turn.
@usableFromInline
final class ByteSnapshot: @unchecked Sendable {
  @usableFromInline let range: Range<Int>
  /// Empty until the value first changes: the value and its bytes are taken together, in the
  /// turn.
  @exclusivity(unchecked) @usableFromInline var bytes: [UInt8] = []

  @usableFromInline
  init(_ range: Range<Int>) {
    self.range = range
  }

  /// Whether the value's bytes in `state` are the ones recorded at the last refresh.
  @inlinable
  func matches<State>(_ state: UnsafePointer<State>) -> Bool {
    guard bytes.count == range.count else { return false }
    let start = UnsafeRawPointer(state) + range.lowerBound
    let current = UnsafeRawBufferPointer(start: start, count: range.count)
    return bytes.withUnsafeBytes { recorded in
      // A word at a time, then the bytes left.
      var offset = 0
      while offset + 8 <= recorded.count {
        let old = recorded.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        if old != current.loadUnaligned(fromByteOffset: offset, as: UInt64.self) { return false }
        offset += 8
      }
      while offset < recorded.count {
        if recorded[offset] != current[offset] { return false }
        offset += 1
      }
      return true
    }
  }

  /// Records the value's bytes in `state`, after a refresh that kept the value.
  @inlinable
  func record<State>(_ state: UnsafePointer<State>) {
    let start = UnsafeRawPointer(state) + range.lowerBound
    let count = range.count
    if bytes.count != count { bytes = [UInt8](repeating: 0, count: count) }
    bytes.withUnsafeMutableBytes { recorded in
      recorded.copyMemory(from: UnsafeRawBufferPointer(start: start, count: count))
    }
  }
}
