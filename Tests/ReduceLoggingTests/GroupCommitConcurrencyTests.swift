import Dispatch
import Foundation
import Reduce
import Testing

@testable import ReduceLogging

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A flush for a test's sink that blocks the first time until the test opens the gate.
///
/// Every call is counted. It flushes with `fsync`, or fails with `failure` (an `errno`).
final class GatedSync: Sendable {
  private let gate = DispatchSemaphore(value: 0)
  private let calls = Locked(0)
  private let failure: Int32
  /// Signalled when the first call is blocked at the gate.
  let entered = DispatchSemaphore(value: 0)

  init(failing failure: Int32 = 0) {
    self.failure = failure
  }

  var count: Int { calls.withLock { $0 } }

  func open() { gate.signal() }

  func synchronize(_ descriptor: Int32) -> Int32 {
    let first = calls.withLock { count in
      count += 1
      return count == 1
    }
    if first {
      entered.signal()
      gate.wait()
    }
    if failure != 0 { return failure }
    return fsync(descriptor) == 0 ? 0 : errno
  }
}

/// A record of a counter action, as the middleware would hand it to a sink.
func counterRecord(_ step: Int) -> LogRecord {
  LogRecord(
    entry: LogEntry(
      sequence: step, timestamp: fixedDate, action: "CounterAction",
      payload: .json(#"{"incremented":{"by":\#(step)}}"#), outcome: .ok, duration: .zero,
      changes: nil),
    format: .jsonLines)
}

/// Appends the counter entry of `step`, runs `afterWriting`, and waits until the entry is on
/// disk; notes in `problems`, under `name`, a wait that returned early or a failure.
func writeDurably(
  _ sink: FileLogSink, step: Int, as name: String, problems: Locked<[String]>,
  afterWriting: () -> Void = {}
) {
  do {
    let end = try sink.append(counterRecord(step))
    afterWriting()
    try sink.waitUntilDurable()
    if sink.durableSize < end { problems.withLock { $0.append("\(name) not durable") } }
  } catch {
    problems.withLock { $0.append("\(name): \(error)") }
  }
}

/// Runs `body(index)` on `count` new threads and returns without waiting for them.
func startThreads(_ count: Int, _ group: DispatchGroup, _ body: @escaping @Sendable (Int) -> Void) {
  for index in 0..<count {
    group.enter()
    Thread {
      body(index)
      group.leave()
    }.start()
  }
}

/// A durable chained log whose first flush, a leader's, is blocked at its gate: the writers a
/// test starts next write while that flush runs, until the test opens the gate.
struct HeldFlush {
  let path = temporaryLogPath()
  let sync = GatedSync()
  let sink: FileLogSink
  let group = DispatchGroup()
  let problems = Locked<[String]>([])

  init() {
    sink = FileLogSink(
      path: path, durability: .everyEntry, chained: true, synchronize: sync.synchronize)
    let (sink, problems) = (sink, problems)
    startThreads(1, group) { _ in writeDurably(sink, step: 0, as: "leader", problems: problems) }
    sync.entered.wait()
  }
}

@Suite struct GroupCommitConcurrencyTests {
  @Test(
    "writers that wait while a flush runs share the next one: 2 fsyncs for 9 entries",
    .timeLimit(.minutes(1)))
  func sharedFlush() throws {
    // The leader: its flush blocks at the gate, so that the others write while it runs.
    let held = HeldFlush()
    defer { removeLog(held.path) }
    let (path, sync, sink, group, problems) = (
      held.path, held.sync, held.sink, held.group, held.problems
    )
    let followers = 8
    let written = DispatchSemaphore(value: 0)
    startThreads(followers, group) { index in
      writeDurably(
        sink, step: index + 1, as: "\(index)", problems: problems,
        afterWriting: { written.signal() })
    }
    for _ in 0..<followers { written.wait() }
    sync.open()
    group.wait()
    #expect(problems.withLock { $0 } == [])
    // One flush for the leader's entry; one for the eight written while it ran.
    #expect(sink.syncCount == 2)
    #expect(sync.count == 2)
    #expect(sink.durableSize == sink.writtenSize)
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == followers + 1)
  }

  @Test(
    "many threads writing and waiting: each entry is durable when its wait returns",
    .timeLimit(.minutes(1)))
  func manyThreads() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let sink = FileLogSink(path: path, durability: .everyEntry, chained: true)
    let threads = 8
    let steps = 25
    let problems = Locked<[String]>([])
    let group = DispatchGroup()
    startThreads(threads, group) { thread in
      for step in 0..<steps {
        do {
          let end = try sink.append(counterRecord(thread * steps + step))
          try sink.waitUntilDurable()
          let durable = sink.durableSize
          if durable < end {
            problems.withLock { $0.append("entry ending at \(end), durable \(durable)") }
          }
        } catch {
          problems.withLock { $0.append("\(error)") }
        }
      }
    }
    group.wait()
    #expect(problems.withLock { $0 } == [])
    #expect(sink.syncCount <= threads * steps)
    #expect(sink.syncCount >= 1)
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == threads * steps)
  }

  @Test("a caller whose entries are already on disk returns without a flush")
  func alreadyDurable() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let sink = FileLogSink(path: path, durability: .everyEntry, chained: true)
    try sink.write(counterRecord(1))
    #expect(sink.syncCount == 0)
    try sink.waitUntilDurable()
    try sink.waitUntilDurable()
    #expect(sink.syncCount == 1)
    try sink.flush()
    #expect(sink.syncCount == 1)
  }

  @Test("with buffered durability waiting does nothing, and flush still flushes")
  func buffered() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let sink = FileLogSink(path: path, durability: .buffered, chained: true)
    try sink.write(counterRecord(1))
    try sink.waitUntilDurable()
    #expect(sink.syncCount == 0)
    #expect(sink.durableSize == 0)
    try sink.flush()
    #expect(sink.syncCount == 1)
    #expect(sink.durableSize == sink.writtenSize)
  }

  @Test("a sink of your own needs no waitUntilDurable: the default returns")
  func defaultImplementation() throws {
    let sink: any LogSink = RecordingSink()
    try sink.write(counterRecord(1))
    try sink.waitUntilDurable()
    #expect((sink as? RecordingSink)?.records.count == 1)
  }

  @Test(
    "a failed fsync fails the leader, the callers it covered, and every later write",
    .timeLimit(.minutes(1)))
  func failedSync() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let sync = GatedSync(failing: EIO)
    let sink = FileLogSink(
      path: path, durability: .everyEntry, chained: true, synchronize: sync.synchronize)
    let failed = LogSinkError.syncFailed(path: path, reason: String(cString: strerror(EIO)))
    let outcomes = Locked<[String]>([])
    let group = DispatchGroup()
    startThreads(1, group) { _ in
      do {
        try sink.append(counterRecord(1))
        try sink.waitUntilDurable()
        outcomes.withLock { $0.append("leader returned") }
      } catch {
        outcomes.withLock { $0.append("leader: \(error)") }
      }
    }
    sync.entered.wait()
    let written = DispatchSemaphore(value: 0)
    startThreads(1, group) { _ in
      do {
        try sink.append(counterRecord(2))
        written.signal()
        try sink.waitUntilDurable()
        outcomes.withLock { $0.append("follower returned") }
      } catch {
        outcomes.withLock { $0.append("follower: \(error)") }
      }
    }
    written.wait()
    sync.open()
    group.wait()
    #expect(outcomes.withLock { $0.sorted() } == ["follower: \(failed)", "leader: \(failed)"])
    // After a failed fsync nothing written since can be trusted: the sink stops.
    #expect(throws: failed) { try sink.write(counterRecord(3)) }
    #expect(throws: failed) { try sink.waitUntilDurable() }
    #expect(throws: failed) { try sink.flush() }
    #expect(sync.count == 1)
    #expect(try readLines(path).count == 2)
  }
}
