/// A restore under way: undo passed its `ReplaceState` on and waits for it to commit.
struct PendingRestore: Sendable {
  /// The store restored.
  let store: ObjectIdentifier
  /// Whether the restore committed (the commit observer saw it).
  var committed = false
}

/// What an ``UndoLedger`` keeps under its lock: the history, the store served, a restore
/// under way, and the status streams.
struct UndoBook: Sendable {
  var history: UndoHistory
  /// The stay in the store served, if any.
  var stay: UndoStay?
  /// Set while a command's `ReplaceState` goes down the chain: the commit it makes is not a step.
  var restoring: PendingRestore?
  /// The status last published.
  var published = UndoStatus()
  var sinks: [UInt64: AsyncStream<UndoStatus>.Continuation] = [:]
  var lastSinkID: UInt64 = 0

  init(history: UndoHistory) {
    self.history = history
  }
}
