import Foundation
import Reduce

/// Saves the list whenever it changed, once the changes pause.
///
/// It sits right after the throttle in the chain and does two things:
///
/// - after an action that changed the list, it dispatches `AutosaveAction.requested` from the top
///   of the chain, where the throttle's debounce rule holds it back: a burst of edits leaves one
///   request, delivered after a quiet time;
/// - when a request comes back through the throttle, it writes the list as it is now and passes
///   on `.saved(items:)` or `.failed(reason:)` instead, so the log records each write.
///
/// A stop signal's `AutosaveAction.stopSignalReceived`, which the throttle lets through at once,
/// is handled like a request when the list may differ from the file: when it changed since the
/// session started, or was saved since. Otherwise it is passed on, and nothing is written.
struct AutosaveMiddleware: Middleware {
  typealias State = AppState

  let file: StateFile
  /// The list the session started with, as the file held it.
  let startingList: TodoList

  var name: String { "Autosave" }

  func handle(_ action: any Action, context: MiddlewareContext<AppState>, next: Next<AppState>)
    throws
  {
    if let autosave = action as? AutosaveAction, writesNow(for: autosave, context.state) {
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

extension AutosaveMiddleware {
  /// Whether an action asks for the list to be written now: a request the throttle let through,
  /// or a stop signal when the file may not hold the list.
  fileprivate func writesNow(for action: AutosaveAction, _ state: AppState) -> Bool {
    switch action {
    case .requested: true
    case .stopSignalReceived: state.todos != startingList || state.ui.autosave != .none
    case .saved, .failed: false
    }
  }
}
