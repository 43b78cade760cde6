import Foundation

/// Keyed checkpoints in a chained log: every so many entries, the writer adds a line that
/// authenticates the chain so far with HMAC-SHA-256 under a key it holds.
///
/// The hash chain alone proves nothing against someone who can write the file: they can
/// rewrite it from any entry on and recompute every hash. A checkpoint's code covers the hash
/// of the line before it, which covers the whole chain before it; without the key, no one can
/// make a checkpoint that verifies. Verified with the key
/// (``AuditLog/verify(contentsOf:start:key:)``, `reduce-audit verify --key-file F`), a
/// rewritten chain fails at the first checkpoint after the change, or for lack of one: the
/// verifier requires a checkpoint at least every ``every`` entries, and says how many entries
/// at the end follow the last checkpoint (those the key does not vouch for yet).
///
/// ```swift
/// let checkpoints = try AuditCheckpoints(key: AuditCheckpoints.Key(contentsOfFile: keyPath))
/// let audit = AuditTrail<Ledger>(path: "ledger.log", checkpoints: checkpoints)
/// ```
///
/// A checkpoint line continues the chain like any entry:
/// `{"seq":8,"prev":"…","ts":"…","checkpoint":{"every":1000,"mac":"…"}}`. Its code is the
/// HMAC-SHA-256 of `reduce-audit checkpoint`, the `seq`, the `prev` and `every`, one per line.
/// A writer with checkpoints writes one when it opens a log (unless its last line is one),
/// then after every ``every`` entries.
public struct AuditCheckpoints: Sendable {
  /// The secret that makes and checks the checkpoints' codes.
  ///
  /// Its bytes are never printed: its `description` is `<key>`.
  public struct Key: Sendable, Hashable, CustomStringConvertible {
    let bytes: [UInt8]

    /// A key of the given bytes.
    ///
    /// - Parameter bytes: The key, at least 1 byte; 32 random bytes are a good key.
    /// - Throws: ``AuditCheckpointError/emptyKey`` when there are none.
    public init(_ bytes: some Sequence<UInt8>) throws(AuditCheckpointError) {
      let bytes = Array(bytes)
      guard !bytes.isEmpty else { throw .emptyKey }
      self.bytes = bytes
    }

    /// The key in a file: its bytes, without a final newline (`\n` or `\r\n`).
    ///
    /// - Parameter path: The key file.
    /// - Throws: ``AuditCheckpointError/unreadableKey(path:reason:)`` when the file cannot be
    ///   read; ``AuditCheckpointError/emptyKey`` when it is empty.
    public init(contentsOfFile path: String) throws(AuditCheckpointError) {
      guard let data = FileManager.default.contents(atPath: path) else {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        throw .unreadableKey(
          path: path,
          reason: !exists
            ? "no such file" : isDirectory.boolValue ? "it is a directory" : "permission denied")
      }
      var bytes = Array(data)
      if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
      if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
      try self.init(bytes)
    }

    /// `<key>`: a key is never printed.
    public var description: String { "<key>" }

    /// The code of a checkpoint at `sequence` whose `prev` is `previous`.
    func code(sequence: Int, previous: String, every: Int) -> String {
      HMAC.hex(
        key: bytes,
        message: Array("reduce-audit checkpoint\n\(sequence)\n\(previous)\n\(every)".utf8))
    }

    /// Whether `code` is the code of that checkpoint.
    func verifies(_ code: String, sequence: Int, previous: String, every: Int) -> Bool {
      HMAC.constantTimeEqual(
        Array(code.utf8),
        Array(self.code(sequence: sequence, previous: previous, every: every).utf8))
    }
  }

  /// The key.
  public let key: Key
  /// The most entries between two checkpoints.
  public let every: Int

  /// Creates the option.
  ///
  /// - Parameters:
  ///   - key: The key the writer holds.
  ///   - every: The most entries between two checkpoints, 1 or more: the most a verifier with
  ///     the key cannot vouch for at the end of the log.
  /// - Throws: ``AuditCheckpointError/invalidInterval(_:)`` when `every` is below 1.
  public init(key: Key, every: Int = 1000) throws(AuditCheckpointError) {
    guard every >= 1 else { throw .invalidInterval(every) }
    self.key = key
    self.every = every
  }
}

/// Why keyed checkpoints could not be set up.
public enum AuditCheckpointError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The key has no bytes.
  case emptyKey
  /// The key file cannot be read.
  case unreadableKey(path: String, reason: String)
  /// The interval between checkpoints is below 1.
  case invalidInterval(Int)

  /// What went wrong.
  public var description: String {
    switch self {
    case .emptyKey: "the checkpoint key is empty"
    case .unreadableKey(let path, let reason): "cannot read the key file \(path): \(reason)"
    case .invalidInterval(let every):
      "checkpoints every \(every) entries: the interval must be 1 or more"
    }
  }
}
