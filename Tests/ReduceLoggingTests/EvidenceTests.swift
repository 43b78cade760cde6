import Foundation
import Reduce
import Testing

@testable import ReduceLogging

/// What the chain proves against someone who can write the log: HMAC-SHA-256, keyed
/// checkpoints, logs that start mid-chain, and unfinished lines that no crash leaves.
@Suite struct EvidenceTests {
  struct Vector: Sendable, CustomTestStringConvertible {
    let name: String
    let key: [UInt8]
    let message: [UInt8]
    let code: String
    var testDescription: String { name }
  }

  static let block: [UInt8] = .init(repeating: 0xaa, count: 131)

  // RFC 4231, section 4: HMAC-SHA-256 test cases 1 to 4, 6 and 7 (case 5 truncates: below).
  static let vectors = [
    Vector(
      name: "case 1", key: .init(repeating: 0x0b, count: 20), message: Array("Hi There".utf8),
      code: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
    Vector(
      name: "case 2: a key shorter than the output", key: Array("Jefe".utf8),
      message: Array("what do ya want for nothing?".utf8),
      code: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
    Vector(
      name: "case 3", key: .init(repeating: 0xaa, count: 20),
      message: .init(repeating: 0xdd, count: 50),
      code: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
    Vector(
      name: "case 4", key: Array(1...25), message: .init(repeating: 0xcd, count: 50),
      code: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
    Vector(
      name: "case 6: a key longer than a block", key: block,
      message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
      code: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    Vector(
      name: "case 7: a key and a message longer than a block", key: block,
      message: Array(
        ("This is a test using a larger than block-size key and a larger than block-size data. "
          + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
      code: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
  ]

  @Test("HMAC-SHA-256 matches the RFC 4231 test case", arguments: vectors)
  func rfc4231(_ vector: Vector) {
    #expect(HMAC.hex(key: vector.key, message: vector.message) == vector.code)
  }

  @Test("HMAC-SHA-256 matches RFC 4231 test case 5, truncated to 128 bits")
  func rfc4231Truncated() {
    let code = HMAC.hex(
      key: .init(repeating: 0x0c, count: 20), message: Array("Test With Truncation".utf8))
    #expect(code.prefix(32) == "a3b6167473100ee06e0c796c2955552b")
  }

  @Test("a key file's final newline is not part of the key; an empty key is refused")
  func keyFile() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    try Data("secret\n".utf8).write(to: URL(fileURLWithPath: path))
    #expect(
      try AuditCheckpoints.Key(contentsOfFile: path) == AuditCheckpoints.Key(Array("secret".utf8)))
    #expect(throws: AuditCheckpointError.emptyKey) { try AuditCheckpoints.Key([]) }
    #expect(throws: AuditCheckpointError.invalidInterval(0)) {
      try AuditCheckpoints(key: AuditCheckpoints.Key([1]), every: 0)
    }
    #expect(throws: AuditCheckpointError.self) {
      try AuditCheckpoints.Key(contentsOfFile: path + ".missing")
    }
    #expect("\(try AuditCheckpoints.Key([1, 2]))" == "<key>")
  }

  // MARK: Keyed checkpoints

  static let key = Array("the writer's secret".utf8)

  /// Writes `count` deposits through a trail with checkpoints every `every` entries.
  func writeKeyedLog(count: Int, every: Int, path: String) throws {
    let checkpoints = try AuditCheckpoints(key: AuditCheckpoints.Key(Self.key), every: every)
    let store = try makeVault(
      AuditTrail(path: path, durability: .buffered, checkpoints: checkpoints))
    for amount in 1...count {
      store.dispatch(VaultAction.deposited(account: "ada", amount: amount))
    }
  }

  @Test("a keyed log verifies with its key, starts with a checkpoint and has one every N entries")
  func keyedLogVerifies() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    try writeKeyedLog(count: 7, every: 3, path: path)
    let lines = try readLines(path)
    // A checkpoint first, then one after every 3 entries: C e e e C e e e C e.
    let kinds = lines.map { JournalLine(sequence: 0, bytes: Array($0.utf8)).kind }
    #expect(kinds.filter { $0 == .checkpoint }.count == 3)
    #expect(kinds.first == .checkpoint)
    let result = try AuditLog.verify(
      contentsOf: [URL(fileURLWithPath: path)], start: .genesis, key: AuditCheckpoints.Key(Self.key)
    )
    #expect(result.entries == 10)
    #expect(result.checkpoints == 3)
    #expect(result.entriesAfterLastCheckpoint == 1)
    // Without the key the checkpoints are links like any other.
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == 10)
    // A replay skips them.
    let store = try Store(initialState: Vault(), mutators: [vaultBalances, vaultLog])
    try AuditLog.replay(
      contentsOf: URL(fileURLWithPath: path), into: store,
      actions: ReplayableActions([VaultAction.self]))
    #expect(store.state.balances["ada"] == 28)
  }

  @Test("reopening a keyed log continues it with a checkpoint first")
  func keyedLogReopened() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    try writeKeyedLog(count: 2, every: 5, path: path)
    try writeKeyedLog(count: 2, every: 5, path: path)
    let kinds = try readLines(path).map { JournalLine(sequence: 0, bytes: Array($0.utf8)).kind }
    #expect(kinds == [.checkpoint, .entry, .entry, .checkpoint, .entry, .entry])
    let result = try AuditLog.verify(
      contentsOf: [URL(fileURLWithPath: path)], start: .genesis, key: AuditCheckpoints.Key(Self.key)
    )
    #expect(result.checkpoints == 2)
  }

  @Test("another key does not verify the checkpoints")
  func wrongKey() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    try writeKeyedLog(count: 4, every: 2, path: path)
    let wrong = AuditLogError.badCheckpoint(line: 1, reason: CheckpointReason.wrongCode)
    #expect(throws: AuditLogError.inFile(path: path, error: wrong)) {
      try AuditLog.verify(
        contentsOf: [URL(fileURLWithPath: path)], start: .genesis,
        key: AuditCheckpoints.Key(Array("guess".utf8)))
    }
  }

  enum CheckpointReason {
    static let wrongCode =
      "its code is not the key's: the chain before it was rewritten, or the key is not the writer's"
  }

  /// Rewrites a chain from `line` on (0-based) the way someone without the key can: edits the
  /// entry, recomputes every later `prev`, and keeps or drops the checkpoints after it.
  func rewrite(_ lines: [String], from line: Int, droppingCheckpoints: Bool) throws -> [String] {
    var result = Array(lines[..<line])
    var previous =
      line == 0 ? AuditLog.genesisHash : AuditLog.hash(ofLine: Array(lines[line - 1].utf8))
    var sequence = line + 1
    for (index, text) in lines[line...].enumerated() {
      var text = text
      if droppingCheckpoints, text.contains(#""checkpoint":"#) { continue }
      if index == 0 { text = text.replacingOccurrences(of: #""amount":"#, with: #""amount":1000"#) }
      let prevStart = try #require(text.range(of: #""prev":""#)).upperBound
      let prevEnd = text.index(prevStart, offsetBy: 64)
      text.replaceSubrange(prevStart..<prevEnd, with: previous)
      let seqStart = try #require(text.range(of: #"{"seq":"#)).upperBound
      let seqEnd = try #require(text.range(of: #","prev""#)).lowerBound
      text.replaceSubrange(seqStart..<seqEnd, with: String(sequence))
      result.append(text)
      previous = AuditLog.hash(ofLine: Array(text.utf8))
      sequence += 1
    }
    return result
  }

  @Test("a chain rewritten without the key verifies without it, and fails with it")
  func rewrittenChain() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    try writeKeyedLog(count: 9, every: 3, path: path)
    let lines = try readLines(path)
    let key = try AuditCheckpoints.Key(Self.key)
    let url = URL(fileURLWithPath: path)
    // Keeping the checkpoints: the first one after the change no longer verifies.
    try writeLines(try rewrite(lines, from: 2, droppingCheckpoints: false), to: path)
    #expect(try AuditLog.verify(contentsOf: url) == lines.count)
    let badCode = AuditLogError.badCheckpoint(line: 5, reason: CheckpointReason.wrongCode)
    #expect(throws: AuditLogError.inFile(path: path, error: badCode)) {
      try AuditLog.verify(contentsOf: [url], start: .genesis, key: key)
    }
    // Dropping the checkpoints after it: too many entries without one.
    try writeLines(try rewrite(lines, from: 2, droppingCheckpoints: true), to: path)
    let missing = AuditLogError.missingCheckpoint(line: 5, every: 3)
    #expect(throws: AuditLogError.inFile(path: path, error: missing)) {
      try AuditLog.verify(contentsOf: [url], start: .genesis, key: key)
    }
    // Rewritten whole, without any checkpoint.
    try writeLines(try rewrite(lines, from: 0, droppingCheckpoints: true), to: path)
    #expect(throws: AuditLogError.noCheckpoint(entries: 9)) {
      try AuditLog.verify(contentsOf: [url], start: .genesis, key: key)
    }
  }

  @Test("reduce-audit verify --key-file checks the checkpoints and says what is not vouched for")
  func commandWithKey() throws {
    let path = temporaryLogPath()
    let keyPath = path + ".key"
    defer {
      removeLog(path)
      removeLog(keyPath)
    }
    try writeKeyedLog(count: 4, every: 3, path: path)
    try Data(Self.key + [UInt8(ascii: "\n")]).write(to: URL(fileURLWithPath: keyPath))
    let intact = try AuditCommand.run(["verify", "--key-file", keyPath, path])
    #expect(intact.status == 0)
    #expect(
      intact.standardOutput
        == "\(path): 6 entries, chain intact\nkeyed checkpoints: 2 verified with the key; "
        + "the last 1 entry follows the last checkpoint: the key does not vouch for it yet\n")
    let show = try AuditCommand.run(["show", path])
    #expect(show.status == 0)
    #expect(show.standardOutput.hasPrefix("#1 "))
    #expect(
      show.standardOutput.contains(" checkpoint\n  a keyed checkpoint of the chain before it"))
    try writeLines(try rewrite(try readLines(path), from: 1, droppingCheckpoints: false), to: path)
    let tampered = try AuditCommand.run(["verify", path, "--key-file", keyPath])
    #expect(tampered.status == 1)
    #expect(
      tampered.standardError.hasPrefix("\(path): line 5: the keyed checkpoint does not verify"))
    let missing = try AuditCommand.run(["verify", "--key-file", keyPath + ".missing", path])
    #expect(missing.status == 66)
  }

  // MARK: Logs that start mid-chain

  @Test("a log whose first lines were cut is not intact unless its start is named")
  func firstLineCut() throws {
    let path = try writeChainedLog(count: 4)
    defer { removeLog(path) }
    let lines = try readLines(path)
    try writeLines(Array(lines.dropFirst()), to: path)
    let url = URL(fileURLWithPath: path)
    #expect(throws: AuditLogError.startsMidChain(path: path, firstSequence: 2)) {
      try AuditLog.verify(contentsOf: [url], start: .genesis)
    }
    #expect(try AuditLog.verify(contentsOf: [url]).continuesEarlierFile)
    #expect(try AuditLog.verify(contentsOf: [url], start: .sequence(2)).entries == 3)
    let hash = AuditLog.hash(ofLine: Array(lines[0].utf8))
    #expect(try AuditLog.verify(contentsOf: [url], start: .continuing(hash: hash)).entries == 3)
    #expect(throws: AuditLogError.self) {
      try AuditLog.verify(contentsOf: [url], start: .continuing(hash: AuditLog.genesisHash))
    }
    #expect(throws: AuditLogError.self) {
      try AuditLog.verify(contentsOf: [url], start: .sequence(1))
    }

    let refused = try AuditCommand.run(["verify", path])
    #expect(refused.status == 3)
    #expect(
      refused.standardError.hasPrefix(
        "\(path): line 1: the log starts at entry 2: the 1 entry before it is missing"))
    #expect(try AuditCommand.run(["verify", "--from-seq", "2", path]).status == 0)
    #expect(try AuditCommand.run(["verify", "--continues", hash, path]).status == 0)
    let wrong = try AuditCommand.run(["verify", "--from-seq", "1", path])
    #expect(wrong.status == 1)
    #expect(wrong.standardError.contains("the log starts at entry 2, not 1 as given"))
    let usage = try AuditCommand.run(["verify", "--from-seq", "two", path])
    #expect(usage.status == 64)
  }

  // MARK: Torn or tampered

  @Test("a complete last entry with no newline is torn; followed by a space, it is tampering")
  func completeEntryFollowedBySpace() throws {
    let path = try writeChainedLog(count: 2)
    defer { removeLog(path) }
    let lines = try readLines(path)
    try writeLines(lines, to: path, finalNewline: false)
    #expect(throws: AuditLogError.tornLastLine(line: 2)) {
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
    #expect(try AuditCommand.run(["verify", path]).status == 2)
    try writeLines([lines[0], lines[1] + " "], to: path, finalNewline: false)
    let result = Result { () throws(AuditLogError) -> Int in
      try AuditLog.verify(contentsOf: URL(fileURLWithPath: path))
    }
    guard case .failure(let error) = result else {
      Issue.record("a complete entry followed by a space verified")
      return
    }
    #expect(!error.isTornLastLine)
    #expect(error.line == 2)
    #expect(try AuditCommand.run(["verify", path]).status == 1)
  }

  @Test("an unfinished last line with white space no writer puts there is tampering")
  func unfinishedLineWithSpace() throws {
    let path = try writeChainedLog(count: 2)
    defer { removeLog(path) }
    let lines = try readLines(path)
    let cut = try #require(lines[1].range(of: #","payload""#)).lowerBound
    let prefix = String(lines[1][..<cut])
    // Cut short, as a crash does: torn.
    try writeLines([lines[0], prefix], to: path, finalNewline: false)
    #expect(try AuditCommand.run(["verify", path]).status == 2)
    // Cut short, with a space after a member: no crash adds that.
    try writeLines([lines[0], prefix + ", "], to: path, finalNewline: false)
    #expect(try AuditCommand.run(["verify", path]).status == 1)
    // A space inside a string is the writer's own.
    try writeLines([lines[0], prefix + #","note":"a b"#], to: path, finalNewline: false)
    #expect(try AuditCommand.run(["verify", path]).status == 2)
  }
}
