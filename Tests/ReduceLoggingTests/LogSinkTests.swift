import Foundation
import Reduce
import ReduceLogging
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

struct DiskFull: Error {}

/// A sink that always fails.
struct FailingSink: LogSink {
  func write(_ record: LogRecord) throws {
    throw DiskFull()
  }
}

/// A pipe whose ends are closed when it goes away.
final class Pipe: Sendable {
  let readEnd: Int32
  let writeEnd: Int32

  init() throws {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
    readEnd = ends[0]
    writeEnd = ends[1]
  }

  deinit {
    close(readEnd)
    close(writeEnd)
  }

  func read(count: Int) -> String {
    var buffer = [UInt8](repeating: 0, count: count)
    let got = buffer.withUnsafeMutableBytes { readDescriptor(readEnd, $0.baseAddress, count) }
    return String(decoding: buffer.prefix(max(got, 0)), as: UTF8.self)
  }
}

private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int)
  -> Int
{
  read(descriptor, buffer, count)
}

/// A sink that fails or succeeds by a schedule, then succeeds.
final class ScheduledSink: LogSink {
  private let schedule: Mutex<[Bool]>

  init(failures: [Bool]) {
    schedule = Mutex(failures)
  }

  func write(_ record: LogRecord) throws {
    let fails = schedule.withLock { $0.isEmpty ? false : $0.removeFirst() }
    if fails { throw DiskFull() }
  }
}

@Suite struct LogSinkTests {
  @Test(
    "a failing sink is reported on the store's errors and the dispatch still succeeds",
    .timeLimit(.minutes(1)))
  func failureReported() async throws {
    let store = try makeCounterStore(LoggingMiddleware(sink: FailingSink()))
    var errors = store.errors.makeAsyncIterator()
    let result = store.dispatch(CounterAction.incremented(by: 1))
    #expect((try? result.get())?.count == 1)
    let error = try #require(await errors.next())
    guard case .middlewareFailed(name: "LoggingMiddleware", _, let underlying) = error else {
      Issue.record("expected middlewareFailed, got \(error)")
      return
    }
    #expect(underlying is DiskFull)
  }

  @Test("a sink that keeps failing is reported once per run of failures")
  func reportedOncePerRun() throws {
    let reports = Mutex(0)
    let store = try Store(
      initialState: CounterState(), mutators: [counterMutator],
      middleware: [
        LoggingMiddleware<CounterState>(
          sink: ScheduledSink(failures: [true, true, false, true, true]))
      ],
      fallback: { _ in
        reports.withLock { $0 += 1 }
        return nil
      })
    for _ in 0..<5 { store.dispatch(CounterAction.incremented(by: 1)) }
    #expect(reports.withLock { $0 } == 2)
    #expect(store.state.count == 5)
  }

  @Test("a fallback action for a sink failure does not make dispatch loop")
  func fallbackDoesNotLoop() throws {
    let fallbacks = Mutex(0)
    let store = try Store(
      initialState: CounterState(), mutators: [counterMutator, historyMutator],
      middleware: [LoggingMiddleware<CounterState>(sink: FailingSink())],
      fallback: { _ in
        fallbacks.withLock { $0 += 1 }
        return Note(text: "log failed")
      })
    store.dispatch(CounterAction.incremented(by: 1))
    #expect(fallbacks.withLock { $0 } == 1)
    #expect(store.state.history == [10])
  }

  @Test("a stream sink writes each entry and a newline to its descriptor")
  func stream() throws {
    let pipe = try Pipe()
    let store = try makeCounterStore(
      LoggingMiddleware(
        format: .jsonLines, sink: StreamLogSink(fileDescriptor: pipe.writeEnd),
        includesStateDiff: false, now: { fixedDate }))
    store.dispatch(Note(text: "a"))
    let text = pipe.read(count: 4096)
    #expect(
      text.hasPrefix(
        #"{"seq":1,"ts":"2024-05-01T12:00:00.000Z","action":"Note","outcome":"ok","durationNs":"#))
    #expect(text.hasSuffix("}\n"))
  }

  @Test(
    "a stream nobody reads times out instead of blocking the dispatch",
    .timeLimit(.minutes(1)))
  func streamTimeout() throws {
    let pipe = try Pipe()
    let sink = StreamLogSink(fileDescriptor: pipe.writeEnd, writeTimeout: .milliseconds(20))
    let record = LogRecord(
      entry: LogEntry(
        sequence: 1, timestamp: fixedDate, action: "Filler",
        payload: .description(String(repeating: "x", count: 8000)), outcome: .ok,
        duration: .zero, changes: nil),
      format: .text(style: .compact))
    // A pipe holds 64 KiB on Linux; the ninth 8 KB entry cannot fit.
    let error = try #require(throws: LogSinkError.self) {
      for _ in 0..<1000 { try sink.write(record) }
    }
    #expect(error == .writeTimedOut(fileDescriptor: pipe.writeEnd))
  }

  @Test("a file that cannot be created makes the store refuse the logger")
  func unwritablePath() throws {
    let path = "/nonexistent-directory-\(UUID().uuidString)/audit.log"
    let error = try #require(throws: RegistrationError.self) {
      try makeCounterStore(LoggingMiddleware(format: .jsonLines, sink: .file(path: path)))
    }
    guard case .middlewareRefused(name: "LoggingMiddleware", let reason) = error else {
      Issue.record("expected the middleware to refuse, got \(error)")
      return
    }
    #expect(reason.contains(path))
  }

  @Test(
    "a full disk is reported as a write failure of the file",
    .enabled(if: FileManager.default.fileExists(atPath: "/dev/full")), .timeLimit(.minutes(1)))
  func diskFull() async throws {
    let store = try makeCounterStore(
      LoggingMiddleware(format: .jsonLines, sink: .file(path: "/dev/full")))
    var errors = store.errors.makeAsyncIterator()
    store.dispatch(CounterAction.incremented(by: 1))
    let error = try #require(await errors.next())
    guard case .middlewareFailed(_, _, let underlying) = error,
      case .writeFailed(path: "/dev/full", _)? = underlying as? LogSinkError
    else {
      Issue.record("expected a write failure of /dev/full, got \(error)")
      return
    }
    #expect(store.state.count == 1)
  }

  @Test("sinks of one file in one process share its writer, so the chain stays whole")
  func sharedWriter() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let first = try makeCounterStore(
      LoggingMiddleware(format: .jsonLines, sink: .file(path: path, chained: true)))
    let second = try makeCounterStore(
      LoggingMiddleware(format: .jsonLines, sink: .file(path: path, chained: true)))
    first.dispatch(CounterAction.incremented(by: 1))
    second.dispatch(CounterAction.incremented(by: 2))
    first.dispatch(CounterAction.incremented(by: 3))
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == 3)
  }

  @Test("one file cannot be opened chained and not chained in one process")
  func conflictingOptions() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let chained = try makeCounterStore(
      LoggingMiddleware(format: .jsonLines, sink: .file(path: path, chained: true)))
    #expect(throws: RegistrationError.self) {
      try makeCounterStore(LoggingMiddleware(format: .jsonLines, sink: .file(path: path)))
    }
    withExtendedLifetime(chained) {}
  }
}
