/// What a save of a ``PersistenceMiddleware`` did: given to its `onSave` closure, which may turn
/// it into an action for the store (a status line, a log entry).
public enum SaveOutcome<Value: Sendable>: Sendable {
  /// The value was written to the file.
  case saved(Value)
  /// The write failed; the value stays pending and the next save writes it.
  case failed(PersistenceError)
}

/// What a ``PersistenceMiddleware`` does with a file it cannot restore.
public enum UnreadableFilePolicy: Sendable, Equatable {
  /// Throw from the middleware's initialiser and leave the file where it is, untouched: the app
  /// cannot start on it, and the user can repair or remove it. The default.
  case fail
  /// Move the file aside to `PATH.corrupt-TIMESTAMP`, then throw.
  case moveAsideAndFail
  /// Move the file aside to `PATH.corrupt-TIMESTAMP` and start from the app's initial state;
  /// the error is kept in ``PersistenceMiddleware/restoreError``. When the file cannot be moved
  /// aside, the initialiser throws ``PersistenceError/moveAsideFailed(path:problem:reason:)``
  /// instead: starting afresh would overwrite the file at the first save.
  case moveAsideAndStartFresh
}
