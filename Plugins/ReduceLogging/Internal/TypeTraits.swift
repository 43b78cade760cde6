/// What the logger may learn about a type once and keep, instead of asking each value.
enum TypeTraits {
  /// Whether a cast from a value of this type, or to it, is decided by the type alone: a value
  /// of a plain type is an instance of another plain type only when the two types are the same.
  ///
  /// Not plain: classes (subclasses, bridging on Darwin), optionals and `AnyHashable` (casts
  /// look through them), and collections (an array casts element by element, an empty one to
  /// any array type).
  ///
  /// - Parameter type: The type.
  /// - Returns: Whether it is plain.
  static func isPlain(_ type: Any.Type) -> Bool {
    !(type is AnyObject.Type) && !(type is any OptionalMarker.Type)
      && ObjectIdentifier(type) != ObjectIdentifier(AnyHashable.self)
      && !(type is any Collection.Type)
  }
}

/// Marks `Optional`, whose casts depend on its value.
private protocol OptionalMarker {}

extension Optional: OptionalMarker {}
