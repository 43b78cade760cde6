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

/// A flush that records how much of the file it made durable: the file's size when `fsync` was
/// called, once it returns.
final class MeasuredSync: Sendable {
  private let durable = Locked<Int64>(0)

  /// The file's size at the start of the last `fsync` that succeeded.
  var durableBytes: Int64 { durable.withLock { $0 } }

  func synchronize(_ descriptor: Int32) -> Int32 {
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return errno }
    guard fsync(descriptor) == 0 else { return errno }
    durable.withLock { $0 = max($0, Int64(info.st_size)) }
    return 0
  }
}

@Suite struct GroupCommitGatheringTests {
  @Test(
    "concurrent durable dispatches return only once their own entries are on disk",
    .timeLimit(.minutes(1)))
  func dispatchesReturnDurable() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let sync = MeasuredSync()
    let sink = FileLogSink(
      path: path, durability: .everyEntry, chained: true, synchronize: sync.synchronize)
    let store = try makeVault(AuditTrail(sink: sink))
    let threads = 8
    let steps = 20
    let problems = Locked<[String]>([])
    let group = DispatchGroup()
    startThreads(threads, group) { thread in
      for step in 0..<steps {
        let account = "t\(thread)-\(step)"
        store.dispatch(VaultAction.deposited(account: account, amount: 1))
        // What the last finished fsync covered must hold this dispatch's entry.
        let durable = sync.durableBytes
        let handle = FileHandle(forReadingAtPath: path)
        let prefix = (try? handle?.read(upToCount: Int(durable))) ?? nil
        try? handle?.close()
        let text = prefix.map { String(decoding: $0, as: UTF8.self) } ?? ""
        if !text.contains(#""account":"\#(account)""#) {
          problems.withLock { $0.append("\(account) returned before its entry was on disk") }
        }
      }
    }
    group.wait()
    #expect(problems.withLock { $0 } == [])
    #expect(store.state.balances.count == threads * steps)
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == threads * steps)
    #expect(sink.syncCount <= threads * steps)
    #expect(sink.waitingCallers == 0)
  }

  @Test("a single writer never waits for a group: one flush per entry, none gathered")
  func singleWriter() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let sink = FileLogSink(path: path, durability: .everyEntry, chained: true)
    for step in 0..<20 {
      let end = try sink.append(counterRecord(step))
      try sink.waitUntilDurable()
      #expect(sink.durableSize >= end)
    }
    #expect(sink.syncCount == 20)
    #expect(sink.gatheredFlushes == 0)
    #expect(sink.waitingCallers == 0)
  }

  @Test(
    "the flush after a shared one waits for the writers it released, and a lone writer left waits for a group at most once",
    .timeLimit(.minutes(1)))
  func gathersOnceForPhantoms() throws {
    // The first flush blocks at the gate while two more writers join.
    let held = HeldFlush()
    defer { removeLog(held.path) }
    let (path, sync, sink, group, problems) = (
      held.path, held.sync, held.sink, held.group, held.problems
    )
    startThreads(2, group) { index in
      writeDurably(sink, step: index + 1, as: "\(index)", problems: problems)
    }
    while sink.waitingCallers < 3 { sched_yield() }
    sync.open()
    group.wait()
    #expect(problems.withLock { $0 } == [])
    // Three callers waited when the first flush ended: the next one waited for the third,
    // which did not come back, until its deadline, and covered the other two.
    #expect(sink.syncCount == 2)
    #expect(sink.gatheredFlushes == 1)
    // Two waited when that one ended: a lone writer now waits for a group once, then never.
    let clock = ContinuousClock()
    for step in 0..<5 {
      let elapsed = try clock.measure {
        try sink.append(counterRecord(10 + step))
        try sink.waitUntilDurable()
      }
      #expect(elapsed < .seconds(1))
    }
    #expect(sink.gatheredFlushes == 2)
    #expect(sink.syncCount == 7)
    #expect(sink.durableSize == sink.writtenSize)
    #expect(sink.waitingCallers == 0)
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == 8)
  }
}
