import Reduce
import Testing

// The `Journal` of Guides/WritingMiddleware.md ("Before a change commits, and before the
// dispatch returns"), with an in-memory file.

/// A journal's file: appends lines, flushes them, and can be made to fail.
final class JournalFile: Sendable {
  private let state = Locked<(lines: [String], flushed: Int, full: Bool)>(([], 0, false))

  var lines: [String] { state.withLock { $0.lines } }
  var flushed: Int { state.withLock { $0.flushed } }

  func fill() {
    state.withLock { $0.full = true }
  }

  func append(_ line: String) throws {
    try state.withLock { state throws(TestError) in
      if state.full { throw TestError(reason: "full") }
      state.lines.append(line)
    }
  }

  func flush() throws {
    state.withLock { $0.flushed = $0.lines.count }
  }
}

struct Journal<State: Sendable>: Middleware {
  let name = "journal"
  let file: JournalFile  // yours: appends a line, throws when it cannot

  var commitObserver: CommitObserver<State>? {
    CommitObserver(
      willCommit: { change in try file.append("\(change.action) \(change.mutators)") },
      afterTurn: { try file.flush() })
  }
}

@Suite struct JournalExampleTests {
  @Test("WritingMiddleware.md: the journal records each change before it is made, and flushes")
  func journal() throws {
    let file = JournalFile()
    let store = try makeStore(middleware: [Journal<TestState>(file: file)])
    store.dispatch(Increment(by: 2))
    #expect(file.lines == [#"Increment(by: 2) [\TestState.counter]"#] && file.flushed == 1)
    file.fill()
    #expect(throws: DispatchError.self) { try store.dispatch(Increment(by: 3)).get() }
    #expect(store.state.counter == 2)
  }

  @Test("a batch is one journal line, with the mutators of all its actions")
  func batchIsOneLine() throws {
    let file = JournalFile()
    let store = try makeStore(
      mutators: [counterMutator, itemsMutator], middleware: [Journal<TestState>(file: file)])
    store.dispatch(Batch([Increment(by: 1), Append(value: 4)]))
    #expect(file.lines.count == 1)
    #expect(file.lines.first?.hasSuffix(#"[\TestState.counter, \TestState.items]"#) == true)
  }
}
