extension ManualClock {
  /// A point in a manual clock's time: a duration since the clock's origin.
  public struct Instant: InstantProtocol, CustomStringConvertible {
    /// The time since the clock's origin.
    public var offset: Duration

    /// Creates the instant a duration after the clock's origin.
    ///
    /// - Parameter offset: The time since the origin.
    public init(offset: Duration) {
      self.offset = offset
    }

    /// The clock's origin, where a new clock starts.
    public static var zero: Instant { Instant(offset: .zero) }

    /// The instant a duration after this one.
    ///
    /// - Parameter duration: The duration to add; negative durations move back.
    /// - Returns: The later (or earlier) instant.
    public func advanced(by duration: Duration) -> Instant {
      Instant(offset: offset + duration)
    }

    /// The duration from this instant to another.
    ///
    /// - Parameter other: The other instant.
    /// - Returns: How far `other` is after this instant; negative when it is before.
    public func duration(to other: Instant) -> Duration {
      other.offset - offset
    }

    /// Whether one instant comes before another.
    ///
    /// - Parameters:
    ///   - lhs: An instant.
    ///   - rhs: Another instant.
    /// - Returns: `true` when `lhs` is earlier than `rhs`.
    public static func < (lhs: Instant, rhs: Instant) -> Bool {
      lhs.offset < rhs.offset
    }

    /// The offset from the origin, for example `1.5 seconds`.
    public var description: String {
      "\(offset)"
    }
  }
}
