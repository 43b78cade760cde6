import Foundation
import Reduce
import ReducePersistence
import ReduceUndo

extension StateFile {
  /// The persistence that restores the list from this file and saves it there: once edits
  /// pause for the autosave delay (and at least every ten delays while edits go on), at the end
  /// of the input, and for a stop signal.
  ///
  /// The file keeps the layout the demo has always written, version 1 with the list's keys
  /// beside `"version"` (the `.flat` layout). After each save the persistence dispatches
  /// `AutosaveAction.saved` or `.failed`, so that the status line shows it.
  ///
  /// The undo history is saved beside the list (the `"attachments"` member, key `"undo"`) and
  /// restored with it, so that `undo` works after a restart. A history that does not lead from
  /// the restored list (the file was edited by hand) is left out, and the list has no steps.
  ///
  /// - Parameters:
  ///   - settings: The autosave delay.
  ///   - undo: The undo middleware whose history is saved and restored.
  /// - Returns: The persistence, with the saved list restored (nil when there is no file yet).
  /// - Throws: ``Failure`` when the file exists but is not a whole saved list: the sentence
  ///   says what is wrong, and on which line. The file is left as it is.
  func persistence(
    settings: Settings, undo: UndoMiddleware<AppState>
  ) throws(Failure) -> PersistenceMiddleware<AppState, TodoList> {
    let saveDelay = settings.saveDelay
    let history = PersistenceAttachment<TodoList>(
      key: "undo",
      save: {
        // Read at each save, before the list is encoded: where a slow disk is simulated.
        if let saveDelay { Self.slowSave(by: saveDelay) }
        return undo.historyToSave(of: TodoList.self)
      },
      restore: undo.restoreHistory)
    do {
      return try PersistenceMiddleware(
        file: path, scope: \AppState.todos, format: PersistenceFormat(version: 1, layout: .flat),
        debounce: settings.autosaveDelay, maxWait: settings.autosaveDelay * 10, name: "Autosave",
        attachments: [history]
      ) { outcome -> (any Action)? in
        switch outcome {
        case .saved(let list): AutosaveAction.saved(items: list.items.count)
        case .failed(let error): AutosaveAction.failed(reason: error.description)
        }
      }
    } catch {
      // The demo's own reading of the file says what is wrong with it, and where.
      _ = try load()
      throw Failure(description: error.description)
    }
  }

  /// Makes a save take `delay` longer, after saying so on standard error
  /// (`REDUCE_DEMO_SAVE_DELAY_MS`, for tests): the line tells a test that a save is in flight.
  private static func slowSave(by delay: Duration) {
    printError("reduce-demo: a save waits \(delay) (REDUCE_DEMO_SAVE_DELAY_MS)")
    let (seconds, attoseconds) = delay.components
    Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
  }
}
