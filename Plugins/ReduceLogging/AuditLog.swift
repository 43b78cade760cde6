public import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Checks hash-chained audit logs written by a ``FileLogSink`` with `chained: true`.
///
/// Each line of such a log is one JSON entry. Its `seq` is its number in the log and its `prev`
/// is the SHA-256 (lowercase hex) of the previous line's exact bytes, without the newline; the
/// first entry's `prev` is ``genesisHash``. Editing, removing, inserting or reordering entries
/// therefore breaks the chain at that point.
///
/// A file whose first entry has a `seq` above 1 continues an earlier file (the log was rotated
/// by copy-and-truncate): its first `prev` is the hash of that file's last line. It verifies on
/// its own, and ``Verification/continuesEarlierFile`` says so; verifying the files in order
/// with ``verify(contentsOf:)-([URL])`` checks the links between them too.
///
/// ```swift
/// do {
///   let count = try AuditLog.verify(contentsOf: URL(fileURLWithPath: "audit.log"))
///   print("\(count) entries, chain intact")
/// } catch {
///   print(error)  // names the first bad line and why
/// }
/// ```
public enum AuditLog {
  /// The `prev` of a log's first entry: 64 zeros.
  public static let genesisHash = String(repeating: "0", count: 64)

  /// The SHA-256 of a line, as the next entry's `prev` records it.
  ///
  /// - Parameter line: The line's bytes, without its newline.
  /// - Returns: The digest in lowercase hexadecimal (64 characters).
  public static func hash(ofLine line: some Sequence<UInt8>) -> String {
    SHA256.hex(of: line)
  }

  /// Verifies the chain of a log file, reading it a piece at a time.
  ///
  /// Nothing is written: the file is only read. A file that continues an earlier one (its
  /// first `seq` is above 1) verifies from its first line on; ``verify(contentsOf:)-([URL])``
  /// tells it apart and checks the link to the earlier file.
  ///
  /// - Parameter url: The log file.
  /// - Returns: The number of entries, all intact.
  /// - Throws: An ``AuditLogError`` that names the first bad line and why; every entry before
  ///   that line is intact (``AuditLogError/intactEntries``).
  ///   ``AuditLogError/unreadable(path:reason:)`` when the file cannot be read.
  /// - Complexity: O(*n*) in the file's size; memory is bounded by the longest line.
  public static func verify(contentsOf url: URL) throws(AuditLogError) -> Int {
    try verifyFile(atPath: url.path).entries
  }

  /// Verifies log files in order as one log: each file's chain, and that each file's first
  /// entry continues the last entry of the file before it (empty files are skipped).
  ///
  /// Use it for the pieces of a log rotated by copy-and-truncate, oldest first; with one file,
  /// it is ``verify(contentsOf:)-(URL)`` with a summary. A log that starts after entry 1
  /// verifies (``Verification/continuesEarlierFile`` says so): to refuse one whose first
  /// entries are missing, use ``verify(contentsOf:start:key:)`` with ``ChainStart/genesis``.
  ///
  /// - Parameter urls: The files, oldest first.
  /// - Returns: What the files hold together, all intact.
  /// - Throws: ``AuditLogError/inFile(path:error:)`` with the first bad line of a file, or
  ///   ``AuditLogError/filesDoNotLink(path:previousFile:reason:)`` when a file does not
  ///   continue the one before it.
  /// - Complexity: O(*n*) in the files' total size.
  public static func verify(contentsOf urls: [URL]) throws(AuditLogError) -> Verification {
    try verify(contentsOf: urls, start: .anywhere)
  }

  /// Verifies log files in order as one log, that it starts where it must, and with a key,
  /// its keyed checkpoints.
  ///
  /// With ``ChainStart/genesis``, a log whose first entry is not number 1 is
  /// refused (``AuditLogError/startsMidChain(path:firstSequence:)``): it is missing its first
  /// entries, whether a rotation moved them to an earlier file or someone cut them. Give the
  /// earlier files too, or name where the log must start: ``ChainStart/sequence(_:)``,
  /// ``ChainStart/continuing(hash:)`` (the hash of the earlier file's last line, as recorded
  /// at rotation).
  ///
  /// With a key, every checkpoint's code must verify, at least one checkpoint must be there,
  /// and no more than a checkpoint's `every` entries may follow it without the next one
  /// (``AuditCheckpoints``). ``Verification/entriesAfterLastCheckpoint`` says how many at the
  /// end the key does not vouch for yet.
  ///
  /// - Parameters:
  ///   - urls: The files, oldest first.
  ///   - start: Where the log must start.
  ///   - key: The checkpoints' key; nil to check the chain alone.
  /// - Returns: What the files hold together, all intact.
  /// - Throws: An ``AuditLogError``: as ``verify(contentsOf:)-([URL])``, and
  ///   ``AuditLogError/startsMidChain(path:firstSequence:)``,
  ///   ``AuditLogError/unexpectedStart(path:reason:)``,
  ///   ``AuditLogError/badCheckpoint(line:reason:)``,
  ///   ``AuditLogError/missingCheckpoint(line:every:)`` or
  ///   ``AuditLogError/noCheckpoint(entries:)``.
  /// - Complexity: O(*n*) in the files' total size.
  public static func verify(
    contentsOf urls: [URL], start: ChainStart, key: AuditCheckpoints.Key? = nil
  ) throws(AuditLogError) -> Verification {
    var total: Verification?
    var previousPath = ""
    var firstPath = ""
    var tracker = key.map(CheckpointTracker.init)
    for (index, url) in urls.enumerated() {
      let file: Verification
      do throws(AuditLogError) {
        file = try verifyFile(atPath: url.path, tracker: &tracker)
      } catch  where error.isTornLastLine && index < urls.count - 1 {
        throw .inFile(
          path: url.path,
          error: .malformedEntry(
            line: error.line ?? 1,
            reason: "an incomplete last line in a file that a later file continues"))
      } catch {
        throw .inFile(path: url.path, error: error)
      }
      guard file.entries > 0 else { continue }
      guard let before = total else {
        total = file
        previousPath = url.path
        firstPath = url.path
        continue
      }
      guard file.firstSequence == before.lastSequence + 1 else {
        throw .filesDoNotLink(
          path: url.path, previousFile: previousPath,
          reason:
            "its first entry is number \(file.firstSequence) where \(before.lastSequence + 1) was expected: entries are missing between the files, or the files are out of order"
        )
      }
      guard file.firstPreviousHash == before.lastHash else {
        throw .filesDoNotLink(
          path: url.path, previousFile: previousPath,
          reason:
            "its first prev is not the hash of the last line of \(previousPath): one of the two was edited"
        )
      }
      total = Verification(
        entries: before.entries + file.entries, firstSequence: before.firstSequence,
        firstPreviousHash: before.firstPreviousHash, lastHash: file.lastHash)
      previousPath = url.path
    }
    var result = total ?? ChainVerifier().verification
    if result.entries > 0 { try checkStart(result, start, path: firstPath) }
    if let tracker {
      guard tracker.verified > 0 || result.entries == 0 else {
        throw .noCheckpoint(entries: result.entries)
      }
      result.checkpoints = tracker.verified
      result.entriesAfterLastCheckpoint = tracker.since
    }
    return result
  }

  /// Checks that the first file with entries starts where the caller said it must.
  private static func checkStart(_ file: Verification, _ start: ChainStart, path: String)
    throws(AuditLogError)
  {
    switch start {
    case .anywhere: return
    case .genesis:
      guard file.firstSequence == 1 else {
        throw .startsMidChain(path: path, firstSequence: file.firstSequence)
      }
    case .sequence(let sequence):
      guard file.firstSequence == sequence else {
        throw .unexpectedStart(
          path: path,
          reason:
            "the log starts at entry \(file.firstSequence), not \(sequence) as given: \(file.firstSequence > sequence ? "\(file.firstSequence - sequence) entries are missing before it" : "it holds \(sequence - file.firstSequence) entries before the start given")"
        )
      }
    case .continuing(let hash):
      guard file.firstPreviousHash == hash.lowercased() else {
        throw .unexpectedStart(
          path: path,
          reason:
            "its first entry (number \(file.firstSequence)) records prev \(file.firstPreviousHash), not \(hash) as given: it does not continue that line"
        )
      }
    }
  }

  /// Verifies the chain of a log held in memory.
  ///
  /// - Parameter bytes: The log's contents.
  /// - Returns: The number of entries, all intact.
  /// - Throws: An ``AuditLogError`` that names the first bad line and why.
  public static func verify(_ bytes: [UInt8]) throws(AuditLogError) -> Int {
    var verifier = ChainVerifier()
    var start = 0
    while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
      try verifier.check(bytes[start..<newline], terminated: true)
      start = newline + 1
    }
    if start < bytes.count { try verifier.check(bytes[start...], terminated: false) }
    return verifier.count
  }

  /// Whether a text is a lowercase hexadecimal SHA-256.
  static func isHash(_ text: String) -> Bool {
    text.utf8.count == 64
      && text.utf8.allSatisfy {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
          || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
      }
  }

  private static func verifyFile(atPath path: String) throws(AuditLogError) -> Verification {
    var tracker: CheckpointTracker?
    return try verifyFile(atPath: path, tracker: &tracker)
  }

  private static func verifyFile(atPath path: String, tracker: inout CheckpointTracker?)
    throws(AuditLogError) -> Verification
  {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw .unreadable(path: path, reason: readableError(errno)) }
    // Closing a file opened for reading cannot lose data; there is nothing to report.
    defer { POSIX.closeDescriptor(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else {
      throw .unreadable(path: path, reason: readableError(errno))
    }
    guard info.st_mode & S_IFMT != S_IFDIR else {
      throw .unreadable(path: path, reason: "it is a directory, not a log file")
    }
    var verifier = ChainVerifier(tracker: tracker)
    defer { tracker = verifier.tracker }
    var pending: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw .unreadable(path: path, reason: readableError(errno))
      }
      guard count > 0 else { break }
      pending.append(contentsOf: chunk[0..<count])
      var start = 0
      while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
        try verifier.check(pending[start..<newline], terminated: true)
        start = newline + 1
      }
      pending.removeFirst(start)
    }
    if !pending.isEmpty { try verifier.check(pending[...], terminated: false) }
    return verifier.verification
  }

  /// The system's text for an `errno`, starting in lowercase to follow a colon.
  private static func readableError(_ code: Int32) -> String {
    let text = String(cString: strerror(code))
    return text.prefix(1).lowercased() + text.dropFirst()
  }
}
