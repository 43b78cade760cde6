public import Reduce

/// Which actions a ``ThrottleMiddleware`` holds back, and how.
///
/// A rule matches actions by type, by type and a key closure, or by a key closure over every
/// action. A rule for a type matches the actions dispatched (or passed on) as exactly that type,
/// the type the store routes them to mutators by: not those of a subclass, nor an optional or a
/// collection holding one. Actions the rule gives the same ``ThrottleKey`` form one stream;
/// streams with different keys are timed independently. The first rule of the middleware that
/// matches an action decides its fate; actions no rule matches pass through untouched.
///
/// ```swift
/// let rules: [ThrottleRule] = [
///   .debounce(SearchAction.self, for: .milliseconds(300)),
///   .throttle(ScrollAction.self, for: .milliseconds(100), latest: true),
///   .debounce(EditAction.self, for: .seconds(2), maxWait: .seconds(10)) { $0.documentID },
/// ]
/// ```
///
/// A rule's options are fixed when it is made; they never change after the first action.
public struct ThrottleRule: Sendable, CustomStringConvertible {
  /// How a rule times the actions it matches.
  enum Timing: Sendable {
    case throttle(interval: Duration, latest: Bool)
    case debounce(duration: Duration, maxWait: Duration?)
  }

  let timing: Timing
  /// The key of an action the rule matches, or `nil` when it does not match.
  ///
  /// A rule with an `actionType` is asked only about actions of that type.
  let key: @Sendable (any Action) -> ThrottleKey?
  /// What the rule matches, for messages: a type name or "key closure".
  let matches: String
  /// The one action type the rule matches, by identity; nil for a key closure over every action.
  let actionType: ObjectIdentifier?

  private init(
    timing: Timing, matches: String, actionType: Any.Type?,
    key: @escaping @Sendable (any Action) -> ThrottleKey?
  ) {
    self.timing = timing
    self.matches = matches
    self.actionType = actionType.map { ObjectIdentifier($0) }
    self.key = key
  }

  /// A readable form of the rule, such as `debounce(SearchAction, for: 0.3 seconds)`.
  public var description: String {
    switch timing {
    case .throttle(let interval, let latest):
      "throttle(\(matches), for: \(interval), latest: \(latest))"
    case .debounce(let duration, let maxWait?):
      "debounce(\(matches), for: \(duration), maxWait: \(maxWait))"
    case .debounce(let duration, nil):
      "debounce(\(matches), for: \(duration))"
    }
  }

  // MARK: Throttle

  /// Lets the first action of a type through at once and then at most one per interval.
  ///
  /// Every action of the type shares one key, `ThrottleKey(type)`.
  ///
  /// - Parameters:
  ///   - type: The action type the rule matches.
  ///   - interval: The shortest time between two deliveries; must be positive.
  ///   - latest: Whether the last action held back during an interval is delivered when the
  ///     interval ends (`true`), or every action held back is dropped (`false`).
  /// - Returns: The rule.
  public static func throttle<A: Action>(_ type: A.Type, for interval: Duration, latest: Bool)
    -> ThrottleRule
  {
    let key = ThrottleKey(type)
    return ThrottleRule(
      timing: .throttle(interval: interval, latest: latest), matches: "\(type)", actionType: A.self,
      key: { _ in key })
  }

  /// Throttles the actions of a type, one stream per key.
  ///
  /// - Parameters:
  ///   - type: The action type the rule matches.
  ///   - interval: The shortest time between two deliveries of one key; must be positive.
  ///   - latest: Whether the last action held back for a key is delivered when its interval
  ///     ends.
  ///   - key: The key of an action, or `nil` to let the action through untouched. Called for
  ///     every action of the type; it must be fast and must not dispatch.
  /// - Returns: The rule.
  public static func throttle<A: Action, Key: Hashable & Sendable>(
    _ type: A.Type, for interval: Duration, latest: Bool,
    key: @escaping @Sendable (A) -> Key?
  ) -> ThrottleRule {
    ThrottleRule(
      timing: .throttle(interval: interval, latest: latest), matches: "\(type) by key",
      actionType: A.self, key: { action in (action as? A).flatMap(key).map { ThrottleKey($0) } })
  }

  /// Throttles every action a key closure gives a key, one stream per key.
  ///
  /// - Parameters:
  ///   - interval: The shortest time between two deliveries of one key; must be positive.
  ///   - latest: Whether the last action held back for a key is delivered when its interval
  ///     ends.
  ///   - key: The key of an action, or `nil` to let the action through untouched. Called for
  ///     every action no earlier rule matched; it must be fast and must not dispatch.
  /// - Returns: The rule.
  public static func throttle<Key: Hashable & Sendable>(
    for interval: Duration, latest: Bool, key: @escaping @Sendable (any Action) -> Key?
  ) -> ThrottleRule {
    ThrottleRule(
      timing: .throttle(interval: interval, latest: latest), matches: "key closure",
      actionType: nil, key: { key($0).map { ThrottleKey($0) } })
  }

  // MARK: Debounce

  /// Delivers only the last action of a type, once no other has come for a quiet duration.
  ///
  /// Every action of the type shares one key, `ThrottleKey(type)`.
  ///
  /// - Parameters:
  ///   - type: The action type the rule matches.
  ///   - duration: The quiet time after the last action; must be positive.
  ///   - maxWait: The longest an action is held while actions keep coming: the held action is
  ///     delivered at the latest this long after the first action of the burst. At least
  ///     `duration`; `nil` waits for quiet however long it takes.
  /// - Returns: The rule.
  public static func debounce<A: Action>(
    _ type: A.Type, for duration: Duration, maxWait: Duration? = nil
  ) -> ThrottleRule {
    let key = ThrottleKey(type)
    return ThrottleRule(
      timing: .debounce(duration: duration, maxWait: maxWait), matches: "\(type)",
      actionType: A.self,
      key: { _ in key })
  }

  /// Debounces the actions of a type, one stream per key.
  ///
  /// - Parameters:
  ///   - type: The action type the rule matches.
  ///   - duration: The quiet time after the last action of a key; must be positive.
  ///   - maxWait: The longest an action of a key is held while actions keep coming; at least
  ///     `duration`, or `nil`.
  ///   - key: The key of an action, or `nil` to let the action through untouched. Called for
  ///     every action of the type; it must be fast and must not dispatch.
  /// - Returns: The rule.
  public static func debounce<A: Action, Key: Hashable & Sendable>(
    _ type: A.Type, for duration: Duration, maxWait: Duration? = nil,
    key: @escaping @Sendable (A) -> Key?
  ) -> ThrottleRule {
    ThrottleRule(
      timing: .debounce(duration: duration, maxWait: maxWait), matches: "\(type) by key",
      actionType: A.self, key: { action in (action as? A).flatMap(key).map { ThrottleKey($0) } })
  }

  /// Debounces every action a key closure gives a key, one stream per key.
  ///
  /// - Parameters:
  ///   - duration: The quiet time after the last action of a key; must be positive.
  ///   - maxWait: The longest an action of a key is held while actions keep coming; at least
  ///     `duration`, or `nil`.
  ///   - key: The key of an action, or `nil` to let the action through untouched. Called for
  ///     every action no earlier rule matched; it must be fast and must not dispatch.
  /// - Returns: The rule.
  public static func debounce<Key: Hashable & Sendable>(
    for duration: Duration, maxWait: Duration? = nil,
    key: @escaping @Sendable (any Action) -> Key?
  ) -> ThrottleRule {
    ThrottleRule(
      timing: .debounce(duration: duration, maxWait: maxWait), matches: "key closure",
      actionType: nil, key: { key($0).map { ThrottleKey($0) } })
  }

  // MARK: Validation

  /// The rule's problem, if its options are invalid.
  func validate(index: Int) -> ThrottleError? {
    switch timing {
    case .throttle(let interval, _):
      if interval <= .zero { return .nonPositiveInterval(rule: index, interval: interval) }
    case .debounce(let duration, let maxWait):
      if duration <= .zero { return .nonPositiveDuration(rule: index, duration: duration) }
      if let maxWait, maxWait < duration {
        return .maxWaitShorterThanDuration(rule: index, maxWait: maxWait, duration: duration)
      }
    }
    return nil
  }
}
