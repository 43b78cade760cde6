import Reduce
@_spi(Reflection) import Swift

/// The stored properties of a plain struct type, learned once per type: names, byte offsets,
/// and how to compare and read each one in place.
///
/// `Mirror` builds type-erased collections of boxed children for every value it reflects, which
/// made the state diff cost tens of thousands of instructions per action. The standard library's
/// field enumeration describes a type instead of a value, so its answer is kept: a diff then
/// compares each property through a pointer, with the property type's own `==`, and reflects
/// only the properties that changed.
struct FieldLayout: @unchecked Sendable {
  /// One stored property.
  struct Field {
    /// The property's name, as `Mirror` labels it.
    let name: String
    /// Its offset in the struct, in bytes.
    let offset: Int
    /// Compares the property of two values, given its address in each, when its type is
    /// `Equatable`.
    let equal: ((UnsafeRawPointer, UnsafeRawPointer) -> Bool)?
    /// Reads the property, given its address.
    let read: (UnsafeRawPointer) -> Any
  }

  let fields: [Field]

  /// The layout of `Value`'s type, or nil when the diff must reflect its values instead: not a
  /// plain struct, a struct with a custom mirror, or one the renderer prints whole (a leaf).
  ///
  /// - Parameter value: A value of the type, to check how the renderer treats it.
  /// - Returns: The layout, made once per type.
  static func of<Value>(_ value: Value) -> FieldLayout? {
    let key = ObjectIdentifier(Value.self)
    if let known = layouts.withLock({ $0[key] }) { return known.layout }
    let layout = make(value)
    layouts.withLock { known in
      if known.count >= 1024 { known.removeAll() }
      known[key] = KnownLayout(layout: layout)
    }
    return layout
  }

  private static func make<Value>(_ value: Value) -> FieldLayout? {
    // Only a plain struct has the same stored properties, and the same mirror, for every value.
    // `Value` must be the value's own type (not an existential holding it).
    guard ObjectIdentifier(type(of: value as Any)) == ObjectIdentifier(Value.self),
      TypeTraits.isPlain(Value.self), !(value is any CustomReflectable)
    else { return nil }
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .struct, !Renderer.isLeaf(value, mirror) else { return nil }
    var fields: [Field] = []
    let described = _forEachField(of: Value.self, options: []) { name, offset, type, _ in
      fields.append(field(String(cString: name), offset: offset, type: type))
      return true
    }
    // The enumeration and the mirror must agree, or the diff would name other properties.
    let labels = mirror.children.map { $0.label ?? "" }
    guard described, labels == fields.map(\.name) else { return nil }
    return FieldLayout(fields: fields)
  }

  private static func field(_ name: String, offset: Int, type: Any.Type) -> Field {
    func make<Property>(_: Property.Type) -> Field {
      Field(
        name: name, offset: offset, equal: equality(of: Property.self),
        read: { $0.assumingMemoryBound(to: Property.self).pointee })
    }
    return make(type)
  }

  private static func equality<Property>(of type: Property.Type)
    -> ((UnsafeRawPointer, UnsafeRawPointer) -> Bool)?
  {
    guard let equatable = type as? any Equatable.Type else { return nil }
    func compare<E: Equatable>(_: E.Type) -> (UnsafeRawPointer, UnsafeRawPointer) -> Bool {
      { $0.assumingMemoryBound(to: E.self).pointee == $1.assumingMemoryBound(to: E.self).pointee }
    }
    return compare(equatable)
  }
}

/// A layout, or the knowledge that a type has none.
private struct KnownLayout {
  let layout: FieldLayout?
}

/// The layouts of the state types seen so far.
private let layouts = Locked<[ObjectIdentifier: KnownLayout]>([:])
