import Reduce

// The commands of an `UndoRecorder`: undo, redo, jump, clear and explicit groups.
extension UndoRecorder {
  /// Carries out a command for the store of `context`, unless the middleware serves another,
  /// and tells the middleware's observers when the status changed.
  func perform(_ command: UndoAction, context: MiddlewareContext<State>, next: Next<State>)
    throws
  {
    guard let stay = book.withLock({ $0.stay }), stay.store == context.storeID else { return }
    let changed: Bool
    switch command {
    case .undo:
      changed = try travel(-1, in: stay, context: context, next: next)
    case .redo:
      changed = try travel(1, in: stay, context: context, next: next)
    case .jump(let offset):
      changed = try travel(offset, in: stay, context: context, next: next)
    case .clearHistory:
      let present = read(context.state)
      changed = change(in: stay) { $0.clear(keeping: present) }
    case .beginGroup(let label):
      changed = change(in: stay) { history in
        history.beginGroup(label: label)
        return Released()
      }
    case .endGroup:
      var matched = true
      changed = change(in: stay) { history in
        matched = history.endGroup()
        return Released()
      }
      if !matched { context.report(UndoError.unmatchedEndGroup) }
    }
    if changed { stay.statusDidChange() }
  }

  /// Undoes (negative) or redoes (positive) steps: restores the destination with one
  /// `ReplaceState` passed down the chain, then moves the steps.
  ///
  /// The restore is marked in the book while `next` runs: the store commits the `ReplaceState`
  /// inside that call, and ``record(_:)`` does not record the commit it sees meanwhile. The
  /// steps move only if the restore committed then. A middleware after undo that defers the
  /// `ReplaceState` (calls `next` later) or swallows it leaves the history where it was; when
  /// a deferred restore commits later, it is recorded as a change like any other: a new step,
  /// which undo reverts.
  private func travel(
    _ offset: Int, in stay: UndoStay, context: MiddlewareContext<State>,
    next: Next<State>
  ) throws -> Bool {
    let snapshot = book.withLock { book -> Substate? in
      guard book.stay === stay else { return nil }
      book.history.seal()
      return book.history.destination(ofJump: offset)?.snapshot
    }
    guard let snapshot else { return false }
    let restore = ReplaceState(embed(context.state, snapshot))
    book.withLock { $0.restoring = PendingRestore(store: stay.store) }
    defer { book.withLock { $0.restoring = nil } }
    // Down the chain, not from its top: middleware before this one see the command itself (and
    // a logger there the change it made).
    try next(restore)
    let committed = book.withLock { $0.restoring?.committed ?? false }
    guard committed else { return false }
    return change(in: stay) { history in
      history.jump(offset)
      return Released()
    }
  }
}
