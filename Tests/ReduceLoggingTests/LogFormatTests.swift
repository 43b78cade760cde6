import Reduce
import ReduceLogging
import Testing

@Suite struct LogFormatTests {
  func logger(_ format: LogFormat, _ sink: RecordingSink, diff: Bool = true)
    -> LoggingMiddleware<CounterState>
  {
    LoggingMiddleware<CounterState>(
      format: format, sink: sink, includesStateDiff: diff, clock: SteppingClock(),
      now: { fixedDate })
  }

  @Test("compact text is one line: number, time, type, payload, outcome, duration, changes")
  func compact() throws {
    let sink = RecordingSink()
    let store = try makeCounterStore(logger(.text(style: .compact), sink))
    store.dispatch(CounterAction.incremented(by: 2))
    #expect(
      sink.lines == [
        #"#1 2024-05-01T12:00:00.000Z CounterAction {"incremented":{"by":2}} ok 0.250ms | count: 0 -> 2"#
      ])
  }

  @Test("expanded text puts the payload, outcome, duration and each change on their own lines")
  func expanded() throws {
    let sink = RecordingSink()
    let store = try makeCounterStore(logger(.text(style: .expanded), sink))
    store.dispatch(CounterAction.incremented(by: 2))
    store.dispatch(Note(text: "hi"))
    #expect(
      sink.lines == [
        """
        #1 2024-05-01T12:00:00.000Z CounterAction
          payload: {"incremented":{"by":2}}
          outcome: ok
          duration: 0.250ms
          changes:
            count: 0 -> 2
        """,
        """
        #2 2024-05-01T12:00:00.000Z Note
          payload: Note(text: "hi")
          outcome: ok
          duration: 0.250ms
          changes:
            history[0]: + 2
        """,
      ])
  }

  @Test("JSON lines carry seq, ts, action, payload, outcome, durationNs and changes, in order")
  func jsonLines() throws {
    let sink = RecordingSink()
    let store = try makeCounterStore(logger(.jsonLines, sink))
    store.dispatch(CounterAction.incremented(by: 2))
    #expect(
      sink.lines == [
        #"{"seq":1,"ts":"2024-05-01T12:00:00.000Z","action":"CounterAction","payload":{"incremented":{"by":2}},"outcome":"ok","durationNs":250000,"changes":[{"path":"count","old":"0","new":"2"}]}"#
      ])
  }

  @Test("an action that is not Encodable has no payload in JSON lines, only its type")
  func jsonWithoutPayload() throws {
    let sink = RecordingSink()
    let store = try makeCounterStore(logger(.jsonLines, sink, diff: false))
    store.dispatch(Note(text: "hi"))
    #expect(
      sink.lines == [
        #"{"seq":1,"ts":"2024-05-01T12:00:00.000Z","action":"Note","outcome":"ok","durationNs":250000}"#
      ])
  }

  @Test("a failed dispatch is logged with its error and rethrown unchanged")
  func failure() throws {
    let sink = RecordingSink()
    let store = try makeCounterStore(logger(.text(style: .compact), sink))
    let result = store.dispatch(CounterAction.failed)
    guard case .failure(.reducerFailed(let key, _, _)) = result else {
      Issue.record("expected a reducer failure, got \(result)")
      return
    }
    #expect(key == "\\CounterState.count")
    #expect(
      sink.lines == [
        #"#1 2024-05-01T12:00:00.000Z CounterAction {"failed":{}} failed: mutator '\CounterState.count' threw counter overflow 0.250ms"#
      ])
    #expect(sink.entries.first?.outcome.isSuccess == false)
  }

  @Test("a batch is one entry whose payload lists its actions")
  func batch() throws {
    let sink = RecordingSink()
    let store = try makeCounterStore(logger(.jsonLines, sink, diff: false))
    store.dispatch(Batch([CounterAction.incremented(by: 1), Note(text: "x")]))
    #expect(sink.entries.count == 1)
    #expect(
      sink.entries.first?.payload
        == .json(
          #"[{"action":"CounterAction","payload":{"incremented":{"by":1}}},{"action":"Note"}]"#))
  }

  @Test("without the state diff, entries have no changes")
  func withoutDiff() throws {
    let sink = RecordingSink()
    let store = try makeCounterStore(logger(.text(style: .compact), sink, diff: false))
    store.dispatch(CounterAction.incremented(by: 2))
    #expect(sink.entries.first?.changes == nil)
    #expect(sink.lines.first?.hasSuffix("ok 0.250ms") == true)
  }

  @Test("sequence numbers count the logged actions from 1")
  func sequence() throws {
    let sink = RecordingSink()
    let store = try makeCounterStore(logger(.jsonLines, sink))
    for _ in 0..<3 { store.dispatch(CounterAction.incremented(by: 1)) }
    #expect(sink.entries.map(\.sequence) == [1, 2, 3])
  }

  @Test("a JSON line reads back as an audit entry with the same fields")
  func readBack() throws {
    let sink = RecordingSink()
    let store = try makeCounterStore(logger(.jsonLines, sink))
    store.dispatch(CounterAction.incremented(by: 2))
    let line = try #require(sink.lines.first)
    let entry = try AuditLog.Entry(parsing: line, line: 1)
    #expect(entry.sequence == 1)
    #expect(entry.timestamp == fixedDate)
    #expect(entry.action == "CounterAction")
    #expect(entry.payload == #"{"incremented":{"by":2}}"#)
    #expect(entry.succeeded)
    #expect(entry.duration == .microseconds(250))
    #expect(entry.changes == [LogEntry.Change(path: "count", old: "0", new: "2")])
  }
}
