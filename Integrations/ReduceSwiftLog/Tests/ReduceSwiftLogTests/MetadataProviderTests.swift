import Logging
import Reduce
import ReduceLogging
import ReduceSwiftLog
import Testing

/// The sink is called in the dispatching task, so a metadata provider that reads a task-local
/// value gives each entry its dispatcher's value.
@Suite struct MetadataProviderTests {
  @Test("a task-local request id reaches the entry of a synchronous dispatch")
  func synchronousDispatch() throws {
    let (logger, recorder) = recordingLogger(metadataProvider: requestIDProvider)
    let store = try loggedStore(.logger(logger))
    RequestContext.$id.withValue("req-1") {
      store.dispatch(Deposit(account: "ada", amount: 1))
    }
    store.dispatch(Deposit(account: "ada", amount: 2))
    let events = recorder.events
    #expect(events.map { $0["request.id"] } == ["req-1", nil])
    #expect(events.first?[SwiftLogSink.MetadataKey.sequence] == "1")
  }

  @Test("a task-local request id reaches the entry of an awaited send")
  func asynchronousSend() async throws {
    let (logger, recorder) = recordingLogger(metadataProvider: requestIDProvider)
    let store = try loggedStore(.logger(logger))
    _ = try await RequestContext.$id.withValue("req-async") {
      try await store.send(Deposit(account: "ada", amount: 1)).get()
    }
    #expect(recorder.events.map { $0["request.id"] } == ["req-async"])
  }

  @Test("a failure is logged with its dispatcher's request id")
  func failureCarriesRequest() throws {
    let (logger, recorder) = recordingLogger(metadataProvider: requestIDProvider)
    let store = try loggedStore(.logger(logger))
    RequestContext.$id.withValue("req-overdraft") {
      store.dispatch(Withdraw(account: "ada", amount: 1))
    }
    let event = try #require(recorder.events.first)
    #expect(event.level == .error)
    #expect(event["request.id"] == "req-overdraft")
  }

  /// Each of several contending dispatchers logs with its own request id.
  ///
  /// The store promises (DESIGN.md, "Observing") that an action's middleware sees its
  /// dispatcher's task-local values. When dispatches contend, the store of this writing runs a
  /// queued dispatch on the thread that holds its turn, with that thread's task-local values:
  /// a known issue of the core, recorded here, that this test will report as fixed (an
  /// intermittent known issue that no longer occurs is not a failure: drop the wrapper then).
  @Test(
    "concurrent dispatchers each see their own request id", .timeLimit(.minutes(1)))
  func concurrentDispatchers() async throws {
    let (logger, recorder) = recordingLogger(metadataProvider: requestIDProvider)
    let store = try loggedStore(.logger(logger))
    let requests = 8
    let perRequest = 25
    await withTaskGroup(of: Void.self) { group in
      for request in 0..<requests {
        group.addTask {
          await RequestContext.$id.withValue("req-\(request)") {
            for _ in 0..<perRequest {
              _ = await store.send(Deposit(account: "acct-\(request)", amount: 1))
            }
          }
        }
      }
    }
    let events = recorder.events
    #expect(events.count == requests * perRequest)
    #expect(Set(events.compactMap { $0[Key.sequence] }).count == events.count)
    #expect(events.allSatisfy { $0["request.id"] != nil })
    // The account names the request that deposited into it.
    let mismatched = events.filter { event in
      let number = event["request.id"]?.dropFirst("req-".count) ?? ""
      return event[Key.payload]?.contains(#""account":"acct-\#(number)""#) != true
    }
    // Each dispatch runs in its own task, with its task-local values, under contention too.
    #expect(
      mismatched.count == 0,
      "\(mismatched.count) of \(events.count) entries logged another request's id")
  }

  @Test("the provider's keys and the entry's keys both appear; the entry's win a clash")
  func providerAndEntryKeys() throws {
    let provider = Logger.MetadataProvider {
      ["trace.id": "t-9", SwiftLogSink.MetadataKey.outcome: "provider"]
    }
    let (logger, recorder) = recordingLogger(metadataProvider: provider)
    let store = try loggedStore(.logger(logger))
    store.dispatch(Deposit(account: "ada", amount: 1))
    let event = try #require(recorder.events.first)
    #expect(event["trace.id"] == "t-9")
    #expect(event[SwiftLogSink.MetadataKey.outcome] == "ok")
  }

  @Test("a filtered entry does not ask the metadata provider")
  func filteredEntrySkipsProvider() throws {
    let asked = Guarded(0)
    let provider = Logger.MetadataProvider {
      asked.withLock { $0 += 1 }
      return [:]
    }
    let (logger, recorder) = recordingLogger(level: .error, metadataProvider: provider)
    let store = try loggedStore(.logger(logger))
    store.dispatch(Deposit(account: "ada", amount: 1))
    #expect(recorder.events.isEmpty)
    #expect(asked.withLock { $0 } == 0)
    store.dispatch(Withdraw(account: "ada", amount: 5))
    #expect(recorder.events.count == 1)
    #expect(asked.withLock { $0 } == 1)
  }
}
