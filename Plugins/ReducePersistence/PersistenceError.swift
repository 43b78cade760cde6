/// Why a ``PersistenceMiddleware`` could not be set up, restore its file, or save.
public enum PersistenceError: Error, Sendable, CustomStringConvertible {
  /// The debounce duration is zero or negative.
  case nonPositiveDebounce(Duration)
  /// `maxWait` is shorter than the debounce duration, so it could never wait for quiet.
  case maxWaitShorterThanDebounce(maxWait: Duration, debounce: Duration)
  /// The format's version is below 1.
  case invalidVersion(Int)
  /// Two migrations start from the same version, or one starts at or above the format's version.
  case invalidMigration(from: Int, version: Int)
  /// The file at `path` exists but cannot be restored; `movedTo` is where it was moved aside,
  /// or nil when it was left where it is.
  case unusableFile(path: String, problem: StateFileProblem, movedTo: String?)
  /// The file at `path` cannot be restored and could not be moved aside either, so the
  /// middleware did not start from the initial state (a save would have replaced it).
  case moveAsideFailed(path: String, problem: StateFileProblem, reason: String)
  /// The value could not be encoded (its `encode(to:)` threw, or the `.flat` layout was given a
  /// value that does not encode as a JSON object, or that has a `version` key of its own).
  case encodingFailed(reason: String)
  /// Two attachments have the same key.
  case duplicateAttachment(key: String)
  /// The attachment with this key could not be restored: its data did not decode, or its
  /// `restore` threw (`underlying`). The value was restored all the same.
  case attachmentFailed(key: String, underlying: any Error)
  /// The file could not be written; the previous file, if any, is untouched, and the value
  /// stays pending: the next save writes it.
  ///
  /// - `reason`: the system's message for the failing call, such as `Read-only file system`.
  case writeFailed(path: String, reason: String)
  /// The file at `path` holds a saved value that the store was not built from, so the save was
  /// refused and the value stays pending: build the store's initial state with
  /// `restoring(_:)`, dispatch a `ReplaceState` that holds the saved value, or call
  /// `replaceSavedValue()` to overwrite it.
  case savedValueNotRestored(path: String)

  /// A sentence that says what went wrong and where.
  public var description: String {
    switch self {
    case .nonPositiveDebounce(let duration):
      "The debounce duration is \(duration); it must be positive."
    case .maxWaitShorterThanDebounce(let maxWait, let debounce):
      "maxWait is \(maxWait), shorter than the debounce duration \(debounce); make it at least the debounce duration, or nil."
    case .invalidVersion(let version):
      "The format version is \(version); versions start at 1."
    case .invalidMigration(let from, let version):
      "A migration from version \(from) is given twice or is not below the format version \(version)."
    case .unusableFile(let path, let problem, let movedTo):
      "cannot restore \(path): \(problem)"
        + (movedTo.map { "; it was moved to \($0)" } ?? "; it was left as it is")
    case .moveAsideFailed(let path, let problem, let reason):
      "cannot restore \(path): \(problem); moving it aside failed: \(reason)"
    case .duplicateAttachment(let key):
      "Two attachments have the key \"\(key)\"; give each its own."
    case .attachmentFailed(let key, let underlying):
      "cannot restore the attachment \"\(key)\": \(underlying)"
    case .encodingFailed(let reason):
      "cannot encode the state: \(reason)"
    case .writeFailed(let path, let reason):
      "cannot write \(path): \(reason)"
    case .savedValueNotRestored(let path):
      "\(path) holds a saved value the store was not built from, so it was not overwritten; create the store from persistence.restoring(...), or call replaceSavedValue() to overwrite it."
    }
  }
}

/// What is wrong with a state file that exists but cannot be restored.
public enum StateFileProblem: Error, Sendable, CustomStringConvertible {
  /// The file could not be read (`reason`: the system's message, such as `Permission denied`).
  case cannotRead(reason: String)
  /// The file is not a JSON object with a whole-number `version`.
  case noVersion
  /// The file's version is newer than the newest version the app knows.
  case newerVersion(found: Int, supported: Int)
  /// No migration leads from the file's version (`from`) to the next one.
  case noMigration(from: Int, to: Int)
  /// The migration from version `from` threw `underlying`.
  case migrationFailed(from: Int, underlying: any Error)
  /// The file, after any migrations, does not decode as the value: `underlying` is the
  /// decoder's error, with the coding path of the value at fault.
  case notDecodable(underlying: any Error)

  /// A clause that says what is wrong.
  public var description: String {
    switch self {
    case .cannotRead(let reason): "it cannot be read: \(reason)"
    case .noVersion: "it is not a JSON object with a whole-number \"version\""
    case .newerVersion(let found, let supported):
      "it has version \(found), newer than the newest this app reads, \(supported)"
    case .noMigration(let from, let to): "no migration leads from version \(from) to \(to)"
    case .migrationFailed(let from, let underlying):
      "the migration from version \(from) failed: \(underlying)"
    case .notDecodable(let underlying): "it does not decode: \(underlying)"
    }
  }
}
