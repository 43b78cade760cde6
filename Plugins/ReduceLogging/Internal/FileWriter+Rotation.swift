import Reduce

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

// Rotating a chained log: the file is moved aside whole, and a new file takes its place whose
// first line continues the chain (the next `seq`, and the hash of the old file's last line in
// `prev`). The old file and the new one verify as one log.
//
// Crash safety: the new file is made and flushed under a temporary name (`PATH.rotating`)
// first; then the old file is renamed to the archive's name, the new one to `PATH`, and the
// directory is flushed. A crash between the two renames leaves no `PATH`: opening `PATH` then
// finishes the rotation (``FileWriter/finishInterruptedRotation(of:)``).

extension FileWriter {
  /// The name of the new file of a rotation while it is made.
  static func rotatingPath(of path: String) -> String { path + ".rotating" }

  /// Finishes a rotation a crash interrupted: `path` is missing and its new file is ready.
  static func finishInterruptedRotation(of path: String) {
    let rotating = rotatingPath(of: path)
    guard access(path, F_OK) != 0, access(rotating, F_OK) == 0 else { return }
    if rename(rotating, path) == 0 { flushDirectory(of: path) }
  }

  /// Rotates this writer's chained file.
  ///
  /// It flushes the file, moves it to `archive` (by default ``archivePath(of:through:)``), and
  /// puts a new file in its place whose first line is `firstLine(seq, prev)`. The writer stops
  /// after; the sink opens the new file.
  ///
  /// - Throws: ``LogSinkError/rotationFailed(path:reason:)`` when the archive's name is taken,
  ///   the new file cannot be made, or the writer is shared with another sink value; the
  ///   writer's failure if it had one. Nothing is renamed then.
  func rotate(archivingTo archive: String?, firstLine: (Int, String) -> String)
    throws(LogSinkError)
  {
    guard chained else { throw .rotationFailed(path: path, reason: "only a chained log rotates") }
    try waitUntilDurable()
    try state.withLock { state throws(LogSinkError) in
      if let failure = state.failure { throw failure }
      try checkFile(&state)
      let archive = archive ?? Self.archivePath(of: path, through: state.lastSequence)
      guard access(archive, F_OK) != 0 else {
        throw .rotationFailed(path: path, reason: "\(archive) exists already")
      }
      let rotating = Self.rotatingPath(of: path)
      let line = Array(firstLine(state.lastSequence + 1, state.lastHash.hex).utf8)
      try Self.createFile(rotating, contents: line + [UInt8(ascii: "\n")], for: path)
      guard rename(path, archive) == 0 else {
        let reason = POSIX.errorText
        _ = unlink(rotating)
        throw .rotationFailed(path: path, reason: "cannot rename it to \(archive): \(reason)")
      }
      guard rename(rotating, path) == 0 else {
        // The log is in the archive; the new file waits under its temporary name, where the
        // next open finds it.
        throw .rotationFailed(path: path, reason: "cannot rename \(rotating): \(POSIX.errorText)")
      }
      Self.flushDirectory(of: path)
      // The old descriptor now writes the archive: nothing more may go there.
      state.failure = .rotationFailed(path: path, reason: "the log was rotated; reopen it")
    }
  }

  /// The default name of a rotated file: the log's, and the `seq` of its last entry in twelve
  /// digits (`audit.log.000000001824`), so that archives sort in order.
  static func archivePath(of path: String, through sequence: Int) -> String {
    let digits = String(sequence)
    return path + "." + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
  }

  private static func createFile(_ path: String, contents: [UInt8], for log: String)
    throws(LogSinkError)
  {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw .rotationFailed(path: log, reason: "cannot create \(path): \(POSIX.errorText)")
    }
    defer { POSIX.closeDescriptor(descriptor) }
    if let failure = POSIX.writeAll(descriptor, contents) {
      _ = unlink(path)
      throw .rotationFailed(path: log, reason: "cannot write \(path): \(failure)")
    }
    guard fsync(descriptor) == 0 else {
      _ = unlink(path)
      throw .rotationFailed(path: log, reason: "cannot flush \(path): \(POSIX.errorText)")
    }
  }

  /// Flushes the directory holding `path`, so that renames in it survive a power loss; best
  /// effort (some file systems refuse).
  static func flushDirectory(of path: String) {
    let absolute = POSIX.absolutePath(path)
    let directory = absolute.lastIndex(of: "/").map { String(absolute[..<$0]) } ?? "."
    let descriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    _ = fsync(descriptor)
    POSIX.closeDescriptor(descriptor)
  }
}
