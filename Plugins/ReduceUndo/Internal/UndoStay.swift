/// One stay of an undo recorder in one store: which store it serves, and whom to tell when the
/// status changed.
///
/// A commit is recorded only in the stay of the store that made it (`Commit.store`): a commit
/// of a store the middleware then left (a dispatch there that still runs the chain it started
/// with, or a `next` kept by a middleware after undo) is recorded nowhere, or, if the middleware
/// came back to that store in the meantime, in its new stay there. A command reads the stay
/// when it starts and changes the history only if the stay is still the same object when it
/// ends.
///
/// The recorder keeps its stay, and the stay, through `statusDidChange`, the middleware: leaving
/// the store (which a store also does when it is deinitialised) breaks the cycle.
final class UndoStay: Sendable {
  /// The store served.
  let store: ObjectIdentifier
  /// Tells the middleware's observers that the status changed.
  let statusDidChange: @Sendable () -> Void

  /// Creates a stay.
  ///
  /// - Parameters:
  ///   - store: The store served.
  ///   - statusDidChange: Tells the middleware's observers that the status changed.
  init(store: ObjectIdentifier, statusDidChange: @escaping @Sendable () -> Void) {
    self.store = store
    self.statusDidChange = statusDidChange
  }
}
