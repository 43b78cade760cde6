import Foundation
import Reduce
import ReduceLogging
import Testing

/// Reading a journal from any source: `JournalReader`, `JournalFollower`, `MemoryJournal`,
/// `FileJournal`, `AuditLog.replay(from:)` and `WriteAuditSnapshot`.
@Suite struct JournalTests {
  let actions = ReplayableActions([VaultAction.self])

  func deposit(_ store: Store<Vault>, _ amount: Int, to account: String = "ada") {
    store.dispatch(VaultAction.deposited(account: account, amount: amount))
  }

  func readAll<Source: JournalSource>(_ reader: inout JournalReader<Source>) async throws
    -> [JournalEntry]
  {
    var entries: [JournalEntry] = []
    while let entry = try await reader.next() { entries.append(entry) }
    return entries
  }

  /// Replays `journal` into a new vault store; returns that store and the position reached.
  func replayIntoNewVault<Source: JournalSource>(
    _ journal: Source, key: AuditCheckpoints.Key? = nil
  ) async throws -> (replica: Store<Vault>, position: JournalPosition) {
    let replica = try Store(initialState: Vault(), mutators: [vaultBalances, vaultLog])
    let position = try await AuditLog.replay(
      from: journal, into: replica, actions: actions, key: key)
    return (replica, position)
  }

  /// Reads `follower` until it has yielded `count` entries, and returns their sequence numbers.
  ///
  /// Call it with `async let`: the entries are written while it reads, and a test that runs
  /// out of time cancels it, so a follower that never yields fails the test instead of hanging.
  func firstSequences<Source: JournalSource>(
    _ count: Int, of follower: JournalFollower<Source>
  ) async throws -> [Int] {
    var sequences: [Int] = []
    for try await entry in follower {
      sequences.append(entry.sequence)
      if sequences.count == count { break }
    }
    return sequences
  }

  /// Runs `body` with a new log path and a vault store auditing to it, buffered; then removes
  /// the log and the files named `path + suffix` for each of `suffixes`.
  func withFileVault(
    alsoRemoving suffixes: [String] = [],
    _ body: (_ path: String, _ store: Store<Vault>) async throws -> Void
  ) async throws {
    let path = temporaryLogPath()
    defer {
      removeLog(path)
      for suffix in suffixes { removeLog(path + suffix) }
    }
    try await body(path, try makeVault(AuditTrail(path: path, durability: .buffered)))
  }

  @Test("a reader reads a memory journal written by a trail, verified, then goes on")
  func memoryJournal() async throws {
    let journal = MemoryJournal()
    let store = try makeVault(AuditTrail(sink: journal))
    deposit(store, 1)
    deposit(store, 2)
    var reader = JournalReader(journal, from: .beginning)
    let first = try await readAll(&reader)
    #expect(first.map(\.sequence) == [1, 2])
    #expect(first[1].line.bytes.count > 0)
    #expect(try first[1].decoded().payload == #"{"deposited":{"account":"ada","amount":2}}"#)
    deposit(store, 3)
    let second = try await readAll(&reader)
    #expect(second.map(\.sequence) == [3])
    #expect(reader.position == JournalPosition(of: journal.lines[2]))
    // The bytes verify as a log file does.
    #expect(try AuditLog.verify(journal.bytes) == 3)
  }

  @Test("a snapshot written without rotating is where a replay starts")
  func snapshotWithoutRotating() async throws {
    let journal = MemoryJournal()
    let store = try makeVault(AuditTrail(sink: journal))
    for amount in 1...5 { deposit(store, amount) }
    _ = try store.dispatch(WriteAuditSnapshot()).get()
    deposit(store, 10, to: "bob")
    #expect(
      journal.lines.map(\.kind) == [.entry, .entry, .entry, .entry, .entry, .snapshot, .entry])
    #expect(journal.newestSnapshot(through: nil) == 6)
    #expect(journal.newestSnapshot(through: 5) == nil)

    var reader = JournalReader(journal)
    #expect(try await readAll(&reader).map(\.sequence) == [6, 7])

    let (replica, position) = try await replayIntoNewVault(journal)
    #expect(position.sequence == 7)
    #expect(replica.state == store.state)
    // Through an entry before the snapshot: from the beginning.
    let earlier = try Store(initialState: Vault(), mutators: [vaultBalances, vaultLog])
    try await AuditLog.replay(from: journal, into: earlier, actions: actions, through: 3)
    #expect(earlier.state.balances == ["ada": 6])
    // A snapshot of a state that is not Encodable fails the dispatch; the log goes on.
    let counter = try makeCounterStoreWithTrail(MemoryJournal())
    guard
      case .failure(.middlewareFailed(_, _, let underlying)) = counter.dispatch(
        WriteAuditSnapshot())
    else {
      Issue.record("a snapshot of a state that is not Encodable was written")
      return
    }
    #expect(underlying as? AuditTrailError == .stateNotEncodable(type: "CounterState"))
  }

  func makeCounterStoreWithTrail(_ journal: MemoryJournal) throws -> Store<CounterState> {
    try Store(
      initialState: CounterState(), mutators: [counterMutator],
      middleware: [AuditTrail<CounterState>(sink: journal)])
  }

  @Test(
    "a follower yields entries as they are written, and ends when cancelled",
    .timeLimit(.minutes(1)))
  func follower() async throws {
    let journal = MemoryJournal()
    let store = try makeVault(AuditTrail(sink: journal))
    deposit(store, 1)
    let follower = JournalFollower(journal, from: .beginning)
    async let sequences = firstSequences(3, of: follower)
    deposit(store, 2)
    deposit(store, 3)
    #expect(try await sequences == [1, 2, 3])

    let waiting = Task {
      var count = 0
      for try await _ in JournalFollower(
        journal, from: .after(journal.lines.last.map(JournalPosition.init(of:)) ?? .start))
      {
        count += 1
      }
      return count
    }
    waiting.cancel()
    #expect(try await waiting.value == 0)
  }

  @Test("a reader refuses an edited line, a gap, and a start whose hash does not match")
  func tampering() async throws {
    let source = MemoryJournal()
    let store = try makeVault(AuditTrail(sink: source))
    for amount in 1...4 { deposit(store, amount) }
    let lines = source.lines

    let edited = MemoryJournal()
    try edited.append(lines[0])
    var text = String(decoding: lines[1].bytes, as: UTF8.self)
    text = text.replacingOccurrences(of: #""amount":2"#, with: #""amount":200"#)
    try edited.append(JournalLine(sequence: 2, bytes: Array(text.utf8)))
    try edited.append(lines[2])
    var reader = JournalReader(edited, from: .beginning)
    await #expect(
      throws: JournalError.brokenChain(
        sequence: 3, reason: "its prev is not the hash of entry 2: one of the two was edited")
    ) {
      _ = try await readAll(&reader)
    }

    let gapped = MemoryJournal()
    try gapped.append(lines[0])
    try gapped.append(lines[2])
    var gapReader = JournalReader(gapped, from: .beginning)
    await #expect(throws: JournalError.gap(expected: 2, found: 3)) {
      _ = try await readAll(&gapReader)
    }

    var anchored = JournalReader(
      source, from: .after(JournalPosition(sequence: 1, hash: AuditLog.genesisHash)))
    await #expect(throws: JournalError.self) { _ = try await readAll(&anchored) }
    var trusting = JournalReader(source, from: .sequence(3))
    #expect(try await readAll(&trusting).map(\.sequence) == [3, 4])
  }

  @Test("keyed checkpoints made by a JournalChain verify with the key, and only with it")
  func chainCheckpoints() async throws {
    let key = try AuditCheckpoints.Key(Array("k".utf8))
    let journal = MemoryJournal(checkpoints: try AuditCheckpoints(key: key, every: 2))
    let store = try makeVault(AuditTrail(sink: journal))
    for amount in 1...3 { deposit(store, amount) }
    #expect(journal.lines.map(\.kind) == [.checkpoint, .entry, .entry, .checkpoint, .entry])
    var reader = JournalReader(journal, from: .beginning, key: key)
    #expect(try await readAll(&reader).count == 5)
    var wrong = JournalReader(journal, from: .beginning, key: try AuditCheckpoints.Key([0]))
    await #expect(throws: JournalError.self) { _ = try await readAll(&wrong) }
    let (replica, _) = try await replayIntoNewVault(journal, key: key)
    #expect(replica.state == store.state)
  }

  // MARK: Files

  @Test("a file journal reads from a seq, from the newest snapshot, and across a rotation")
  func fileAcrossRotation() async throws {
    try await withFileVault(alsoRemoving: [".000000000003"]) { path, store in
      for amount in 1...3 { deposit(store, amount) }
      let journal = FileJournal(path: path)
      var follower = JournalReader(journal, from: .beginning)
      #expect(try await readAll(&follower).map(\.sequence) == [1, 2, 3])
      _ = try store.dispatch(RotateAuditLog()).get()
      deposit(store, 4)
      _ = try store.dispatch(WriteAuditSnapshot()).get()
      deposit(store, 5)
      #expect(try await readAll(&follower).map(\.sequence) == [4, 5, 6, 7])
      #expect(try journal.lastSequence() == 7)
      #expect(try journal.newestSnapshot(through: nil) == 6)
      #expect(try journal.newestSnapshot(through: 5) == 4)
      var fromTwo = JournalReader(journal, from: .sequence(2))
      #expect(try await readAll(&fromTwo).map(\.sequence) == [2, 3, 4, 5, 6, 7])
      let (replica, position) = try await replayIntoNewVault(journal)
      #expect(position.sequence == 7)
      #expect(replica.state == store.state)
    }
  }

  @Test("a file journal goes on across a copy-and-truncate, reading the unread lines from the copy")
  func fileAcrossCopyAndTruncate() async throws {
    try await withFileVault(alsoRemoving: [".1"]) { path, store in
      let copy = path + ".1"
      for amount in 1...2 { deposit(store, amount) }
      var reader = JournalReader(FileJournal(path: path), from: .beginning)
      #expect(try await readAll(&reader).map(\.sequence) == [1, 2])
      deposit(store, 3)  // Not read before the rotation: it goes into the copy.
      try FileManager.default.copyItem(atPath: path, toPath: copy)
      try FileHandle(forWritingTo: URL(fileURLWithPath: path)).truncate(atOffset: 0)
      deposit(store, 4)
      deposit(store, 5)
      let entries = try await readAll(&reader)
      #expect(entries.map(\.sequence) == [3, 4, 5])
    }
  }

  @Test("a file journal leaves out a line being written", .timeLimit(.minutes(1)))
  func fileIncompleteLine() async throws {
    try await withFileVault { path, store in
      deposit(store, 1)
      deposit(store, 2)
      let lines = try readLines(path)
      try writeLines([lines[0], String(lines[1].prefix(50))], to: path, finalNewline: false)
      let journal = FileJournal(path: path)
      var reader = JournalReader(journal, from: .beginning)
      #expect(try await readAll(&reader).map(\.sequence) == [1])
      #expect(try journal.lastSequence() == 1)
      try writeLines(lines, to: path)
      #expect(try await readAll(&reader).map(\.sequence) == [2])
    }
  }

  @Test("a file follower sees entries written after it started", .timeLimit(.minutes(1)))
  func fileFollower() async throws {
    try await withFileVault { path, store in
      let follower = JournalFollower(FileJournal(path: path), from: .beginning)
      async let first = firstSequences(3, of: follower)
      for amount in 1...3 { deposit(store, amount) }
      let sequences = try await first
      #expect(sequences == [1, 2, 3])
    }
  }
}
