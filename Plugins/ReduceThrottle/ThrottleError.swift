/// Why a ``ThrottleMiddleware`` refused its rules.
///
/// Each case names the rule by its index in the `rules:` array, counting from 0.
public enum ThrottleError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A throttle rule's interval is zero or negative.
  case nonPositiveInterval(rule: Int, interval: Duration)
  /// A debounce rule's quiet duration is zero or negative.
  case nonPositiveDuration(rule: Int, duration: Duration)
  /// A debounce rule's `maxWait` is shorter than its quiet duration, so it could never wait for
  /// quiet.
  case maxWaitShorterThanDuration(rule: Int, maxWait: Duration, duration: Duration)

  /// A sentence that says which rule is wrong and how to fix it.
  public var description: String {
    switch self {
    case .nonPositiveInterval(let rule, let interval):
      "Throttle rule \(rule) has an interval of \(interval); the interval must be positive."
    case .nonPositiveDuration(let rule, let duration):
      "Debounce rule \(rule) has a duration of \(duration); the duration must be positive."
    case .maxWaitShorterThanDuration(let rule, let maxWait, let duration):
      "Debounce rule \(rule) has a maxWait of \(maxWait), shorter than its duration of \(duration); make maxWait at least the duration, or nil."
    }
  }
}
