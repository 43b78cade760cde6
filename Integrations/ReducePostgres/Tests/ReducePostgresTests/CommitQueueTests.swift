import Foundation
import Reduce
import ReduceLogging
import Testing

@testable import ReducePostgres

/// The group commit's state machine on its own, with a commit that stores groups in memory and
/// fails when told to.
@Suite(.timeLimit(.minutes(1))) struct CommitQueueTests {
  /// Stores the groups it is given, or throws the error it holds.
  final class Store: @unchecked Sendable {
    // `@unchecked Sendable`: every property is reached only holding `lock`.
    private let lock = NSLock()
    private var groups: [[JournalRow]] = []
    private var failure: PostgresJournalError?
    private var gate: DispatchSemaphore?

    func commit(_ rows: [JournalRow]) throws(PostgresJournalError) {
      if let gate = lock.withLock({ gate }) {
        // Held until the test opens the gate; then every commit passes it.
        gate.wait()
        gate.signal()
      }
      let failure = lock.withLock { () -> PostgresJournalError? in
        if let failure = self.failure { return failure }
        groups.append(rows)
        return nil
      }
      if let failure { throw failure }
    }

    func fail(with error: PostgresJournalError?) { lock.withLock { failure = error } }
    /// Makes commits wait until `gate` is signalled.
    func hold(until gate: DispatchSemaphore) { lock.withLock { self.gate = gate } }
    var stored: [[JournalRow]] { lock.withLock { groups } }
  }

  func record(_ amount: Int) -> LogRecord {
    LogRecord(
      entry: LogEntry(
        sequence: 0, timestamp: Date(timeIntervalSince1970: 0), action: "Deposit",
        payload: .json("{\"amount\":\(amount)}"), outcome: .ok, duration: .zero, changes: nil),
      format: .jsonLines)
  }

  func queue(_ store: Store) -> CommitQueue {
    CommitQueue(chain: JournalChain()) { rows throws(PostgresJournalError) in
      try store.commit(rows)
    }
  }

  @Test(
    "a line the admission refuses is not queued, and takes no seq; lines queued before it are still committed"
  )
  func refusedAdmission() throws {
    let store = Store()
    let refusing = Refusal()
    let queue = CommitQueue(
      chain: JournalChain(),
      admit: { () throws(PostgresJournalError) in try refusing.check() },
      commit: { rows throws(PostgresJournalError) in try store.commit(rows) })
    #expect(try queue.append(record(1)) == 1)
    refusing.refuse(with: .leaseExpired(stream: "s"))
    #expect(throws: PostgresJournalError.leaseExpired(stream: "s")) {
      try queue.append(record(2))
    }
    try queue.waitUntilCommitted()
    #expect(store.stored.flatMap { $0 }.map(\.sequence) == [1])
    refusing.refuse(with: nil)
    #expect(try queue.append(record(3)) == 2)
  }

  /// An admission the test opens and closes.
  final class Refusal: @unchecked Sendable {
    // `@unchecked Sendable`: `error` is reached only holding `lock`.
    private let lock = NSLock()
    private var error: PostgresJournalError?

    func refuse(with error: PostgresJournalError?) { lock.withLock { self.error = error } }

    func check() throws(PostgresJournalError) {
      if let error = lock.withLock({ error }) { throw error }
    }
  }

  @Test("lines are numbered and chained in append order, and verify")
  func chained() throws {
    let store = Store()
    let queue = queue(store)
    for amount in 1...3 { #expect(try queue.append(record(amount)) == amount) }
    try queue.waitUntilCommitted()
    let rows = store.stored.flatMap { $0 }
    #expect(store.stored.count == 1)
    #expect(rows.map(\.sequence) == [1, 2, 3])
    #expect(try AuditLog.verify(rows.flatMap { $0.bytes + [UInt8(ascii: "\n")] }) == 3)
  }

  @Test("after a commit that may pass fails, its lines are committed again before a new one")
  func transientFailureKeepsLines() throws {
    let store = Store()
    let queue = queue(store)
    _ = try queue.append(record(1))
    store.fail(with: .unavailable(stream: "s", reason: "down"))
    #expect(throws: PostgresJournalError.unavailable(stream: "s", reason: "down")) {
      try queue.waitUntilCommitted()
    }
    // Still down: the new line is refused, so its change would not be made.
    #expect(throws: PostgresJournalError.unavailable(stream: "s", reason: "down")) {
      try queue.append(record(2))
    }
    store.fail(with: nil)
    #expect(try queue.append(record(3)) == 2)
    try queue.waitUntilCommitted()
    #expect(store.stored.map { $0.map(\.sequence) } == [[1], [2]])
  }

  @Test("a final failure stops the queue")
  func finalFailureStops() throws {
    let store = Store()
    let queue = queue(store)
    _ = try queue.append(record(1))
    store.fail(with: .fenced(stream: "s", holder: "b"))
    #expect(throws: PostgresJournalError.fenced(stream: "s", holder: "b")) {
      try queue.waitUntilCommitted()
    }
    store.fail(with: nil)
    #expect(throws: PostgresJournalError.fenced(stream: "s", holder: "b")) {
      try queue.append(record(2))
    }
    #expect(store.stored.isEmpty)
  }

  @Test("writers that wait together share commits")
  func sharedCommits() async throws {
    let store = Store()
    let queue = queue(store)
    let turn = NSLock()
    // The first commit waits until every thread has appended its first line: those lines can
    // only be committed together, after it, however the threads are scheduled.
    let gate = DispatchSemaphore(value: 0)
    store.hold(until: gate)
    let firstAppends = Guarded(0)
    await onThreads(8) { thread in
      for index in 0..<50 {
        // The store's turn: appends one at a time, in order.
        turn.withLock { _ = try? queue.append(record(thread * 100 + index)) }
        let appended =
          index == 0
          ? firstAppends.withLock { count -> Int in
            count += 1
            return count
          } : 0
        if appended == 8 { gate.signal() }
        try? queue.waitUntilCommitted()
      }
    }
    let rows = store.stored.flatMap { $0 }
    #expect(rows.map(\.sequence) == Array(1...400))
    #expect(store.stored.count < 400)
    #expect(queue.committedSequence == 400)
  }
}

/// A value guarded by a lock.
///
/// `@unchecked Sendable`: the value is reached only inside `withLock`, holding `lock`.
final class Guarded<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) {
    self.value = value
  }

  func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return body(&value)
  }
}
