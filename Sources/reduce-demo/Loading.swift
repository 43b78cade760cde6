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
/// `load` adds the starter list; `load FILE` the lines of a file, one item per line. The file is
/// read first: a load that cannot succeed (no such file, a directory, a file that cannot be read,
/// is not text or holds no items, more items than the list has ids for) dispatches only
/// `LoadAction.failed`, with the reason, and shows no progress. The delay is simulated; a real
/// app would call its server here.
///
/// Otherwise it dispatches `LoadAction.started`, one `.progressed` per step, then `.succeeded`
/// (which appends the items: one undo step), and returns how many items it added. Starting a
/// load cancels one still in flight.
func loadThunk(file: String?) -> Thunk<AppState, Int> {
  Thunk(id: "load", cancelInFlight: true) { (context: DemoThunkContext) async throws -> Int in
    let source = file ?? "the starter list"
    let titles: [String]
    do throws(LoadFailure) {
      titles = try file.map(readTitles) ?? starterList
      try checkRoom(for: titles, in: context.state.todos)
    } catch {
      context.dispatch(LoadAction.failed(source: source, reason: error.description))
      throw error
    }
    let steps = 3
    context.dispatch(LoadAction.started(source: source, steps: steps))
    for step in 1...steps {
      try await Task.sleep(for: context.dependencies.loadDelay / steps)
      context.dispatch(LoadAction.progressed(step: step, of: steps))
    }
    do throws(LoadFailure) {
      // The list may have changed while the load waited.
      try checkRoom(for: titles, in: context.state.todos)
    } catch {
      context.dispatch(LoadAction.failed(source: source, reason: error.description))
      throw error
    }
    context.dispatch(LoadAction.succeeded(source: source, titles: titles))
    return titles.count
  }
}

/// Throws when the list has fewer item ids left than `titles` needs.
private func checkRoom(for titles: [String], in list: TodoList) throws(LoadFailure) {
  guard titles.count <= list.room else {
    throw LoadFailure(
      description: "the list has item ids left for \(count(list.room, "item")) only")
  }
}

/// The non-empty lines of a text file, trimmed.
///
/// - Throws: ``LoadFailure`` saying why the file gives no items: it does not exist, is a
///   directory, cannot be read (with the system's reason), is not UTF-8 text, or has only blank
///   lines.
func readTitles(_ path: String) throws(LoadFailure) -> [String] {
  var isDirectory: ObjCBool = false
  guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
    throw LoadFailure(description: "there is no such file")
  }
  guard !isDirectory.boolValue else {
    throw LoadFailure(description: "it is a directory, not a file of items")
  }
  let data: Data
  do {
    data = try Data(contentsOf: URL(fileURLWithPath: path))
  } catch {
    throw LoadFailure(description: "cannot read the file: \(StateFile.reason(error))")
  }
  guard let text = String(data: data, encoding: .utf8) else {
    throw LoadFailure(description: "the file is not UTF-8 text")
  }
  let titles = text.split(whereSeparator: \.isNewline)
    .map { $0.trimmingCharacters(in: .whitespaces) }
    .filter { !$0.isEmpty }
  guard !titles.isEmpty else {
    throw LoadFailure(description: "the file has no items (one item per non-blank line)")
  }
  return titles
}
