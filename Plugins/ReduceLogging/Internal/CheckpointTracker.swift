/// Checks the keyed checkpoints of a chain as its lines go by: each one's code, and that no more
/// than its `every` entries pass without one.
struct CheckpointTracker {
  /// Why a line fails the check.
  enum Problem: Equatable {
    /// The checkpoint's code, or its shape, is wrong.
    case bad(reason: String)
    /// More entries than the last checkpoint's `every` passed without a checkpoint.
    case missing(every: Int)
  }

  let key: AuditCheckpoints.Key
  /// How many checkpoints verified.
  private(set) var verified = 0
  /// The `every` of the last checkpoint.
  private(set) var every: Int?
  /// Lines since the last checkpoint, or since the start.
  private(set) var since = 0

  init(key: AuditCheckpoints.Key) {
    self.key = key
  }

  /// Checks the next line, already parsed and linked.
  mutating func check(_ entry: JSONValue, sequence: Int, previous: String) -> Problem? {
    guard let checkpoint = entry["checkpoint"] else {
      since += 1
      if let every, since > every { return .missing(every: every) }
      return nil
    }
    guard let code = checkpoint["mac"]?.stringValue, let every = checkpoint["every"]?.intValue,
      every >= 1
    else {
      return .bad(reason: "it has no `mac` and `every` of 1 or more")
    }
    guard key.verifies(code, sequence: sequence, previous: previous, every: every) else {
      return .bad(
        reason:
          "its code is not the key's: the chain before it was rewritten, or the key is not the writer's"
      )
    }
    verified += 1
    self.every = every
    since = 0
    return nil
  }
}
