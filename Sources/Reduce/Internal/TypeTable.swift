/// An immutable table from action types to values, for the look-ups every dispatch makes: a
/// mutator route (`Registry`) and a middleware plan (`ChainPlans`).
///
/// Open addressing: keys are the types' identities as numbers (0 marks an empty slot), the
/// table is at most half full, the first slot is found by Fibonacci hashing and collisions are
/// probed linearly. A look-up costs one multiplication and, usually, one comparison.
@usableFromInline
struct TypeTable<Value> {
  @usableFromInline let keys: [UInt]
  @usableFromInline let values: [Value]
  @usableFromInline let shift: UInt
  /// The value of every type not in the table.
  @usableFromInline let missing: Value

  /// Creates a table.
  ///
  /// - Parameters:
  ///   - entries: The types and their values; each type at most once.
  ///   - missing: The value of every other type.
  init(_ entries: [(type: ObjectIdentifier, value: Value)], missing: Value) {
    var capacity = 2
    var bits: UInt = 1
    while capacity < entries.count * 2 {
      capacity *= 2
      bits += 1
    }
    let shift = UInt(UInt.bitWidth) - bits
    var keys = [UInt](repeating: 0, count: capacity)
    var values = [Value](repeating: missing, count: capacity)
    for entry in entries {
      let key = UInt(bitPattern: entry.type)
      var index = Self.slot(of: key, shift: shift)
      while keys[index] != 0 { index = (index + 1) & (capacity - 1) }
      keys[index] = key
      values[index] = entry.value
    }
    self.keys = keys
    self.values = values
    self.shift = shift
    self.missing = missing
  }

  /// The first slot to probe for a key: Fibonacci hashing of the identifier's bits.
  @inlinable
  static func slot(of key: UInt, shift: UInt) -> Int {
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
  }

  /// The value of a type: its own, or `missing`.
  ///
  /// - Complexity: O(1) on average.
  @inlinable
  subscript(type: ObjectIdentifier) -> Value {
    let key = UInt(bitPattern: type)
    let mask = keys.count - 1
    var index = Self.slot(of: key, shift: shift)
    while true {
      let candidate = keys[index]
      if candidate == key { return values[index] }
      if candidate == 0 { return missing }
      index = (index + 1) & mask
    }
  }
}

extension TypeTable: Sendable where Value: Sendable {}
