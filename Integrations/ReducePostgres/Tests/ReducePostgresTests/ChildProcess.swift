import Foundation

/// A child process of the crash and failover tests: one of the package's executables, started,
/// read line by line as it writes, and killed.
///
/// Its standard output is read by a thread of its own until the end (the child's death closes
/// the pipe), so that nothing it wrote before a kill is lost to the test.
final class ChildProcess: @unchecked Sendable {
  // `@unchecked Sendable`: `text` is reached only holding `lock`; the rest is constant.
  let process = Process()
  private let errors = Pipe()
  private let finishedReading = DispatchSemaphore(value: 0)
  private let lock = NSCondition()
  private var text = ""

  /// Starts an executable built next to the test bundle, with the test's environment and
  /// `environment` added to it.
  init(_ name: String, arguments: [String], environment: [String: String] = [:]) throws {
    process.executableURL = try Self.executable(name)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
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
  var lines: [String] {
    lock.lock()
    defer { lock.unlock() }
    return Self.complete(text)
  }

  /// The first complete line starting with `prefix`, once it arrived; nil at the deadline.
  func waitForLine(startingWith prefix: String, until deadline: Date) -> String? {
    lock.lock()
    defer { lock.unlock() }
    while true {
      if let line = Self.complete(text).first(where: { $0.hasPrefix(prefix) }) { return line }
      if !lock.wait(until: deadline) { return nil }
    }
  }

  /// Kills the child (`SIGKILL`) and waits until it is gone and all it wrote was read.
  func kill() {
    _ = Foundation.kill(process.processIdentifier, SIGKILL)
    waitForExit()
  }

  /// Waits until the child has exited and all it wrote was read.
  func waitForExit() {
    process.waitUntilExit()
    finishedReading.wait()
  }

  /// What the child wrote to standard error, once it has exited.
  var standardError: String {
    String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  }

  private static func complete(_ text: String) -> [String] {
    text.split(separator: "\n").dropLast(text.hasSuffix("\n") ? 0 : 1).map(String.init)
  }

  private static func executable(_ name: String) throws -> URL {
    var directory = Bundle.main.bundleURL
    for _ in 0..<4 {
      let candidate = directory.appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      directory.deleteLastPathComponent()
    }
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent(name)
    guard FileManager.default.isExecutableFile(atPath: beside.path) else {
      throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
    }
    return beside
  }
}
