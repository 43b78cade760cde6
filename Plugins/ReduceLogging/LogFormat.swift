/// How a ``LoggingMiddleware`` writes its entries.
public enum LogFormat: Sendable, Hashable {
  /// Text for people; see ``TextStyle``.
  case text(style: TextStyle)
  /// One JSON object per line, for machines: the format of the audit trail.
  ///
  /// Members, in order: `seq`, `prev` (chained files only), `ts`, `action`, `payload` (when the
  /// action is `Encodable`), `outcome` (`"ok"` or `"failed"`), `error` (when failed),
  /// `durationNs`, `changes` (an array of `{"path", "old", "new"}`, when the middleware diffs).
  case jsonLines

  /// The layout of the text format.
  public enum TextStyle: Sendable, Hashable {
    /// One line per action: the number, time, type, payload, outcome, duration, and after `|`
    /// the changes: `#3 2024-05-01T12:00:00.123Z CounterAction {"incremented":{"by":2}} ok
    /// 0.041ms | count: 1 -> 3`.
    case compact
    /// A header line, then the payload, outcome, duration and each change on lines of their own.
    case expanded
  }
}
