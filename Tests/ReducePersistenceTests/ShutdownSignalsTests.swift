import Foundation
import Reduce
import ReduceExecutableSupport
import ReducePersistence
import ReduceTesting
import Testing

/// `PersistenceCrashWriter --shutdown MODE FILE`, started, read line by line, signalled and
/// awaited.
///
/// `@unchecked Sendable`: the output is reached only holding `condition`.
final class ShutdownChild: @unchecked Sendable {
  let process = Process()
  private let condition = NSCondition()
  private var text = ""
  private var isClosed = false

  init(mode: String, file: String) throws {
    process.executableURL = try Executables.url("PersistenceCrashWriter")
    process.arguments = ["--shutdown", mode, file]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    Thread { [self] in
      while case let data = output.fileHandleForReading.availableData, !data.isEmpty {
        condition.withLock {
          text += String(decoding: data, as: UTF8.self)
          condition.broadcast()
        }
      }
      condition.withLock {
        isClosed = true
        condition.broadcast()
      }
    }.start()
    try process.run()
  }

  deinit {
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
  }

  /// The complete lines written so far.
  var lines: [String] {
    condition.withLock { text.split(separator: "\n").map(String.init) }
  }

  /// Waits until the child wrote a line; false when it ended, or a minute passed, first.
  func waitForLine(_ line: String) -> Bool {
    let deadline = Date() + 60
    condition.lock()
    defer { condition.unlock() }
    while !text.split(separator: "\n").contains(Substring(line)) {
      if isClosed || !condition.wait(until: deadline) { return false }
    }
    return true
  }

  /// Sends a signal.
  func signal(_ number: Int32) {
    kill(process.processIdentifier, number)
  }

  /// Waits until the child ended and all it wrote was read; false after a minute.
  func waitForEnd() -> Bool {
    let deadline = Date() + 60
    let closed = condition.withLock {
      while !isClosed {
        if !condition.wait(until: deadline) { return false }
      }
      return true
    }
    guard closed else { return false }
    process.waitUntilExit()
    return true
  }
}

/// The ledger in the child's file, restored as the child restores it; nil when there is none.
func restoredLedger(_ path: String) throws -> Ledger? {
  try PersistenceMiddleware<Ledger, Ledger>(file: path, clock: ManualClock()).restoredValue
}

/// Real stop signals sent to a child that handles them with `ShutdownSignals`: its edits are
/// saved although its debounce of an hour never fired, and it ends as the signal would have.
@Suite struct ShutdownSignalsTests {
  static let signals: [String: Int32] = ["SIGINT": SIGINT, "SIGTERM": SIGTERM, "SIGHUP": SIGHUP]

  @Test(
    "edits made just before a stop signal are in the file, and the process ends by the signal",
    .timeLimit(.minutes(2)), arguments: ["SIGINT", "SIGTERM", "SIGHUP"])
  func editsSavedOnSignal(signal name: String) throws {
    let number = try #require(Self.signals[name])
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("ledger.json")
    let child = try ShutdownChild(mode: "save", file: path)
    try #require(child.waitForLine("edited 3"))
    #expect(try restoredLedger(path) == nil, "the debounce has not saved the edits")
    child.signal(number)
    #expect(child.waitForEnd())
    #expect(child.process.terminationReason == .uncaughtSignal)
    #expect(child.process.terminationStatus == number)
    // The work ran in the order it was added, given the signal.
    #expect(child.lines == ["edited 3", "flushed \(name) 3", "closed \(name)"])
    #expect(try restoredLedger(path)?.counter == 3)
  }

  @Test(
    "work that throws does not stop the work after it, and the process exits with status 1",
    .timeLimit(.minutes(2)))
  func failingWork() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let child = try ShutdownChild(mode: "fail", file: directory.file("ledger.json"))
    try #require(child.waitForLine("edited 3"))
    child.signal(SIGTERM)
    #expect(child.waitForEnd())
    #expect(child.process.terminationReason == .exit)
    #expect(child.process.terminationStatus == 1)
    #expect(child.lines == ["edited 3", "failing", "closed SIGTERM"])
  }

  @Test(
    "a second stop signal while the work runs ends the process at once, by that signal",
    .timeLimit(.minutes(2)))
  func secondSignalEndsAtOnce() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let child = try ShutdownChild(mode: "hang", file: directory.file("ledger.json"))
    try #require(child.waitForLine("edited 3"))
    child.signal(SIGINT)
    try #require(child.waitForLine("hanging"))
    child.signal(SIGTERM)
    #expect(child.waitForEnd())
    #expect(child.process.terminationReason == .uncaughtSignal)
    #expect(child.process.terminationStatus == SIGTERM)
    #expect(child.lines == ["edited 3", "hanging"])
  }

  @Test(
    "a signal the process ignored already, SIGHUP under nohup, stays ignored",
    .timeLimit(.minutes(2)))
  func ignoredSignalStaysIgnored() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("ledger.json")
    let child = try ShutdownChild(mode: "nohup", file: path)
    try #require(child.waitForLine("edited 3"))
    // Handled, SIGHUP would end the child before the SIGTERM sent after it.
    child.signal(SIGHUP)
    child.signal(SIGTERM)
    #expect(child.waitForEnd())
    #expect(child.process.terminationReason == .uncaughtSignal)
    #expect(child.process.terminationStatus == SIGTERM)
    #expect(
      child.lines == [
        "handles SIGINT SIGTERM", "edited 3", "flushed SIGTERM 3", "closed SIGTERM",
      ])
    #expect(try restoredLedger(path)?.counter == 3)
  }

  @Test("the signals have their names and the statuses a shell reports for them")
  func signalNames() {
    #expect(ShutdownSignal.all.map(\.name) == ["SIGINT", "SIGTERM", "SIGHUP"])
    #expect(ShutdownSignal.all.map(\.shellStatus) == [130, 143, 129])
    #expect("\(ShutdownSignal.terminate)" == "SIGTERM")
  }
}
