import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// `reduce-audit html LOG... -o FILE`: writes the inspector page of one or more log files.
extension ReduceAudit {
  /// An output file that cannot be written (sysexits' `EX_CANTCREAT`).
  static let unwritableStatus: Int32 = 73

  /// Reads the logs, in order, and writes them into one self-contained HTML page.
  ///
  /// The page is written whatever the logs hold: a log whose chain is broken opens with its
  /// first broken line marked, which is what the page is for.
  static func html(_ arguments: [String]) -> Int32 {
    var logs: [String] = []
    var output: String?
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      switch argument {
      case "-o", "--output":
        guard index + 1 < arguments.count else { return usageError("\(argument) needs a FILE") }
        guard output == nil else { return usageError("html takes one -o FILE") }
        output = arguments[index + 1]
        index += 2
      default:
        guard !argument.hasPrefix("-") else {
          return usageError("unexpected argument '\(argument)'")
        }
        logs.append(argument)
        index += 1
      }
    }
    guard !logs.isEmpty else { return usageError("html takes one LOG or more") }
    guard let output else { return usageError("html needs -o FILE, the page to write") }
    if logs.contains(where: { sameFile($0, output) }) {
      return usageError("the page \(output) would overwrite one of the logs")
    }
    var files: [InspectorPage.File] = []
    for log in logs {
      guard let data = readLog(log) else { return unreadableStatus }
      files.append(InspectorPage.File(name: log, bytes: data))
    }
    let page = Array(InspectorPage.render(files).utf8)
    if let reason = writeFile(page, to: output) {
      printError("\(output): cannot write it: \(reason)")
      return unwritableStatus
    }
    let lines = files.reduce(0) { $0 + lineCount($1.bytes) }
    let place = files.count == 1 ? "" : " in \(files.count) files"
    print("\(output): \(lines) \(lines == 1 ? "line" : "lines")\(place); open it in a browser")
    return 0
  }

  /// Whether two paths name the same file (through links too); false when either is missing.
  static func sameFile(_ first: String, _ second: String) -> Bool {
    var one = stat()
    var other = stat()
    guard stat(first, &one) == 0, stat(second, &other) == 0 else { return false }
    return one.st_dev == other.st_dev && one.st_ino == other.st_ino
  }

  /// The number of lines of a log: its newlines, and an unterminated last line.
  static func lineCount(_ bytes: Data) -> Int {
    let newlines = bytes.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    return newlines + (bytes.last.map { $0 == UInt8(ascii: "\n") ? 0 : 1 } ?? 0)
  }

  /// Writes bytes to a file, replacing it; returns why it failed, in words, or nil.
  static func writeFile(_ bytes: [UInt8], to path: String) -> String? {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { return systemError(errno) }
    var written = 0
    var failure: String?
    bytes.withUnsafeBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      while written < buffer.count {
        let count = write(descriptor, base + written, buffer.count - written)
        if count < 0 {
          if errno == EINTR { continue }
          failure = systemError(errno)
          return
        }
        written += count
      }
    }
    if close(descriptor) != 0, failure == nil { failure = systemError(errno) }
    return failure
  }

  /// The system's text for an `errno`, starting in lowercase to follow a colon.
  static func systemError(_ code: Int32) -> String {
    let text = String(cString: strerror(code))
    return text.prefix(1).lowercased() + text.dropFirst()
  }
}
