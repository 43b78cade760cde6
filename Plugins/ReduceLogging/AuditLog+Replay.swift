public import Foundation
public import Reduce

/// The action types a replay can rebuild, by the name an audit log records them under.
///
/// An entry's `action` is its type's name without the module (`LedgerAction`); register every
/// `Decodable` action type the log may hold. Two registered types with the same name are a
/// mistake: the later one wins.
public struct ReplayableActions: Sendable {
  fileprivate let decoders: [String: @Sendable (Data) throws -> any Action]

  /// Registers action types.
  ///
  /// - Parameter types: The `Decodable` action types the log holds.
  public init(_ types: [any (Action & Decodable).Type]) {
    var decoders: [String: @Sendable (Data) throws -> any Action] = [:]
    for type in types {
      decoders[String(describing: type)] = Self.decoder(for: type)
    }
    self.decoders = decoders
  }

  private static func decoder<A: Action & Decodable>(for type: A.Type)
    -> @Sendable (Data) throws -> any Action
  {
    { data in try JSONDecoder().decode(A.self, from: data) }
  }
}

/// Why a log could not be replayed.
public enum AuditReplayError: Error, Sendable, CustomStringConvertible {
  /// The log does not verify (anything but a torn last line, which is left out).
  case notVerified(AuditLogError)
  /// An entry names an action type that was not registered, or records no payload for it.
  case unknownAction(line: Int, action: String)
  /// An entry's payload does not decode as its action type.
  case undecodable(line: Int, action: String, reason: String)
  /// The files start after the log's first entry (at `firstSequence`) and hold no snapshot:
  /// pass the earlier files too, oldest first.
  case startsMidLog(firstSequence: Int)
  /// An action the log records as applied failed when dispatched again: the store's reducers
  /// or middleware differ from the ones that wrote the log.
  case dispatchFailed(line: Int, error: DispatchError)
  /// Reading a journal from a ``JournalSource`` failed, or it does not verify. (Errors of a
  /// replay from a source name the entry's `seq` as its `line`.)
  case journal(JournalError)

  /// What went wrong, and on which line.
  public var description: String {
    switch self {
    case .notVerified(let error): "the log does not verify: \(error)"
    case .unknownAction(let line, let action):
      "line \(line): \(action) is not a registered replayable action, or has no payload"
    case .undecodable(let line, let action, let reason):
      "line \(line): the payload does not decode as \(action): \(reason)"
    case .startsMidLog(let sequence):
      "the log starts at entry \(sequence) with no snapshot: replay its earlier files too"
    case .dispatchFailed(let line, let error):
      "line \(line): the action failed when replayed: \(error)"
    case .journal(let error): "the journal cannot be replayed: \(error)"
    }
  }
}

extension AuditLog {
  /// Rebuilds a store's state from an audit log: dispatches, in order, every action the log
  /// records as applied.
  ///
  /// The log is verified first, and refused if it does not verify; a torn last line (a write
  /// cut short by a crash, whose dispatch never returned) is left out. Failed actions are
  /// skipped: they changed nothing. A `Batch` is dispatched as a batch, and a `ReplaceState`
  /// as itself when `State` is `Decodable`. A log that starts with a snapshot (a file started by
  /// ``RotateAuditLog``) is replayed from it: the snapshot is dispatched as a `ReplaceState`.
  ///
  /// Replay into a store with the same mutators as the one that wrote the log, and with no
  /// middleware that could change or drop the actions (an ``AuditTrail`` would record them a
  /// second time): add the middleware once the state is rebuilt.
  ///
  /// ```swift
  /// let store = try Store(initialState: Ledger(), mutators: [balances])
  /// try AuditLog.replay(
  ///   contentsOf: URL(fileURLWithPath: path), into: store,
  ///   actions: ReplayableActions([LedgerAction.self]))
  /// try store.use(AuditTrail<Ledger>(path: path))
  /// ```
  ///
  /// - Parameters:
  ///   - url: The log file.
  ///   - store: The store to dispatch into, usually a new one at its initial state.
  ///   - actions: The action types the log holds.
  ///   - lastSequence: Stop after the entry with this `seq`; nil for the whole log.
  /// - Returns: The number of actions dispatched, the snapshot counting as one.
  /// - Throws: An ``AuditReplayError``; the actions before the bad entry have been dispatched.
  @discardableResult
  public static func replay<State: Sendable>(
    contentsOf url: URL, into store: Store<State>, actions: ReplayableActions,
    through lastSequence: Int? = nil
  ) throws(AuditReplayError) -> Int {
    try replay(contentsOf: [url], into: store, actions: actions, through: lastSequence)
  }

  /// Rebuilds a store's state from the files of a rotated log, oldest first: verifies them as
  /// one log, then replays from the newest snapshot (at or before `lastSequence`), or from the
  /// first entry when there is none.
  ///
  /// - Parameters:
  ///   - urls: The log's files, oldest first (the archives, then the current file).
  ///   - store: The store to dispatch into, usually a new one at its initial state.
  ///   - actions: The action types the log holds.
  ///   - lastSequence: Stop after the entry with this `seq`; nil for the whole log.
  /// - Returns: The number of actions dispatched, the snapshot counting as one.
  /// - Throws: An ``AuditReplayError``: ``AuditReplayError/startsMidLog(firstSequence:)`` when
  ///   the files neither start at the log's first entry nor hold a snapshot to start from.
  @discardableResult
  public static func replay<State: Sendable>(
    contentsOf urls: [URL], into store: Store<State>, actions: ReplayableActions,
    through lastSequence: Int? = nil
  ) throws(AuditReplayError) -> Int {
    do {
      _ = try verify(contentsOf: urls)
    } catch  where error.isTornLastLine {
      // Left out below: only the last file may end in one.
    } catch {
      throw .notVerified(error)
    }
    var entries: [(number: Int, entry: JSONValue)] = []
    for url in urls {
      let bytes: [UInt8]
      do {
        bytes = Array(try Data(contentsOf: url))
      } catch {
        throw .notVerified(.unreadable(path: url.path, reason: error.localizedDescription))
      }
      let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        .dropLast()
      for (index, line) in lines.enumerated() {
        // Verified: every complete line is an object with an integer `seq`.
        let entry = (try? JSONParser.parse(line)) ?? .null
        let sequence = entry["seq"]?.intValue ?? 0
        if let lastSequence, sequence > lastSequence { break }
        entries.append((index + 1, entry))
      }
    }
    let start = entries.lastIndex { $0.entry["snapshot"] != nil } ?? 0
    if let first = entries.first, entries[start].entry["snapshot"] == nil,
      let sequence = first.entry["seq"]?.intValue, sequence > 1
    {
      throw .startsMidLog(firstSequence: sequence)
    }
    var replayed = 0
    for index in start..<entries.count {
      let (number, entry) = entries[index]
      guard
        let action = try action(
          of: entry, line: number, actions: actions, State.self, snapshots: index == start)
      else { continue }
      if case .failure(let error) = store.dispatch(action) {
        throw .dispatchFailed(line: number, error: error)
      }
      replayed += 1
    }
    return replayed
  }

  /// The action a replay dispatches for a parsed entry: the entry's action, or a snapshot's
  /// `ReplaceState`; nil for an entry a replay skips (a failed action, a checkpoint, a snapshot
  /// when `snapshots` is false).
  static func action<State: Sendable>(
    of entry: JSONValue, line number: Int, actions: ReplayableActions, _ state: State.Type,
    snapshots: Bool
  ) throws(AuditReplayError) -> (any Action)? {
    if let snapshot = entry["snapshot"] {
      return snapshots ? try decodeSnapshot(snapshot, line: number, State.self) : nil
    }
    guard entry["outcome"]?.stringValue == "ok", let name = entry["action"]?.stringValue else {
      return nil
    }
    return try decode(name, entry["payload"], line: number, actions, State.self)
  }

  private static func decodeSnapshot<State: Sendable>(
    _ snapshot: JSONValue, line: Int, _ state: State.Type
  ) throws(AuditReplayError) -> any Action {
    let name = "snapshot"
    guard let decodable = State.self as? any Decodable.Type else {
      throw .undecodable(line: line, action: name, reason: "\(State.self) is not Decodable")
    }
    return try decodeState(decodable, from: snapshot, name: name, line: line, State.self)
  }

  private static func decode<State: Sendable>(
    _ name: String, _ payload: JSONValue?, line: Int, _ actions: ReplayableActions,
    _ state: State.Type
  ) throws(AuditReplayError) -> any Action {
    if name == "Batch" {
      guard case .array(let items)? = payload else {
        throw .unknownAction(line: line, action: name)
      }
      var batch: [any Action] = []
      for item in items {
        guard let itemName = item["action"]?.stringValue else {
          throw .unknownAction(line: line, action: name)
        }
        batch.append(try decode(itemName, item["payload"], line: line, actions, State.self))
      }
      return Batch(batch)
    }
    if name == String(describing: ReplaceState<State>.self),
      let decodable = State.self as? any Decodable.Type
    {
      guard let state = payload?["state"] else { throw .unknownAction(line: line, action: name) }
      return try decodeState(decodable, from: state, name: name, line: line, State.self)
    }
    guard let decoder = actions.decoders[name], let payload else {
      throw .unknownAction(line: line, action: name)
    }
    do {
      return try decoder(Data(payload.serialized.utf8))
    } catch {
      throw .undecodable(line: line, action: name, reason: "\(error)")
    }
  }

  private static func decodeState<State: Sendable>(
    _ type: any Decodable.Type, from value: JSONValue, name: String, line: Int,
    _ state: State.Type
  ) throws(AuditReplayError) -> any Action {
    func open<D: Decodable>(_ type: D.Type) throws -> State? {
      try JSONDecoder().decode(D.self, from: Data(value.serialized.utf8)) as? State
    }
    let decoded: State?
    do {
      decoded = try open(type)
    } catch {
      throw .undecodable(line: line, action: name, reason: "\(error)")
    }
    guard let decoded else { throw .unknownAction(line: line, action: name) }
    return ReplaceState(decoded)
  }
}

extension AuditLog {
  /// Rebuilds a store's state from a journal in any source (files, bytes in memory, a database
  /// table): reads it from the newest snapshot (or another start), verifying the chain as it
  /// goes, and dispatches every action it records as applied.
  ///
  /// Unlike the file replay, it does not verify the lines before its start: its cost is the
  /// entries after the snapshot, however long the journal. (Verify the whole journal with
  /// ``verify(contentsOf:start:key:)`` when that is what you need.) The first line read must
  /// be a snapshot, dispatched as a `ReplaceState`, or the journal's first line; a later
  /// snapshot is skipped, as are failed actions and checkpoints. Errors name the entry's `seq`
  /// as their `line`.
  ///
  /// ```swift
  /// let store = try Store(initialState: Ledger(), mutators: [balances])
  /// let position = try await AuditLog.replay(
  ///   from: FileJournal(path: path), into: store,
  ///   actions: ReplayableActions([LedgerAction.self]))
  /// print("rebuilt through entry \(position.sequence)")
  /// ```
  ///
  /// - Parameters:
  ///   - source: The journal.
  ///   - store: The store to dispatch into, usually a new one at its initial state; with
  ///     ``JournalStart/after(_:)``, one whose state is the journal's through that position.
  ///   - actions: The action types the journal holds.
  ///   - start: Where to start: the newest snapshot (at or before `lastSequence`) by default.
  ///   - lastSequence: Stop after the entry with this `seq`; nil for everything the source
  ///     holds now.
  ///   - key: The checkpoints' key, to check them.
  /// - Returns: The position of the last line read: where a reader or a writer that continues
  ///   the journal starts (``JournalStart/after(_:)``, ``JournalChain/init(after:checkpoints:)``).
  /// - Throws: ``AuditReplayError/journal(_:)`` when the journal cannot be read or does not
  ///   verify; ``AuditReplayError/startsMidLog(firstSequence:)`` when its first line is neither
  ///   a snapshot nor the journal's first; the other cases as the file replay throws them. The
  ///   actions before the bad entry have been dispatched.
  @discardableResult
  public static func replay<State: Sendable, Source: JournalSource>(
    from source: Source, into store: Store<State>, actions: ReplayableActions,
    start: JournalStart = .newestSnapshot, through lastSequence: Int? = nil,
    key: AuditCheckpoints.Key? = nil
  ) async throws(AuditReplayError) -> JournalPosition {
    var start = start
    if start == .newestSnapshot, let lastSequence {
      do {
        start =
          try await source.newestSnapshot(through: lastSequence).map { .sequence($0) }
          ?? .beginning
      } catch {
        throw .journal(.sourceFailed(reason: "\(error)"))
      }
    }
    var reader = JournalReader(source, from: start, key: key)
    var first = true
    var position: JournalPosition? = nil
    if case .after(let known) = start { position = known }
    while true {
      let entry: JournalEntry
      do {
        guard let next = try await reader.next() else { break }
        entry = next
      } catch {
        throw .journal(error)
      }
      if let lastSequence, entry.sequence > lastSequence { break }
      var isStart = false
      if first {
        first = false
        if case .after = start {
        } else if entry.kind == .snapshot {
          isStart = true
        } else if entry.sequence > 1 {
          throw .startsMidLog(firstSequence: entry.sequence)
        }
      }
      position = entry.position
      guard
        let action = try action(
          of: entry.value, line: entry.sequence, actions: actions, State.self,
          snapshots: isStart)
      else { continue }
      if case .failure(let error) = store.dispatch(action) {
        throw .dispatchFailed(line: entry.sequence, error: error)
      }
    }
    return position ?? .start
  }
}
