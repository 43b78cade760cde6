public import Foundation

/// A child process for a crash test: started, read line by line as it writes, and killed.
///
/// Its standard output is read by a thread of its own until the end (the child's death closes
/// the pipe), so that nothing it wrote before the kill is lost to the test.
public final class CrashChild: @unchecked Sendable {
  /// The running process.
  public let process: Process
  private let errors = Pipe()
  private let finishedReading = DispatchSemaphore(value: 0)
  private let lock = NSCondition()
  private var text = ""

  /// Starts an executable of the package.
  ///
  /// - Parameters:
  ///   - executable: The executable's location (``Executables/url(_:)``).
  ///   - arguments: Its arguments.
  /// - Throws: The error of starting the process.
  public init(_ executable: URL, arguments: [String]) throws {
    process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = errors
    Thread { [self] in
      while case let data = output.fileHandleForReading.availableData, !data.isEmpty {
        lock.lock()
        text += String(decoding: data, as: UTF8.self)
        lock.broadcast()
        lock.unlock()
      }
      finishedReading.signal()
    }.start()
    try process.run()
  }

  /// The complete lines written so far.
  public var lines: [String] {
    lock.lock()
    defer { lock.unlock() }
    return text.split(separator: "\n").dropLast(text.hasSuffix("\n") ? 0 : 1).map(String.init)
  }

  /// The first complete line starting with `prefix`, once it has arrived; nil at the deadline.
  public func waitForLine(startingWith prefix: String, until deadline: Date) -> String? {
    lock.lock()
    defer { lock.unlock() }
    while true {
      let complete = text.split(separator: "\n").dropLast(text.hasSuffix("\n") ? 0 : 1)
      if let line = complete.first(where: { $0.hasPrefix(prefix) }) { return String(line) }
      if !lock.wait(until: deadline) { return nil }
    }
  }

  /// Kills the child (`SIGKILL`) and waits until it is gone and all it wrote has been read.
  public func kill() {
    _ = Foundation.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    finishedReading.wait()
  }

  /// Stops a child that did not do what was expected, and returns what it wrote to standard
  /// error, to say why.
  public func stop() -> String {
    process.terminate()
    process.waitUntilExit()
    finishedReading.wait()
    return String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  }
}
