#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Thin wrappers over the system calls the sinks use, each returning the `errno` text on
/// failure.
enum POSIX {
  static var errorText: String {
    String(cString: strerror(errno))
  }

  /// The largest write that a pipe with room for one buffer takes without blocking.
  #if os(Linux)
    static let atomicPipeWrite = 4096
  #else
    static let atomicPipeWrite = 512
  #endif

  /// Opens (creating if needed) a file for reading and appending; -1 on failure.
  static func openForAppending(_ path: String) -> Int32 {
    open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
  }

  /// The path, made absolute against the working directory when it is relative.
  static func absolutePath(_ path: String) -> String {
    guard !path.hasPrefix("/"), let directory = getcwd(nil, 0) else { return path }
    defer { free(directory) }
    return String(cString: directory) + "/" + path
  }

  static func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)  // Nothing useful to do when closing fails: the descriptor is gone.
  }

  /// Writes every byte, retrying after interruptions and short writes.
  static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> String? {
    bytes.withUnsafeBytes { writeAll(descriptor, $0) }
  }

  /// Writes every byte, retrying after interruptions and short writes.
  static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> String? {
    var offset = 0
    while offset < bytes.count {
      let written = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        return errorText
      }
      if written == 0 { return "the write made no progress" }
      offset += written
    }
    return nil
  }

  /// Waits until a descriptor accepts a write, at most `milliseconds`; false on timeout.
  static func waitWritable(_ descriptor: Int32, milliseconds: Int32) -> Result<Bool, PollError> {
    var request = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
    while true {
      let status = poll(&request, 1, milliseconds)
      if status < 0 {
        if errno == EINTR { continue }
        return .failure(PollError(reason: errorText))
      }
      return .success(status > 0)
    }
  }

  struct PollError: Error {
    let reason: String
  }
}
