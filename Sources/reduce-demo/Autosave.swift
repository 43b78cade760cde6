import Foundation
import Reduce

/// Saves the list whenever it changed, once the changes pause.
///
/// It sits right after the throttle in the chain and does two things:
///
/// - after an action that changed the list, it dispatches `AutosaveAction.requested` from the top
///   of the chain, where the throttle's debounce rule holds it back: a burst of edits leaves one
///   request, delivered after a quiet time;
/// - when a request comes back through the throttle, or a stop signal's
///   `AutosaveAction.stopSignalReceived` arrives (which the throttle lets through at once), it
///   writes the list as it is now and passes on `.saved(items:)` or `.failed(reason:)` instead,
///   so the log records each write.
struct AutosaveMiddleware: Middleware {
  typealias State = AppState

  let file: StateFile

  var name: String { "Autosave" }

  func handle(_ action: any Action, context: MiddlewareContext<AppState>, next: Next<AppState>)
    throws
  {
    if let autosave = action as? AutosaveAction, autosave.writesNow {
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

extension AutosaveAction {
  /// Whether the action asks for the list to be written now: a request the throttle let
  /// through, or a stop signal.
  fileprivate var writesNow: Bool {
    switch self {
    case .requested, .stopSignalReceived: true
    case .saved, .failed: false
    }
  }
}
