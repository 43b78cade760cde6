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
  /// it is ``verify(contentsOf:)-(URL)`` with a summary.
  ///
  /// - Parameter urls: The files, oldest first.
  /// - Returns: What the files hold together, all intact.
  /// - Throws: ``AuditLogError/inFile(path:error:)`` with the first bad line of a file, or
  ///   ``AuditLogError/filesDoNotLink(path:previousFile:reason:)`` when a file does not
  ///   continue the one before it.
  /// - Complexity: O(*n*) in the files' total size.
  public static func verify(contentsOf urls: [URL]) throws(AuditLogError) -> Verification {
    var total: Verification?
    var previousPath = ""
    for (index, url) in urls.enumerated() {
      let file: Verification
      do throws(AuditLogError) {
        file = try verifyFile(atPath: url.path)
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
    return total ?? ChainVerifier().verification
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
    var verifier = ChainVerifier()
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
