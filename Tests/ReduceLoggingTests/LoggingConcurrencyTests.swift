import Foundation
import Reduce
import ReduceLogging
import Testing

/// An action that says which thread sent it.
struct Mark: Action, Encodable {
  var thread: Int
  var step: Int
}

struct MarkState: Equatable, Sendable {
  var count = 0
}

@Suite(.serialized) struct LoggingConcurrencyTests {
  static let threads = 8
  static let steps = 25

  /// Runs `body(thread)` on `threads` threads at once and waits for all of them.
  func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
      group.enter()
      let thread = Thread {
        body(index)
        group.leave()
      }
      thread.start()
    }
    group.wait()
  }

  func makeStore(path: String) throws -> Store<MarkState> {
    let counter = Mutator(\MarkState.count) { (count: inout Int, _: Mark) in count += 1 }
    return try Store(
      initialState: MarkState(), mutators: [counter],
      middleware: [
        LoggingMiddleware<MarkState>(
          format: .jsonLines, sink: .file(path: path, durability: .everyEntry, chained: true))
      ])
  }

  /// Every (thread, step) pair in the log, in file order.
  func marks(in path: String) throws -> [[Int]] {
    try readLines(path).enumerated().map { offset, line in
      let entry = try AuditLog.Entry(parsing: line, line: offset + 1)
      let payload = try #require(entry.payload)
      let mark = try JSONDecoder().decode(MarkPayload.self, from: Data(payload.utf8))
      return [mark.thread, mark.step]
    }
  }

  struct MarkPayload: Decodable {
    var thread: Int
    var step: Int
  }

  @Test("8 threads dispatching into one chained log leave a valid chain with every action once")
  func oneStore() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let store = try makeStore(path: path)
    onThreads(Self.threads) { thread in
      for step in 0..<Self.steps { store.dispatch(Mark(thread: thread, step: step)) }
    }
    let total = Self.threads * Self.steps
    #expect(store.state.count == total)
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == total)
    let marks = try self.marks(in: path)
    #expect(Set(marks).count == total)
    #expect(marks.count == total)
  }

  @Test("two stores logging to one chained file from 8 threads leave one valid chain")
  func twoStores() throws {
    let path = temporaryLogPath()
    defer { removeLog(path) }
    let stores = [try makeStore(path: path), try makeStore(path: path)]
    onThreads(Self.threads) { thread in
      for step in 0..<Self.steps { stores[thread % 2].dispatch(Mark(thread: thread, step: step)) }
    }
    let total = Self.threads * Self.steps
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: path)) == total)
    let marks = try self.marks(in: path)
    #expect(Set(marks).count == total)
    #expect(marks.count == total)
    // Each thread's actions appear in the order it sent them.
    for thread in 0..<Self.threads {
      #expect(marks.filter { $0[0] == thread }.map { $0[1] } == Array(0..<Self.steps))
    }
  }
}
