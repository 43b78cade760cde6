import Foundation
import Reduce
import ReduceExecutableSupport

/// A `reduce-demo` started as a child process and driven while it runs: lines sent one at a
/// time, its output read as it comes, signals sent, its end awaited.
///
/// Waits poll with a deadline; they never assert that something takes a given time.
final class RunningDemo {
  /// Everything read from one of the demo's output pipes, and whether the pipe was closed.
  private struct Stream {
    var data = Data()
    var isClosed = false
  }

  private let process = Process()
  private let input = Pipe()
  private let output = Locked(Stream())
  private let errors = Locked(Stream())

  /// Starts the demo.
  ///
  /// - Parameters:
  ///   - arguments: Its arguments.
  ///   - environment: Variables added to ``Executable/environment`` for the run.
  /// - Throws: When the demo was not built or could not be started.
  init(_ arguments: [String], environment: [String: String] = [:]) throws {
    process.executableURL = try Executables.url("reduce-demo")
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment
      .merging(Executable.environment) { $1 }.merging(environment) { $1 }
    let outputPipe = Pipe()
    let errorPipe = Pipe()
    process.standardInput = input
    process.standardOutput = outputPipe
    process.standardError = errorPipe
    try process.run()
    Self.read(outputPipe.fileHandleForReading, into: output)
    Self.read(errorPipe.fileHandleForReading, into: errors)
  }

  deinit {
    guard process.processIdentifier != 0 else { return }
    if process.isRunning { process.terminate() }
    // Foundation keeps a process that nobody waited for alive, with its pipes and handles, for
    // ever (leak detection found them); once it has ended this returns at once.
    process.waitUntilExit()
  }

  /// Reads a pipe to its end on a thread of its own, keeping what came so far.
  private static func read(_ handle: FileHandle, into stream: Locked<Stream>) {
    Thread {
      while true {
        let data = handle.availableData
        guard !data.isEmpty else { break }
        stream.withLock { $0.data.append(data) }
      }
      stream.withLock { $0.isClosed = true }
    }.start()
  }

  /// Sends a line to the demo's standard input.
  func send(_ line: String) throws {
    try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
  }

  /// Closes the demo's standard input: the end of its input, after which it saves and exits.
  func closeInput() throws {
    try input.fileHandleForWriting.close()
  }

  /// Sends a signal to the demo.
  func signal(_ number: Int32) {
    kill(process.processIdentifier, number)
  }

  /// What the demo wrote on standard output so far.
  var standardOutput: String { String(decoding: output.withLock { $0.data }, as: UTF8.self) }

  /// What the demo wrote on standard error so far.
  var standardError: String { String(decoding: errors.withLock { $0.data }, as: UTF8.self) }

  /// Why the demo ended: by exiting or by a signal.
  ///
  /// Read it only after ``waitForExit(within:)`` returned true.
  var terminationReason: Process.TerminationReason { process.terminationReason }

  /// The exit status, or the number of the signal that ended the demo.
  var terminationStatus: Int32 { process.terminationStatus }

  /// Waits until standard output holds a text.
  ///
  /// - Returns: Whether it does, false when the deadline passed first.
  func waitForOutput(containing text: String, within limit: Duration = .seconds(20)) async throws
    -> Bool
  {
    try await poll(within: limit) { self.standardOutput.contains(text) }
  }

  /// Waits until standard error holds a text a number of times.
  ///
  /// - Returns: Whether it does, false when the deadline passed first.
  func waitForErrors(
    containing text: String, times: Int, within limit: Duration = .seconds(20)
  ) async throws -> Bool {
    try await poll(within: limit) {
      self.standardError.components(separatedBy: text).count - 1 >= times
    }
  }

  /// Waits until the demo ended and both of its output pipes are closed.
  ///
  /// - Returns: Whether it ended, false when the deadline passed first.
  func waitForExit(within limit: Duration = .seconds(20)) async throws -> Bool {
    let ended = try await poll(within: limit) {
      !self.process.isRunning && self.output.withLock { $0.isClosed }
        && self.errors.withLock { $0.isClosed }
    }
    // It has ended: this returns at once, and lets Foundation release the process.
    if ended { process.waitUntilExit() }
    return ended
  }

  private func poll(within limit: Duration, until condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
      guard ContinuousClock.now < deadline else { return false }
      try await Task.sleep(for: .milliseconds(10))
    }
    return true
  }
}
