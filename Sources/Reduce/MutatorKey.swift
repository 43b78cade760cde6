/// The unique name of a mutator in a store.
///
/// Keys are strings; a literal or an interpolation makes one:
///
/// ```swift
/// let key: MutatorKey = "item-\(id)"
/// ```
///
/// A mutator built from a stored-property key path defaults to the key path's description,
/// such as `\AppState.counter`.
public struct MutatorKey: Hashable, Sendable, Comparable {
  /// The key's text.
  public var rawValue: String

  /// Creates a key from its text.
  ///
  /// - Parameter rawValue: The key's text.
  public init(_ rawValue: String) {
    self.rawValue = rawValue
  }

  /// Orders keys by their text.
  public static func < (lhs: MutatorKey, rhs: MutatorKey) -> Bool {
    lhs.rawValue < rhs.rawValue
  }
}

extension MutatorKey: ExpressibleByStringLiteral {
  /// Creates a key from a string literal.
  ///
  /// - Parameter value: The key's text.
  public init(stringLiteral value: String) {
    self.init(value)
  }
}

extension MutatorKey: ExpressibleByStringInterpolation {}

extension MutatorKey: CustomStringConvertible {
  /// The key's text.
  public var description: String { rawValue }
}
