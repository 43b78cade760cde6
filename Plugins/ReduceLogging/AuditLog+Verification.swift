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
}
