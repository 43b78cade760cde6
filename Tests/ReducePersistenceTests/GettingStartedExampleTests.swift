// The snippets of Guides/GettingStarted.md that use ReducePersistence (section 11: a tool that
// keeps what it made and saves on Ctrl-C, and an observer that keeps what it saw behind a
// `Mutex`), as written there: the namespace holds the declarations, the tests run them. Keep
// the two in step; Tests/ReduceTests/GuideSnippetsTests.swift checks that every line of the
// guide's snippets is in a test.

import Foundation
import Reduce
import ReducePersistence
import Synchronization
import Testing

/// Guides/GettingStarted.md, section 11: `Sources/notes/main.swift`.
enum NotesToolSnippet {
  struct Notes: Codable, Equatable, Sendable {
    var lines: [String] = []
  }

  enum NotesAction: Action {
    case typed(String)
  }

  /// Adds each line as a note; saves once typing pauses, at the end, and on a stop signal.
  static func takeNotes(file: String, nextLine: () -> String?) throws {
    let lines = Mutator(\Notes.lines) { (lines: inout [String], action: NotesAction) in
      if case .typed(let line) = action { lines.append(line) }
    }
    let persistence = try PersistenceMiddleware<Notes, Notes>(file: file, debounce: .seconds(1))
    let store = try Store(
      initialState: persistence.restoring(Notes()), mutators: [lines], middleware: [persistence])
    // Ctrl-C, `kill` or a closed terminal: save what the debounce has not saved yet, then end
    // as the signal would have (status 130 for Ctrl-C).
    let shutdown = try ShutdownSignals()
    shutdown.onShutdown { _ in try persistence.flush() }
    defer { shutdown.cancel() }
    while let line = nextLine() {
      store.dispatch(NotesAction.typed(line))
    }
    // The end of the input: the same save, which returns once the file holds the last note.
    try persistence.flush()
  }

  /// The top level of the `main.swift`: compiled, never called (it reads standard input).
  static func main() {
    do {
      try takeNotes(file: "notes.json") { readLine() }
    } catch {
      print("notes:", error)
      exit(1)
    }
  }
}

/// Guides/GettingStarted.md, section 11: an observer that keeps what it saw.
enum SeenTotalsSnippet {
  struct Tally: Equatable, Sendable {
    var total = 0
    var count = 0
  }

  /// The totals an observer saw: a final class, so that the observer's closure captures a
  /// reference to it, and the `Mutex` stays where it was made.
  final class SeenTotals: Sendable {
    private let totals = Mutex<[Int]>([])

    func record(_ total: Int) { totals.withLock { $0.append(total) } }
    var all: [Int] { totals.withLock { $0 } }
  }

  static func watchTotals(of store: Store<Tally>) -> (SeenTotals, Subscription) {
    let seen = SeenTotals()
    let subscription = store.subscribe(to: \.total) { seen.record($0) }
    return (seen, subscription)
  }
}

/// The tests that make a `ShutdownSignals` in this process: one at a time, as one per process
/// is allowed.
@Suite(.serialized) struct InProcessShutdownSignalsTests {
  @Test("Getting Started: the notes tool keeps each line in its file, saved at the end")
  func notesTool() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("notes.json")
    var script = ["Milk", "Eggs"].makeIterator()
    try NotesToolSnippet.takeNotes(file: path) { script.next() }
    let saved = try PersistenceMiddleware<NotesToolSnippet.Notes, NotesToolSnippet.Notes>(
      file: path
    ).restoredValue
    #expect(saved?.lines == ["Milk", "Eggs"])
    // The tool gave the signals back: another ShutdownSignals may be made.
    let next = try ShutdownSignals([.terminate])
    next.cancel()
  }

  @Test("one ShutdownSignals at a time per process; another may follow once it is cancelled")
  func onePerProcess() throws {
    let first = try ShutdownSignals([.terminate])
    #expect(first.signals == [.terminate])
    #expect(throws: ShutdownSignalsError.alreadyHandled) { _ = try ShutdownSignals([.terminate]) }
    first.cancel()
    first.cancel()
    let second = try ShutdownSignals([.terminate, .terminate])
    #expect(second.signals == [.terminate])
    second.cancel()
  }
}

/// A number added to the tally.
struct Added: Action {
  var number: Int
}

@Suite struct SeenTotalsSnippetTests {
  @Test("Getting Started: an observer keeps what it saw in a final class that holds a Mutex")
  func seenTotals() throws {
    typealias Tally = SeenTotalsSnippet.Tally
    let total = Mutator(\Tally.total) { (total: inout Int, action: Added) in total += action.number
    }
    let count = Mutator(\Tally.count) { (count: inout Int, _: Added) in count += 1 }
    let store = try Store(initialState: Tally(), mutators: [total, count])
    let (seen, subscription) = SeenTotalsSnippet.watchTotals(of: store)
    defer { subscription.cancel() }
    store.dispatch(Added(number: 2))
    store.dispatch(Added(number: 3))
    #expect(seen.all == [0, 2, 5])
  }
}
