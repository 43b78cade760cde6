extension AuditLog {
  /// What an intact log holds: how many entries, and where its chain starts and ends.
  public struct Verification: Sendable, Hashable {
    /// The number of entries, all intact.
    public var entries: Int
    /// The first entry's `seq`.
    ///
    /// 1 for a log that starts its chain, and for an empty log; more for a file that continues
    /// an earlier one.
    public var firstSequence: Int
    /// The first entry's `prev`: ``AuditLog/genesisHash`` for a log that starts its chain, else
    /// the hash of the last line of the file it continues (which this file cannot check).
    public var firstPreviousHash: String
    /// The hash of the last line, which an entry that continues the log records as its `prev`.
    ///
    /// ``AuditLog/genesisHash`` for an empty log.
    public var lastHash: String
    /// How many keyed checkpoints verified with the key; 0 when no key was given.
    public var checkpoints = 0
    /// How many entries follow the last checkpoint, or the start when there is none.
    ///
    /// The key does not vouch for them yet. 0 when no key was given.
    public var entriesAfterLastCheckpoint = 0

    /// Creates a summary.
    ///
    /// - Parameters:
    ///   - entries: The number of entries.
    ///   - firstSequence: The first entry's `seq`.
    ///   - firstPreviousHash: The first entry's `prev`.
    ///   - lastHash: The hash of the last line.
    public init(entries: Int, firstSequence: Int, firstPreviousHash: String, lastHash: String) {
      self.entries = entries
      self.firstSequence = firstSequence
      self.firstPreviousHash = firstPreviousHash
      self.lastHash = lastHash
    }

    /// The last entry's `seq`; `firstSequence - 1` for an empty log.
    public var lastSequence: Int { firstSequence + entries - 1 }

    /// Whether the log continues an earlier file instead of starting its chain.
    ///
    /// The earlier file's last line should hash to ``firstPreviousHash``. A copy-and-truncate
    /// rotation leaves such a file, and so does removing the first entries of a log: verify it
    /// together with the earlier file to tell which.
    public var continuesEarlierFile: Bool { firstSequence > 1 }
  }

  /// Where a verified log must start (``AuditLog/verify(contentsOf:start:key:)``).
  public enum ChainStart: Sendable, Hashable {
    /// At entry 1, the start of the chain: a log that starts later is missing its first
    /// entries (``AuditLogError/startsMidChain(path:firstSequence:)``).
    case genesis
    /// At the entry with this `seq`: what a rotated file continues from, when you know it.
    case sequence(Int)
    /// After the line with this hash: the first entry's `prev` must be it (the hash of the
    /// earlier file's last line, recorded at rotation).
    case continuing(hash: String)
    /// Anywhere: a file that continues an earlier one verifies on its own
    /// (``Verification/continuesEarlierFile`` says so).
    case anywhere
  }
}
