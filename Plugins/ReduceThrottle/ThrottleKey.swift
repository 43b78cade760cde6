public import Reduce

/// The identity of one independent stream of actions in a ``ThrottleMiddleware``.
///
/// Each key has its own timing: throttling the autosave of one document never holds back the
/// autosave of another. A rule matched by action type alone uses the type as its one key
/// (`ThrottleKey(SearchAction.self)`); a rule with a key closure uses the value the closure
/// returns, wrapped in a `ThrottleKey`. String literals are keys too: `cancel(key: "doc-1")`.
public struct ThrottleKey: Hashable, Sendable, CustomStringConvertible,
  ExpressibleByStringLiteral
{
  /// The wrapped value.
  ///
  /// `AnyHashable` is not `Sendable`, so this stored property makes the conformance unchecked.
  private let box: SendableHashable
  /// A readable form of the key, for messages.
  public let description: String

  /// Creates the key a key closure's value becomes.
  ///
  /// A `ThrottleKey` passed here is returned unchanged rather than wrapped again.
  ///
  /// - Parameter value: Any hashable, sendable value: an identifier, a string, an enum case.
  public init(_ value: some Hashable & Sendable) {
    if let key = value as? ThrottleKey {
      self = key
    } else {
      box = SendableHashable(value)
      description = String(describing: value)
    }
  }

  /// Creates the key of a rule that matches an action type without a key closure.
  ///
  /// - Parameter type: The rule's action type.
  public init<A: Action>(_ type: A.Type) {
    box = SendableHashable(ObjectIdentifier(type))
    description = String(describing: type)
  }

  /// Creates a key from a string literal.
  ///
  /// - Parameter value: The string.
  public init(stringLiteral value: String) {
    self.init(value)
  }

  /// Whether two keys wrap equal values.
  ///
  /// - Parameters:
  ///   - lhs: A key.
  ///   - rhs: Another key.
  /// - Returns: `true` when the wrapped values are equal.
  public static func == (lhs: ThrottleKey, rhs: ThrottleKey) -> Bool {
    lhs.box == rhs.box
  }

  /// Hashes the wrapped value.
  ///
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(box)
  }
}

/// An `AnyHashable` made only from `Sendable` values.
///
/// `@unchecked Sendable` is safe: the initialiser accepts only `Sendable` values, and
/// `AnyHashable` adds no mutable state of its own.
private struct SendableHashable: Hashable, @unchecked Sendable {
  let value: AnyHashable

  init(_ value: some Hashable & Sendable) {
    self.value = AnyHashable(value)
  }
}
