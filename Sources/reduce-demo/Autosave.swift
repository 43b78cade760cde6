import Foundation
import Reduce

/// The JSON file the list is saved to and reloaded from (`--state FILE`).
struct StateFile: Sendable {
  /// What went wrong reading or writing the file.
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// The file's contents: a version, so that a later demo can read old files.
  private struct Contents: Codable {
    var version: Int
    var nextID: Int
    var items: [Todo]
  }

  let path: String

  /// The list saved in the file, or nil when there is no file yet.
  ///
  /// - Throws: ``Failure`` when the file exists but cannot be read or is not a saved list.
  func load() throws(Failure) -> TodoList? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    let contents: Contents
    do {
      let data = try Data(contentsOf: URL(fileURLWithPath: path))
      contents = try JSONDecoder().decode(Contents.self, from: data)
    } catch {
      throw Failure(description: "\(path) is not a saved to-do list (\(error))")
    }
    guard contents.version == 1 else {
      throw Failure(description: "\(path) has version \(contents.version); this demo reads 1")
    }
    let nextID = max(contents.nextID, (contents.items.map(\.id).max() ?? 0) + 1)
    return TodoList(items: contents.items, nextID: nextID)
  }

  /// Checks that the file's directory exists and is writable, so that a session is not lost
  /// to a save that fails at the end.
  ///
  /// - Throws: ``Failure`` when the list could not be saved there.
  func checkWritable() throws(Failure) {
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw Failure(description: "cannot save the list to \(path): \(directory) is not a directory")
    }
    guard FileManager.default.isWritableFile(atPath: directory) else {
      throw Failure(description: "cannot save the list to \(path): \(directory) is not writable")
    }
  }

  /// Writes the list, replacing the file in one step (a crash leaves the old or the new file).
  ///
  /// - Throws: ``Failure`` when the file cannot be written.
  func save(_ list: TodoList) throws(Failure) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    do {
      let data = try encoder.encode(Contents(version: 1, nextID: list.nextID, items: list.items))
      try (data + Data("\n".utf8)).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
      throw Failure(description: "cannot write \(path): \(error.localizedDescription)")
    }
  }
}

/// Saves the list whenever it changed, once the changes pause.
///
/// It sits right after the throttle in the chain and does two things:
///
/// - after an action that changed the list, it dispatches `AutosaveAction.requested` from the top
///   of the chain, where the throttle's debounce rule holds it back: a burst of edits leaves one
///   request, delivered after a quiet time;
/// - when a request comes back through the throttle, it writes the list as it is now and passes
///   on `.saved(items:)` or `.failed(reason:)` instead, so the log records each write.
struct AutosaveMiddleware: Middleware {
  typealias State = AppState

  let file: StateFile

  var name: String { "Autosave" }

  func handle(_ action: any Action, context: MiddlewareContext<AppState>, next: Next<AppState>)
    throws
  {
    if let autosave = action as? AutosaveAction, autosave == .requested {
      let list = context.state.todos
      let outcome: AutosaveAction
      do {
        try file.save(list)
        outcome = .saved(items: list.items.count)
      } catch {
        outcome = .failed(reason: error.description)
      }
      try next(outcome)
      return
    }
    let before = context.state.todos
    try next(action)
    if context.state.todos != before {
      context.dispatch(AutosaveAction.requested)
    }
  }
}
