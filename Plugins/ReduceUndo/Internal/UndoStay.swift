public import Reduce

/// One stay of an undo recorder in one store: what the watch of each action it passes on holds.
///
/// An action handled in one stay and reduced after the middleware left that store (a `next`
/// kept by a middleware after undo) is recorded nowhere: the recorder's stay is then another
/// object, or none, even if the middleware came back to the same store in the meantime.
///
/// Made once per stay, so that the closure each watched action carries captures this one object
/// and allocates nothing.
///
/// The recorder keeps its stay, and the stay its recorder and, through `statusDidChange`, the
/// middleware: leaving the store (which a store also does when it is deinitialised) breaks the
/// cycle. Not weak: an object with a weak reference keeps its reference counts in a side table,
/// and each retain and release of the recorder would then take the slow path (4,438 instructions
/// per dispatch of `undo` with a weak recorder, 4,275 without).
@usableFromInline
final class UndoStay<State: Sendable, Substate: Equatable & Sendable>: Sendable {
  /// The store served.
  @usableFromInline let store: ObjectIdentifier
  /// The recorder.
  @usableFromInline let recorder: UndoRecorder<State, Substate>
  /// Tells the middleware's observers that the status changed.
  @usableFromInline let statusDidChange: @Sendable () -> Void

  /// Creates a stay.
  ///
  /// - Parameters:
  ///   - store: The store served.
  ///   - recorder: The recorder.
  ///   - statusDidChange: Tells the middleware's observers that the status changed.
  @usableFromInline
  init(
    store: ObjectIdentifier, recorder: UndoRecorder<State, Substate>,
    statusDidChange: @escaping @Sendable () -> Void
  ) {
    self.store = store
    self.recorder = recorder
    self.statusDidChange = statusDidChange
  }

  /// Records what the reduction of an action handled in this stay did to the tracked value.
  ///
  /// - Parameter reduction: The action, and the tracked value before and after it.
  @inlinable
  func record(_ reduction: Reduction<Substate>) {
    if recorder.record(reduction, in: self) { statusDidChange() }
  }
}
