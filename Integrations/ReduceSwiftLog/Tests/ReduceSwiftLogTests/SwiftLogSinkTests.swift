import Foundation
import Logging
import Reduce
import ReduceLogging
import Testing

@testable import ReduceSwiftLog

/// A ledger store whose logging middleware writes to `sink`, measuring 250 µs per dispatch.
func loggedStore(_ sink: SwiftLogSink) throws -> Store<Ledger> {
  try Store(
    initialState: Ledger(), mutators: [balances, owner],
    middleware: [
      LoggingMiddleware<Ledger>(sink: sink, clock: SteppingClock(step: .microseconds(250)))
    ])
}

@Suite struct SwiftLogSinkTests {
  @Test("a success is one info event: the action's type name, with its entry as metadata")
  func success() throws {
    let (logger, recorder) = recordingLogger()
    let store = try loggedStore(SwiftLogSink(logger: logger))
    _ = try store.dispatch(Deposit(account: "ada", amount: 100)).get()

    let event = try #require(recorder.events.first)
    #expect(recorder.events.count == 1)
    #expect(event.level == .info)
    #expect(event.message == "Deposit")
    #expect(event.error == nil)
    #expect(event[Key.sequence] == "1")
    #expect(event[Key.outcome] == "ok")
    #expect(event[Key.durationNanoseconds] == "250000")
    #expect(event[Key.payload] == #"{"account":"ada","amount":100}"#)
    #expect(event[Key.changeCount] == "1")
    #expect(event.array(Key.changedPaths) == [#"balances["ada"]"#])
    #expect(event[Key.mutators] == nil)
    #expect(
      Set(event.metadata.keys) == [
        Key.sequence, Key.outcome, Key.durationNanoseconds, Key.payload, Key.changeCount,
        Key.changedPaths,
      ])
  }

  @Test("a failure is an error event carrying the dispatch error")
  func failure() throws {
    let (logger, recorder) = recordingLogger()
    let store = try loggedStore(SwiftLogSink(logger: logger))
    store.dispatch(Deposit(account: "ada", amount: 10))
    let result = store.dispatch(Withdraw(account: "ada", amount: 50))
    guard case .failure(let error) = result else {
      Issue.record("the overdraft succeeded: \(result)")
      return
    }

    let events = recorder.events
    #expect(events.map(\.level) == [.info, .error])
    let event = try #require(events.last)
    #expect(event.message == "Withdraw")
    #expect(event[Key.sequence] == "2")
    #expect(event[Key.outcome] == "failed")
    // The error is the event's, not a metadata value too; a failure changed nothing, so the
    // logger made no diff of it.
    #expect(
      Set(event.metadata.keys) == [
        Key.sequence, Key.outcome, Key.durationNanoseconds, Key.payload,
      ])
    #expect(event.error?.contains("overdraft on ada") == true)
    #expect(event.error == error.description)
    #expect(event[Key.payload] == #"{"account":"ada","amount":50}"#)
    #expect(event[Key.changeCount] == nil)
    #expect(event.array(Key.changedPaths) == nil)
  }

  @Test(
    "the levels of successes and failures are the sink's",
    arguments: [(Logger.Level.debug, Logger.Level.warning), (.notice, .critical), (.trace, .info)])
  func levels(success: Logger.Level, failure: Logger.Level) throws {
    let (logger, recorder) = recordingLogger()
    let store = try loggedStore(
      SwiftLogSink(logger: logger, successLevel: success, failureLevel: failure))
    store.dispatch(Deposit(account: "ada", amount: 1))
    store.dispatch(Withdraw(account: "ada", amount: 5))
    #expect(recorder.events.map(\.level) == [success, failure])
  }

  @Test("the sink made with .logger(_:) has the default levels or the given ones")
  func staticConstructor() {
    let (logger, _) = recordingLogger()
    let plain: SwiftLogSink = .logger(logger)
    #expect(plain.successLevel == .info)
    #expect(plain.failureLevel == .error)
    #expect(plain.maximumChangedPaths == 20)
    let chosen: SwiftLogSink = .logger(logger, successLevel: .debug, failureLevel: .warning)
    #expect(chosen.successLevel == .debug)
    #expect(chosen.failureLevel == .warning)
  }

  @Test("an entry below the logger's level is not logged, and its metadata is not built")
  func levelFiltering() throws {
    let (logger, recorder) = recordingLogger(level: .warning)
    let builds = Guarded(0)
    let sink = SwiftLogSink(
      logger: logger, successLevel: .info, failureLevel: .error, maximumChangedPaths: 20,
      metadataWillBuild: { builds.withLock { $0 += 1 } })
    let store = try loggedStore(sink)
    for amount in 1...5 { store.dispatch(Deposit(account: "ada", amount: amount)) }
    #expect(recorder.events.isEmpty)
    #expect(builds.withLock { $0 } == 0)

    store.dispatch(Withdraw(account: "ada", amount: 1_000))
    #expect(recorder.events.map(\.level) == [.error])
    #expect(recorder.events.first?[Key.sequence] == "6")
    #expect(builds.withLock { $0 } == 1)
  }

  @Test("a logger at the entry's level logs it: the level is a minimum")
  func levelBoundary() throws {
    let (logger, recorder) = recordingLogger(level: .info)
    let store = try loggedStore(SwiftLogSink(logger: logger))
    store.dispatch(Deposit(account: "ada", amount: 1))
    #expect(recorder.events.count == 1)
  }

  @Test("the logger's own metadata is kept, and the entry's keys do not replace it")
  func loggerMetadata() throws {
    var (logger, recorder) = recordingLogger()
    logger[metadataKey: "store"] = "ledger"
    logger[metadataKey: "seq"] = "mine"
    let store = try loggedStore(SwiftLogSink(logger: logger))
    store.dispatch(Deposit(account: "ada", amount: 1))
    let event = try #require(recorder.events.first)
    #expect(event["store"] == "ledger")
    #expect(event["seq"] == "mine")
    #expect(event[Key.sequence] == "1")
  }

  @Test("a redacted field stays redacted in the payload, and its value in no metadata")
  func redaction() throws {
    let (logger, recorder) = recordingLogger()
    let store = try loggedStore(SwiftLogSink(logger: logger))
    store.dispatch(ClaimLedger(name: "ada", apiToken: "f00dcafe"))
    let event = try #require(recorder.events.first)
    #expect(event[Key.payload] == #"{"apiToken":"<redacted>","name":"ada"}"#)
    #expect(event.array(Key.changedPaths) == ["owner"])
    for (key, value) in event.metadata {
      #expect(!"\(value)".contains("f00dcafe"), "\(key) shows the token")
    }
    #expect(!event.message.contains("f00dcafe"))
  }

  @Test("the changed paths are listed up to the maximum; the count is whole")
  func changedPathLimit() throws {
    let (logger, recorder) = recordingLogger()
    let store = try loggedStore(SwiftLogSink(logger: logger, maximumChangedPaths: 2))
    store.dispatch(Spread(amounts: ["ada": 1, "bo": 2, "cy": 3]))
    let event = try #require(recorder.events.first)
    #expect(event[Key.changeCount] == "3")
    #expect(event.array(Key.changedPaths) == [#"balances["ada"]"#, #"balances["bo"]"#])
  }

  @Test("a negative maximum of changed paths lists none")
  func negativePathLimit() throws {
    let (logger, recorder) = recordingLogger()
    let sink = SwiftLogSink(logger: logger, maximumChangedPaths: -3)
    #expect(sink.maximumChangedPaths == 0)
    let store = try loggedStore(sink)
    store.dispatch(Deposit(account: "ada", amount: 1))
    let event = try #require(recorder.events.first)
    #expect(event[Key.changeCount] == "1")
    #expect(event.array(Key.changedPaths) == [])
  }

  @Test("an entry without a diff or payload has no keys for them")
  func sparseEntry() throws {
    let (logger, recorder) = recordingLogger()
    let store = try Store(
      initialState: Ledger(), mutators: [balances],
      middleware: [
        LoggingMiddleware<Ledger>(
          format: .jsonLines, sink: .logger(logger), includesStateDiff: false)
      ])
    store.dispatch(ReplaceState(Ledger(balances: ["ada": 3])))
    let event = try #require(recorder.events.first)
    #expect(event.message == "ReplaceState<Ledger>")
    #expect(Set(event.metadata.keys) == [Key.sequence, Key.outcome, Key.durationNanoseconds])
  }

  @Test("an entry's description payload is logged as it is")
  func descriptionPayload() {
    let (logger, recorder) = recordingLogger()
    let entry = LogEntry(
      sequence: 7, timestamp: Date(timeIntervalSince1970: 0), action: "Note",
      payload: .description(#"Note(text: "hi")"#), outcome: .ok, duration: .milliseconds(2),
      changes: nil, mutators: ["\\App.notes"])
    SwiftLogSink(logger: logger).write(LogRecord(entry: entry, format: .text(style: .compact)))
    let event = recorder.events.first
    #expect(event?.message == "Note")
    #expect(event?[Key.payload] == #"Note(text: "hi")"#)
    #expect(event?[Key.sequence] == "7")
    #expect(event?[Key.durationNanoseconds] == "2000000")
    #expect(event?.array(Key.mutators) == [#"\App.notes"#])
  }

  @Test(
    "durations are whole nanoseconds, saturated at Int64's bounds",
    arguments: [
      (Duration.zero, Int64(0)), (.nanoseconds(31_000), 31_000),
      (.seconds(2) + .nanoseconds(5), 2_000_000_005), (.nanoseconds(-7), -7),
      (.seconds(Int64.max), .max), (.seconds(Int64.min), .min),
    ])
  func nanoseconds(duration: Duration, expected: Int64) {
    #expect(SwiftLogSink.nanoseconds(of: duration) == expected)
  }
}
