import Foundation
import Reduce
import ReduceThunk

/// What the demo's thunks need from the outside world.
struct DemoDependencies: Sendable {
  /// How long a load pretends to take, spread over its steps.
  var loadDelay: Duration
}

typealias DemoThunkContext = ThunkContext<AppState, DemoDependencies>

/// Why a load failed.
struct LoadFailure: Error, CustomStringConvertible {
  var description: String
}

/// The items `load` adds when it is given no file.
let starterList = [
  "Read Guides/Concepts.md",
  "Rename an item twice, then undo once",
  "Run reduce-audit verify on the log",
]

/// Loads items and reports its progress.
///
/// `load` adds the starter list; `load FILE` the lines of a file, one item per line. The delay is
/// simulated; a real app would call its server here.
///
/// It dispatches `LoadAction.started`, one `.progressed` per step, then `.succeeded` (which
/// appends the items: one undo step) or `.failed`, and returns how many items it added. Starting a
/// load cancels one still in flight.
func loadThunk(file: String?) -> Thunk<AppState, Int> {
  Thunk(id: "load", cancelInFlight: true) { (context: DemoThunkContext) async throws -> Int in
    let source = file ?? "the starter list"
    let steps = 3
    context.dispatch(LoadAction.started(source: source, steps: steps))
    for step in 1...steps {
      try await Task.sleep(for: context.dependencies.loadDelay / steps)
      context.dispatch(LoadAction.progressed(step: step, of: steps))
    }
    let titles: [String]
    do throws(LoadFailure) {
      titles = try file.map(readTitles) ?? starterList
      let room = context.state.todos.room
      guard titles.count <= room else {
        throw LoadFailure(description: "the list has item ids left for \(count(room, "item")) only")
      }
    } catch {
      context.dispatch(LoadAction.failed(source: source, reason: error.description))
      throw error
    }
    context.dispatch(LoadAction.succeeded(source: source, titles: titles))
    return titles.count
  }
}

/// The non-empty lines of a text file, trimmed.
private func readTitles(_ path: String) throws(LoadFailure) -> [String] {
  let text: String
  do {
    text = try String(contentsOfFile: path, encoding: .utf8)
  } catch {
    throw LoadFailure(description: "cannot read the file")
  }
  let titles = text.split(whereSeparator: \.isNewline)
    .map { $0.trimmingCharacters(in: .whitespaces) }
    .filter { !$0.isEmpty }
  guard !titles.isEmpty else { throw LoadFailure(description: "the file has no items") }
  return titles
}
