import Foundation
import Reduce
import Testing

@testable import ReduceLogging

/// A middleware that keeps back the actions of one type, to be passed on later with ``release()``.
final class Deferrer<State: Sendable>: Middleware, Sendable {
  private let kept = Locked<[(any Action, Next<State>)]>([])

  func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>) throws {
    guard action is Note else { return try next(action) }
    kept.withLock { $0.append((action, next)) }
  }

  /// Passes the kept actions on, each as a dispatch of its own.
  func release() {
    for (action, next) in kept.withLock({ $0 }) { try? next(action) }
  }
}

/// A sink that notes which thread wrote each entry and which thread waited for durability.
///
/// `Locked`, not `Mutex`: ThreadSanitizer does not see a contended `Mutex` wait on Linux.
final class ThreadNotingSink: LogSink {
  private let notes = Locked<(writes: [UInt: Int], waits: [UInt: Int])>(([:], [:]))

  var writes: [UInt: Int] { notes.withLock { $0.writes } }
  var waits: [UInt: Int] { notes.withLock { $0.waits } }

  func write(_ record: LogRecord) {
    let thread = currentThread
    notes.withLock { $0.writes[thread, default: 0] += 1 }
  }

  func waitUntilDurable() {
    let thread = currentThread
    notes.withLock { $0.waits[thread, default: 0] += 1 }
  }

  var defersDurability: Bool { true }

  private var currentThread: UInt {
    #if canImport(Darwin)
      UInt(bitPattern: pthread_self())
    #else
      UInt(pthread_self())
    #endif
  }
}

/// A sink whose waits for durability fail.
final class UnflushableSink: LogSink {
  let recorded = RecordingSink()

  func write(_ record: LogRecord) { recorded.write(record) }

  func waitUntilDurable() throws { throw DiskFull() }

  var defersDurability: Bool { true }
}

@Suite struct CommitObserverLoggingTests {
  @Test("a batch whose action fails is one logged entry, the batch's, with the action's error")
  func loggedFailingBatch() throws {
    let sink = RecordingSink()
    let store = try makeCounterStore(
      LoggingMiddleware(sink: sink, clock: SteppingClock(), now: { fixedDate }))
    let result = store.dispatch(
      Batch([CounterAction.incremented(by: 1), CounterAction.failed, Note(text: "x")]))
    #expect(throws: DispatchError.self) { try result.get() }
    #expect(store.state == CounterState())
    #expect(sink.entries.map(\.action) == ["Batch"])
    guard case .failed(.reducerFailed(let key, _, _)) = sink.entries.first?.outcome else {
      Issue.record("expected the batch's entry to carry the reducer's failure")
      return
    }
    #expect(key == "\\CounterState.count")
  }

  @Test("an action no mutator handles is logged, with no changes")
  func loggedUnhandled() throws {
    let sink = RecordingSink()
    let store = try Store(
      initialState: CounterState(), mutators: [counterMutator],
      middleware: [LoggingMiddleware<CounterState>(sink: sink)])
    store.dispatch(Note(text: "nobody handles it"))
    #expect(sink.entries.map(\.action) == ["Note"])
    #expect(sink.entries.first?.changes == [])
    #expect(sink.entries.first?.outcome.isSuccess == true)
  }

  @Test("an action passed on late by a later middleware is logged when it commits, untimed")
  func loggedLate() throws {
    let sink = RecordingSink()
    let deferrer = Deferrer<CounterState>()
    let store = try Store(
      initialState: CounterState(), mutators: [counterMutator, historyMutator],
      middleware: [
        LoggingMiddleware<CounterState>(sink: sink, clock: SteppingClock()), deferrer,
      ])
    store.dispatch(Note(text: "later"))
    #expect(sink.entries.isEmpty)
    deferrer.release()
    #expect(store.state.history == [5])
    #expect(sink.entries.map(\.action) == ["Note"])
    #expect(sink.entries.first?.duration == .zero)
    #expect(sink.entries.first?.changes?.map(\.description) == ["history[0]: + 5"])
  }

  @Test("a failed wait for durability is published, and the dispatch still succeeds")
  func loggedUnflushable() async throws {
    let sink = UnflushableSink()
    let store = try makeCounterStore(LoggingMiddleware(sink: sink))
    var errors = store.errors.makeAsyncIterator()
    #expect((try? store.dispatch(CounterAction.incremented(by: 1)).get())?.count == 1)
    let error = try #require(await errors.next())
    #expect(error.underlying is DiskFull)
    #expect(sink.recorded.entries.count == 1)
  }

  @Test("a batch whose action fails is one recorded entry, the batch's, failed, with no mutators")
  func auditedFailingBatch() throws {
    let sink = FlakySink()
    let store = try makeVault(AuditTrail(sink: sink))
    store.dispatch(VaultAction.deposited(account: "ada", amount: 10))
    let result = store.dispatch(
      Batch([
        VaultAction.deposited(account: "bob", amount: 5),
        VaultAction.withdrew(account: "ada", amount: 11),
      ]))
    #expect(throws: DispatchError.self) { try result.get() }
    #expect(store.state.balances == ["ada": 10])
    #expect(sink.recorded.entries.map(\.action) == ["VaultAction", "Batch"])
    let last = try #require(sink.recorded.entries.last)
    #expect(!last.outcome.isSuccess && last.mutators == nil)
    #expect(sink.waits.withLock { $0 } == 2)
  }

  @Test("an action passed on late by a later middleware is recorded when it commits")
  func auditedLate() throws {
    let sink = FlakySink()
    let deferrer = Deferrer<CounterState>()
    let store = try Store(
      initialState: CounterState(), mutators: [counterMutator, historyMutator],
      middleware: [AuditTrail<CounterState>(sink: sink), deferrer])
    store.dispatch(Note(text: "later"))
    #expect(sink.recorded.entries.isEmpty)
    deferrer.release()
    #expect(sink.recorded.entries.map(\.action) == ["Note"])
    #expect(sink.recorded.entries.first?.mutators?.count == 1)
    #expect(sink.waits.withLock { $0 } == 1)
  }

  @Test("a dispatch the trail does not record does not wait for durability")
  func unrecordedDoesNotWait() throws {
    let sink = FlakySink()
    let store = try makeVault(
      AuditTrail(sink: sink, filter: { ($0 as? VaultAction) != .withdrew(account: "x", amount: 0) })
    )
    store.dispatch(VaultAction.withdrew(account: "x", amount: 0))
    #expect(sink.recorded.entries.isEmpty)
    #expect(sink.waits.withLock { $0 } == 0)
    store.dispatch(VaultAction.deposited(account: "ada", amount: 1))
    #expect(sink.waits.withLock { $0 } == 1)
  }

  @Test("each dispatching thread waits for durability once per entry it wrote, 8 threads at once")
  func waitsOnTheWritingThread() throws {
    let sink = ThreadNotingSink()
    let store = try makeVault(AuditTrail(sink: sink))
    let done = DispatchGroup()
    for index in 0..<8 {
      done.enter()
      Thread {
        for step in 0..<200 {
          store.dispatch(VaultAction.deposited(account: "t\(index)", amount: step))
        }
        done.leave()
      }.start()
    }
    done.wait()
    #expect(sink.writes.values.reduce(0, +) == 1_600)
    #expect(sink.writes == sink.waits)
  }
}
