import Foundation
import Reduce

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The file operations of a persistence: reading, replacing in one step, moving aside.
enum FileSystem {
  /// Why a file operation failed: the system's message for `errno`.
  struct Failure: Error {
    var reason: String
  }

  private static var errorText: String { String(cString: strerror(errno)) }

  /// The file's bytes, or nil when there is no file.
  static func contents(of path: String) throws(Failure) -> Data? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      if errno == ENOENT { return nil }
      throw Failure(reason: errorText)
    }
    defer { close(descriptor) }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count == 0 { return data }
      if count < 0 {
        if errno == EINTR { continue }
        throw Failure(reason: errorText)
      }
      data.append(contentsOf: buffer[..<count])
    }
  }

  /// A number that makes each temporary file's name unique within the process.
  private static let temporaryCounter = Locked<UInt64>(0)

  /// Replaces the file at `path` with `data` in one step: a crash leaves the old file or the
  /// new one, never a mix.
  ///
  /// It writes a temporary file in the same directory (with the permissions of the file it
  /// replaces; 0644 less the umask for a new file), flushes it to the disk (`fsync`),
  /// renames it over `path`, and flushes the directory, so that the rename is durable too. On
  /// failure the temporary file is removed and the old file is untouched.
  static func replace(_ path: String, with data: Data) throws(Failure) {
    let (directory, name) = split(path)
    let number = temporaryCounter.withLock { counter in
      counter &+= 1
      return counter
    }
    let temporary = directory + "/." + name + ".tmp-\(getpid())-\(number)"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw Failure(reason: errorText) }
    var closed = false
    do throws(Failure) {
      // The new file keeps the old one's permissions: a file its user made private stays so.
      var old = stat()
      if stat(path, &old) == 0, fchmod(descriptor, old.st_mode & 0o7777) != 0 {
        throw Failure(reason: errorText)
      }
      try writeAll(data, to: descriptor)
      guard fsync(descriptor) == 0 else { throw Failure(reason: errorText) }
      closed = true
      guard close(descriptor) == 0 else { throw Failure(reason: errorText) }
      guard rename(temporary, path) == 0 else { throw Failure(reason: errorText) }
    } catch {
      if !closed { close(descriptor) }
      unlink(temporary)
      throw error
    }
    try syncDirectory(directory)
  }

  /// Moves a file aside to `PATH.corrupt-TIMESTAMP` (a number added when that name is taken).
  ///
  /// - Returns: The new path.
  static func moveAside(_ path: String, at date: Date) throws(Failure) -> String {
    let stamp = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    var target = "\(path).corrupt-\(stamp)"
    var attempt = 1
    while access(target, F_OK) == 0 {
      attempt += 1
      target = "\(path).corrupt-\(stamp)-\(attempt)"
    }
    guard rename(path, target) == 0 else { throw Failure(reason: errorText) }
    try syncDirectory(split(path).directory)
    return target
  }

  private static func writeAll(_ data: Data, to descriptor: Int32) throws(Failure) {
    let failure: Failure? = data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let written = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          return Failure(reason: errorText)
        }
        offset += written
      }
      return nil
    }
    if let failure { throw failure }
  }

  private static func syncDirectory(_ directory: String) throws(Failure) {
    let descriptor = open(directory, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw Failure(reason: errorText) }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw Failure(reason: errorText) }
  }

  /// A path's directory and file name; the directory of a bare name is `.`.
  private static func split(_ path: String) -> (directory: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    let directory = String(path[..<slash])
    return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
  }
}
