import Foundation
import Reduce

/// A journal kept in memory: a source of lines for a reader, and a sink an ``AuditTrail`` can
/// write to.
///
/// Use it to verify, replay or follow a journal held as bytes (read from a network, a backup,
/// a database export), and in tests: a trail that writes to it and a ``StandbyStore`` that
/// follows it need no file and no waiting on a clock, because an appended line wakes the
/// readers that wait for it.
///
/// ```swift
/// let journal = MemoryJournal()
/// let primary = try Store(
///   initialState: Ledger(), mutators: [balances],
///   middleware: [AuditTrail<Ledger>(sink: journal)])
/// let standby = try StandbyStore(
///   initialState: Ledger(), mutators: [balances], journal: journal,
///   actions: ReplayableActions([LedgerAction.self]))
/// ```
public final class MemoryJournal: JournalSource, LogSink {
  private enum Waiter {
    case pending
    case waiting(CheckedContinuation<Void, Never>)
    case resumed
  }

  private struct State {
    var lines: [JournalLine] = []
    var chain: JournalChain
    var waiters: [UInt64: Waiter] = [:]
    var nextWaiter: UInt64 = 0
  }

  private let state: Locked<State>

  /// Creates an empty journal.
  ///
  /// - Parameter checkpoints: Keyed checkpoints for the entries written to it as a sink.
  public init(checkpoints: AuditCheckpoints? = nil) {
    state = Locked(State(chain: JournalChain(checkpoints: checkpoints)))
  }

  /// Creates a journal of the complete lines of a log's bytes (a last line without its newline
  /// is left out, as a reader leaves out a torn line).
  ///
  /// - Parameters:
  ///   - bytes: The log's bytes, lines separated by newlines.
  ///   - checkpoints: Keyed checkpoints for the entries written to it as a sink.
  /// - Throws: ``JournalError/malformedLine(sequence:reason:)`` when a line does not begin
  ///   with a `seq` greater than the line before's.
  public convenience init(contentsOf bytes: [UInt8], checkpoints: AuditCheckpoints? = nil)
    throws(JournalError)
  {
    self.init(checkpoints: checkpoints)
    var start = 0
    while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
      let line = Array(bytes[start..<newline])
      let previous = state.withLock { $0.lines.last?.sequence ?? 0 }
      guard let sequence = LineKind.sequence(of: line) else {
        throw .malformedLine(sequence: previous + 1, reason: "it does not begin with a `seq`")
      }
      try append(JournalLine(sequence: sequence, bytes: line))
      start = newline + 1
    }
  }

  /// The lines, in order.
  public var lines: [JournalLine] { state.withLock { $0.lines } }

  /// The journal as a log file's bytes: each line followed by a newline.
  public var bytes: [UInt8] {
    state.withLock { state in
      var bytes: [UInt8] = []
      for line in state.lines {
        bytes += line.bytes
        bytes.append(UInt8(ascii: "\n"))
      }
      return bytes
    }
  }

  /// Stores a line as it is (a copy of another journal's line), and wakes the readers that wait.
  ///
  /// The journal checks only that the line's `seq` is after the last one's: a reader verifies
  /// the chain. Entries written to it as a sink afterwards continue after this line.
  ///
  /// - Parameter line: The line.
  /// - Throws: ``JournalError/malformedLine(sequence:reason:)`` when its `seq` is not after the
  ///   last line's.
  public func append(_ line: JournalLine) throws(JournalError) {
    let waiters = try state.withLock { state throws(JournalError) in
      let last = state.lines.last?.sequence ?? 0
      guard line.sequence > last else {
        throw .malformedLine(
          sequence: line.sequence, reason: "it is not after the journal's last entry, \(last)")
      }
      state.lines.append(line)
      state.chain = JournalChain(continuing: line, checkpoints: state.chain.checkpoints)
      return Self.takeWaiters(&state)
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Appends the record as a chained line (and a checkpoint when one is due), and wakes the
  /// readers that wait.
  ///
  /// - Parameter record: The entry.
  public func write(_ record: LogRecord) {
    let waiters = state.withLock { state in
      state.lines += state.chain.append(record)
      return Self.takeWaiters(&state)
    }
    for waiter in waiters { waiter.resume() }
  }

  /// The stored lines from `sequence` on, at most `limit`.
  ///
  /// - Parameters:
  ///   - sequence: The first `seq` wanted.
  ///   - limit: The most lines to return.
  /// - Returns: The lines, in order.
  public func lines(from sequence: Int, limit: Int) -> [JournalLine] {
    state.withLock { state in
      let start = Self.firstIndex(in: state.lines, atOrAfter: sequence)
      return Array(state.lines[start..<min(state.lines.count, start + max(1, limit))])
    }
  }

  /// The newest snapshot at or before `sequence`.
  ///
  /// - Parameter sequence: The latest `seq` that will do; nil for any.
  /// - Returns: Its `seq`, or nil.
  public func newestSnapshot(through sequence: Int?) -> Int? {
    state.withLock { state in
      state.lines.last { ($0.sequence <= sequence ?? Int.max) && $0.kind == .snapshot }?.sequence
    }
  }

  /// The last line's `seq`; 0 when empty.
  ///
  /// - Returns: The `seq`.
  public func lastSequence() -> Int {
    state.withLock { $0.lines.last?.sequence ?? 0 }
  }

  /// Waits until a line after `sequence` is appended, `timeout` passes, or the task is
  /// cancelled.
  ///
  /// - Parameters:
  ///   - sequence: The last `seq` the reader has.
  ///   - timeout: The longest to wait.
  public func waitForLines(after sequence: Int, timeout: Duration) async {
    let id = state.withLock { state in
      state.nextWaiter += 1
      state.waiters[state.nextWaiter] = .pending
      return state.nextWaiter
    }
    let timer = Task { [weak self] in
      try? await Task.sleep(for: timeout)
      self?.resume(id)
    }
    defer { timer.cancel() }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = state.withLock { state -> Bool in
          if case .resumed? = state.waiters[id] {
            state.waiters[id] = nil
            return true
          }
          if (state.lines.last?.sequence ?? 0) > sequence {
            state.waiters[id] = nil
            return true
          }
          state.waiters[id] = .waiting(continuation)
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      resume(id)
    }
  }

  private func resume(_ id: UInt64) {
    let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
      switch state.waiters[id] {
      case .waiting(let continuation)?:
        state.waiters[id] = nil
        return continuation
      case .pending?:
        state.waiters[id] = .resumed
        return nil
      case .resumed?, nil:
        return nil
      }
    }
    continuation?.resume()
  }

  /// Takes every waiting reader out, to be resumed after the lock is released; marks the
  /// others, which have not begun to wait yet, as resumed.
  private static func takeWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
    var continuations: [CheckedContinuation<Void, Never>] = []
    for (id, waiter) in state.waiters {
      switch waiter {
      case .waiting(let continuation):
        continuations.append(continuation)
        state.waiters[id] = nil
      case .pending: state.waiters[id] = .resumed
      case .resumed: break
      }
    }
    return continuations
  }

  private static func firstIndex(in lines: [JournalLine], atOrAfter sequence: Int) -> Int {
    var low = 0
    var high = lines.count
    while low < high {
      let middle = (low + high) / 2
      if lines[middle].sequence < sequence { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
