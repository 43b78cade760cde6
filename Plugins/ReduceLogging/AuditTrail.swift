public import Foundation
public import Reduce

/// A middleware that keeps a store's write-ahead log: every change is recorded before it is
/// made, and a change whose entry cannot be written is not made.
///
/// ```swift
/// let audit = AuditTrail<Ledger>(path: "ledger.log", durability: .everyEntry)
/// let store = try Store(initialState: Ledger(), mutators: [balances], middleware: [audit])
/// let ledger = try store.dispatch(LedgerAction.deposited(account: "ada", amount: 100)).get()
/// // ledger.log: {"seq":1,"prev":"000…","ts":"…","action":"LedgerAction",
/// //   "payload":{"deposited":{"account":"ada","amount":100}},"outcome":"ok",
/// //   "durationNs":2100,"mutators":["\\Ledger.balances"]}
/// ```
///
/// For each commit of the store whose action passes the `filter`, the trail writes one
/// JSON-lines ``LogEntry`` once the change is decided (every `validate:` check passed) and before
/// anyone can see it (its ``commitObserver``'s `willCommit`): the time, the action's type and
/// payload (its JSON when it is `Encodable`), and the keys of the mutators that make the change.
/// What an entry records is bounded by the action, never by the size of the state: the readable
/// diff of ``LoggingMiddleware`` walks the whole state and is for debugging.
///
/// - **Write-ahead.** If the entry cannot be written (a full disk, a removed file, an I/O
///   error), the action fails with `DispatchError.middlewareFailed(name:action:underlying:)`
///   naming the sink's error, the state stays as it was, and the failure is published on the
///   store's `errors`. With a ``FileLogSink`` whose durability is
///   ``FileLogSink/Durability/everyEntry``, `dispatch` and `send` return only once the entry is
///   on disk; concurrent dispatchers share one flush (``LogSink/waitUntilDurable()``, run by the
///   observer's `afterTurn`, once the store released its turn, and only by a dispatch that wrote
///   an entry). If that flush fails, the dispatch fails, although its change was made.
/// - **Failures.** An action that a check, a reducer or a later middleware refuses changes
///   nothing; the trail's `handle` records it afterwards, with `"outcome":"failed"` and the error
///   (a failure to record it is published on `errors`; the dispatch's own error is returned).
/// - **Batches.** A `Batch` is one commit, so one entry, with the mutators of all its actions,
///   written before the batch commits. A batch one of whose actions fails changes nothing: it is
///   one failure entry too, the batch's (payload: its actions), with that action's error. Its
///   actions go through the chain inside the batch's own `handle`, which records the failure;
///   theirs do not.
/// - **Whatever delivers it.** An action a later middleware passes on late (after a delay, from
///   a task) is recorded when it commits.
/// - **Not recorded:** an action no later middleware lets reach the reducers (swallowed), and
///   ``RotateAuditLog``. Place the trail last in the chain, so that the actions it records are
///   the ones the reducers received: replaying them into a store rebuilds its state.
///
/// An entry's `ts` is when the trail's `handle` began on the action (for a batch, on the
/// batch), and its `durationNs` runs from then to the writing of the entry: the rest of the
/// chain and the checks (for a failure, until `next` threw). An action passed on late, while no
/// `handle` of the trail runs in the store, has the time of its commit and a duration of zero.
///
/// Payloads are recorded exactly, with no redaction by default, so that a replay can decode
/// them; keep secrets out of actions, or name fields in `redactedFields` (actions with redacted
/// fields then cannot be replayed faithfully).
public struct AuditTrail<State: Sendable>: Middleware {
  /// The middleware's name, unique in a store's chain.
  public let name: String
  /// Where the entries go.
  public let sink: any LogSink
  private let filter: (@Sendable (any Action) -> Bool)?
  let now: @Sendable () -> Date
  private let waitsForDisk: Bool
  private let tracker: DispatchTracker
  /// Makes and writes the entries, in code that is not generic over the state.
  private let recorder: AuditRecorder
  var encoder: ActionEncoder { recorder.encoder }

  /// Creates an audit trail that writes to a sink.
  ///
  /// - Parameters:
  ///   - name: The middleware's name.
  ///   - sink: Where entries go, as JSON lines: usually a chained
  ///     ``FileLogSink`` (``init(name:path:durability:checkpoints:filter:redactedFields:now:)``).
  ///   - filter: Which actions to record; the others are passed on unrecorded. Leave it out for
  ///     a log that replays to the store's state.
  ///   - redactedFields: Field names whose values are recorded as `<redacted>` (see
  ///     ``LogRedaction``); none by default.
  ///   - now: Gives the entries' timestamps.
  public init(
    name: String = "AuditTrail",
    sink: any LogSink,
    filter: (@Sendable (any Action) -> Bool)? = nil,
    redactedFields: Set<String> = [],
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.name = name
    self.sink = sink
    self.filter = filter
    let encoder = ActionEncoder(redactor: Redactor(redactedFields))
    self.recorder = AuditRecorder(
      sink: sink, encoder: encoder, replacementType: ReplaceState<State>.self,
      replacementPayload: { action in
        guard let replacement = action as? ReplaceState<State>,
          let state = replacement.state as? any Encodable
        else { return nil }
        return encoder.json(ofValue: state)
      })
    self.now = now
    self.waitsForDisk = sink.defersDurability
    self.tracker = DispatchTracker(clock: ContinuousClock(), now: now)
  }

  /// Creates an audit trail that writes a hash-chained JSON-lines file.
  ///
  /// - Parameters:
  ///   - name: The middleware's name.
  ///   - path: The log file's path; an existing chained log is continued.
  ///   - durability: When an entry is on disk: with ``FileLogSink/Durability/everyEntry`` (the
  ///     default) before its dispatch returns.
  ///   - checkpoints: Keyed checkpoints (``AuditCheckpoints``), so that someone who can write
  ///     the file but does not hold the key cannot rewrite its chain unnoticed; none by default.
  ///   - filter: Which actions to record.
  ///   - redactedFields: Field names whose values are recorded as `<redacted>`.
  ///   - now: Gives the entries' timestamps.
  public init(
    name: String = "AuditTrail",
    path: String,
    durability: FileLogSink.Durability = .everyEntry,
    checkpoints: AuditCheckpoints? = nil,
    filter: (@Sendable (any Action) -> Bool)? = nil,
    redactedFields: Set<String> = [],
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.init(
      name: name,
      sink: FileLogSink(
        path: path, durability: durability, chained: true, checkpoints: checkpoints),
      filter: filter, redactedFields: redactedFields, now: now)
  }

  /// Opens a file sink, so that a log that cannot be written or continued is found before any
  /// action.
  ///
  /// - Parameter store: The store's identity.
  /// - Throws: A ``LogSinkError`` when the file cannot be opened or its chain continued.
  public func willAttach(to store: ObjectIdentifier) throws {
    try (sink as? FileLogSink)?.open()
  }

  /// Flushes a file sink to disk.
  ///
  /// - Parameter store: The store's identity.
  public func didDetach(from store: ObjectIdentifier) {
    tracker.forget(store)
    (sink as? FileLogSink)?.flushIfOpen()
  }

  /// Passes the action on, and records its failure; rotates the log for a ``RotateAuditLog``.
  ///
  /// The change itself is recorded by the ``commitObserver``. The failure of one of a `Batch`'s
  /// actions is recorded once, as the batch's.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - context: The store's state and error reporting.
  ///   - next: Passes the action on.
  /// - Throws: The `DispatchError` of the rest of the chain, or the rotation's failure.
  public func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>)
    throws
  {
    let store = context.storeID
    let outermost = tracker.enter(store)
    defer { tracker.exit(store) }
    if type(of: action) == WriteAuditSnapshot.self, filter?(action) != false {
      try writeSnapshot(action, context: context, next: next)
      return
    }
    if type(of: action) == RotateAuditLog.self, let rotation = action as? RotateAuditLog,
      filter?(action) != false
    {
      // Inside a batch, the state read holds the batch's changes before it, which the batch's
      // entry, written after the snapshot, would record again: no rotation there.
      if outermost {
        do {
          try rotate(rotation, state: context.state)
        } catch {
          throw DispatchError.middlewareFailed(name: name, action: action, underlying: error)
        }
      }
      try next(action)
      return
    }
    do {
      try next(action)
    } catch {
      // Refused by this trail's own write: the sink failed, nothing to record it in.
      if case .middlewareFailed(let refuser, _, _) = error, refuser == name { throw error }
      guard outermost, filter?(action) != false else { throw error }
      do {
        let timing = tracker.entryTiming(in: store)
        try recorder.write(
          action, timestamp: timing.timestamp, outcome: .failed(error), duration: timing.duration,
          mutators: nil)
        if waitsForDisk { tracker.wroteEntry(for: action, in: store) }
      } catch let failure {
        context.report(failure)
      }
      throw error
    }
  }

  /// Writes a snapshot of the state (``WriteAuditSnapshot``) and passes the action on; the
  /// dispatch waits, after the turn, until the snapshot is on disk.
  private func writeSnapshot(
    _ action: any Action, context: MiddlewareContext<State>, next: Next<State>
  ) throws {
    do {
      try recorder.writeSnapshot(try snapshot(of: context.state), timestamp: now())
    } catch {
      throw DispatchError.middlewareFailed(name: name, action: action, underlying: error)
    }
    if waitsForDisk { tracker.wroteEntry(for: action, in: context.storeID) }
    try next(action)
  }

  /// Writes each commit's entry before the commit, and waits after the turn until it is on disk.
  public var commitObserver: CommitObserver<State>? {
    let recorder = recorder
    let tracker = tracker
    let filter = filter
    let waitsForDisk = waitsForDisk
    let sink = sink
    let willCommit: @Sendable (PendingCommit) throws -> Void = { change in
      let type = type(of: change.action)
      guard type != RotateAuditLog.self, type != WriteAuditSnapshot.self,
        filter?(change.action) != false
      else { return }
      let timing = tracker.entryTiming(in: change.store)
      try recorder.write(
        change.action, timestamp: timing.timestamp, outcome: .ok, duration: timing.duration,
        mutators: change.mutators)
      if waitsForDisk { tracker.wroteEntry(for: change.action, in: change.store) }
    }
    guard waitsForDisk else { return CommitObserver(willCommit: willCommit) }
    return CommitObserver(
      willCommit: willCommit,
      afterTurn: {
        // Cheap when this thread wrote nothing: one look-up.
        guard tracker.takeWrittenEntry() != nil else { return }
        try sink.waitUntilDurable()
      })
  }
}

/// Rotates the log of the store's ``AuditTrail``, with a snapshot of the state.
///
/// Dispatch it when the log has grown large enough: the trail flushes its file, moves it aside
/// (to `archivePath`, or by default the log's path followed by the `seq` of its last entry in
/// twelve digits: `audit.log.000000001824`), and starts a new file at the log's path whose
/// first line is a snapshot of the state, continuing the chain (the next `seq`, the hash of the
/// archive's last line in `prev`). The archive and the new file verify as one log
/// (`reduce-audit verify audit.log.000000001824 audit.log`), and a replay of the new file
/// starts from its snapshot (``AuditLog/replay(contentsOf:into:actions:through:)-(URL,_,_,_)``).
///
/// The trail reads the state in the store's turn, so the snapshot is exactly the state after
/// the archive's last entry. The state must be `Encodable` (and `Decodable`, to be replayed).
/// If the rotation fails, the dispatch fails with
/// `DispatchError.middlewareFailed(name:action:underlying:)` (an ``AuditTrailError`` or a
/// ``LogSinkError``) and the log goes on in its file. The action then goes on down the chain;
/// no mutator should handle it, and the trail records no entry for it. Inside a `Batch` it
/// does not rotate: the state there holds the batch's earlier changes, which the batch's entry,
/// written after the snapshot, would record again.
public struct RotateAuditLog: Action {
  /// Where the current file is moved; nil for the default name.
  public var archivePath: String?

  /// Creates the action.
  ///
  /// - Parameter archivePath: Where the current file is moved; nil for the default name. It
  ///   must not exist.
  public init(archivingTo archivePath: String? = nil) {
    self.archivePath = archivePath
  }
}

/// Why an ``AuditTrail`` could not rotate its log.
public enum AuditTrailError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The trail's sink is not a chained ``FileLogSink``: there is no file to rotate.
  case notAChainedFile
  /// The state is not `Encodable`, so no snapshot of it can be written.
  case stateNotEncodable(type: String)
  /// Encoding the state failed.
  case snapshotFailed(reason: String)

  /// What went wrong.
  public var description: String {
    switch self {
    case .notAChainedFile: "Only an audit trail that writes a chained log file can rotate it."
    case .stateNotEncodable(let type):
      "The state \(type) is not Encodable: no snapshot of it can start the rotated log."
    case .snapshotFailed(let reason): "The state could not be encoded for a snapshot: \(reason)."
    }
  }
}

extension AuditTrail {
  /// Rotates the trail's file with a snapshot of `state`.
  func rotate(_ rotation: RotateAuditLog, state: State) throws {
    guard let file = sink as? FileLogSink, file.chained else {
      throw AuditTrailError.notAChainedFile
    }
    let snapshot = try snapshot(of: state)
    let timestamp = Timestamp.format(now())
    try file.rotate(archivingTo: rotation.archivePath) { sequence, previous in
      JSONValue.object([
        ("seq", .number(String(sequence))), ("prev", .string(previous)),
        ("ts", .string(timestamp)), ("snapshot", snapshot),
      ]).serialized
    }
  }

  /// The state's JSON, for a snapshot.
  func snapshot(of state: State) throws(AuditTrailError) -> JSONValue {
    guard let encodable = state as? any Encodable else {
      throw .stateNotEncodable(type: String(describing: State.self))
    }
    do {
      return try encoder.snapshot(of: encodable)
    } catch {
      throw .snapshotFailed(reason: "\(error)")
    }
  }
}
