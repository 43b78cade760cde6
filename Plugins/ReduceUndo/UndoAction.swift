public import Reduce

/// A command for an ``UndoMiddleware``: move through its history, clear it, or group changes.
///
/// The middleware handles these itself: they never reach the reducers, except as the
/// `ReplaceState` that undo, redo and jump dispatch to restore a recorded state.
///
/// ```swift
/// store.dispatch(UndoAction.beginGroup(label: "Move"))
/// store.dispatch(ShapeAction.moved(by: 4))
/// store.dispatch(ShapeAction.moved(by: 3))
/// store.dispatch(UndoAction.endGroup)  // one step: "Undo Move"
/// store.dispatch(UndoAction.undo)
/// ```
///
/// Dispatch each command on its own: a `Batch` that holds one, at any depth, is rejected with
/// ``UndoError/commandInBatch``.
public enum UndoAction: Action, Equatable, Hashable {
  /// Restores the state before the newest step. Does nothing when there is no step to undo.
  case undo
  /// Restores the state after the step undone last. Does nothing when there is none.
  case redo
  /// Moves several steps at once: a negative count into the past, a positive one into the
  /// future, clamped to the steps that exist. One `ReplaceState` restores the destination.
  case jump(Int)
  /// Forgets every step, past and future; the current state stays as it is.
  case clearHistory
  /// Opens a group: every change until the matching ``endGroup`` is one step.
  ///
  /// Groups nest; nested groups fold into the outermost one, whose label (or, when it has
  /// none, the first label given) names the step.
  case beginGroup(label: String? = nil)
  /// Closes the group opened by the last unmatched ``beginGroup(label:)``.
  ///
  /// An `endGroup` without an open group is ignored and reported on the store's `errors` as
  /// ``UndoError/unmatchedEndGroup``.
  case endGroup
}

extension UndoAction: Encodable {
  private enum CodingKeys: String, CodingKey {
    case command, steps, label
  }

  /// Encodes the command by name, with its argument: `{"command":"jump","steps":-2}`, so that
  /// an audit log records which command it was.
  ///
  /// - Parameter encoder: The encoder to write to.
  /// - Throws: What the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .undo:
      try container.encode("undo", forKey: .command)
    case .redo:
      try container.encode("redo", forKey: .command)
    case .jump(let steps):
      try container.encode("jump", forKey: .command)
      try container.encode(steps, forKey: .steps)
    case .clearHistory:
      try container.encode("clearHistory", forKey: .command)
    case .beginGroup(let label):
      try container.encode("beginGroup", forKey: .command)
      try container.encodeIfPresent(label, forKey: .label)
    case .endGroup:
      try container.encode("endGroup", forKey: .command)
    }
  }
}
