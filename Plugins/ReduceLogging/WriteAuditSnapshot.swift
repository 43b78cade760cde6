public import Reduce

/// Appends a snapshot of the state to the log of the store's ``AuditTrail``, without rotating
/// it.
///
/// Dispatch it every so many entries (or from a timer): a replay from the newest snapshot
/// (``AuditLog/replay(from:into:actions:start:through:key:)``, a ``StandbyStore``) then reads
/// only the entries after it, so that its time stays bounded however long the log. The line
/// continues the chain like any entry:
///
/// ```json
/// {"seq":1825,"prev":"9c1f...e07a","ts":"2024-06-01T00:00:00.000Z","snapshot":{"balances":{"ada":50}}}
/// ```
///
/// The trail reads the state in the store's turn, so the snapshot is exactly the state after
/// the entry before it. It is written to the trail's sink, whatever it is (a file, a
/// ``MemoryJournal``, a database), and is on disk before the dispatch returns when the sink's
/// entries are. The state must be `Encodable` (and `Decodable`, to be replayed). If it cannot
/// be written, the dispatch fails with `DispatchError.middlewareFailed(name:action:underlying:)`
/// (an ``AuditTrailError`` or the sink's error). The action then goes on down the chain; no
/// mutator should handle it.
///
/// ```swift
/// _ = try store.dispatch(WriteAuditSnapshot()).get()
/// ```
public struct WriteAuditSnapshot: Action {
  /// Creates the action.
  public init() {}
}
