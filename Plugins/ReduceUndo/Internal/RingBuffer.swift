/// A sequence of at most `capacity` elements that drops its oldest element when a new one
/// arrives while it is full.
///
/// Storage grows with use up to `capacity` slots and is then reused in a circle, so a large
/// capacity costs nothing until it is used.
///
/// - Complexity: `append`, `removeLast`, `updateLast`, `last` and `element(at:)` are O(1) (`append` amortised
///   while the storage grows); `removeAll` is O(n).
struct RingBuffer<Element> {
  /// The most elements kept.
  let capacity: Int
  /// The storage; emptied slots hold nil so that their elements are released at once.
  var slots: [Element?] = []
  /// The physical index of the oldest element; 0 until the storage reached `capacity`.
  var head = 0
  /// The number of elements.
  var count = 0

  /// Creates an empty buffer.
  ///
  /// - Parameter capacity: The most elements kept; at least 1 (checked by the caller).
  init(capacity: Int) {
    self.capacity = max(1, capacity)
  }

  func physical(_ index: Int) -> Int {
    let position = head + index
    return position < slots.count ? position : position - slots.count
  }

  /// The element at a position counted from the oldest (0), or nil when out of range.
  func element(at index: Int) -> Element? {
    guard index >= 0, index < count else { return nil }
    return slots[physical(index)]
  }

  /// The newest element.
  var last: Element? { element(at: count - 1) }

  /// Appends an element as the newest.
  ///
  /// - Returns: The oldest element, dropped to make room when the buffer was full.
  mutating func append(_ element: consuming Element) -> Element? {
    if count < slots.count {
      slots[physical(count)] = element
      count += 1
      return nil
    }
    if slots.count < capacity {
      // `head` is 0 while the storage is still growing: nothing was dropped yet.
      slots.append(element)
      count += 1
      return nil
    }
    // Exchanged, not copied out and overwritten: no reference counting of either element.
    var dropped: Element? = element
    swap(&dropped, &slots[head])
    head = head + 1 == slots.count ? 0 : head + 1
    return dropped
  }

  /// Changes the newest element in place; does nothing when empty.
  mutating func updateLast(_ change: (inout Element) -> Void) {
    guard count > 0 else { return }
    let index = physical(count - 1)
    guard var element = slots[index] else { return }
    slots[index] = nil
    change(&element)
    slots[index] = element
  }

  /// Removes and returns the newest element, or nil when empty.
  mutating func removeLast() -> Element? {
    guard count > 0 else { return nil }
    let index = physical(count - 1)
    let element = slots[index]
    slots[index] = nil
    count -= 1
    return element
  }

  /// Removes every element and releases the storage.
  ///
  /// - Returns: The buffer as it was, so that its elements can be released elsewhere.
  mutating func removeAll() -> RingBuffer {
    var emptied = RingBuffer(capacity: capacity)
    swap(&self, &emptied)
    return emptied
  }
}

extension RingBuffer: Sendable where Element: Sendable {}
