import Reduce

// The commands of an `UndoRecorder`: undo, redo, jump, clear and explicit groups.
extension UndoRecorder {
  /// Carries out a command for the store of `context`, unless the middleware serves another,
  /// and tells the middleware's observers when the status changed.
  func perform(_ command: UndoAction, context: MiddlewareContext<State>, next: Next<State>)
    throws
  {
    guard let stay = ledger.stay(in: context.storeID) else { return }
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
      changed = ledger.change(in: stay) { $0.clear(keeping: present) }
    case .beginGroup(let label):
      changed = ledger.change(in: stay) { history in
        history.beginGroup(label: label)
        return Released()
      }
    case .endGroup:
      var matched = true
      changed = ledger.change(in: stay) { history in
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
  /// The restore is marked in the ledger while `next` runs: the store commits the `ReplaceState`
  /// inside that call, and the ledger does not record the commit it sees meanwhile. The steps
  /// move only if the restore committed then. A middleware after undo that defers the
  /// `ReplaceState` (calls `next` later) or swallows it leaves the history where it was; when
  /// a deferred restore commits later, it is recorded as a change like any other: a new step,
  /// which undo reverts.
  private func travel(
    _ offset: Int, in stay: UndoStay, context: MiddlewareContext<State>,
    next: Next<State>
  ) throws -> Bool {
    // The ledger holds only values this recorder gave it, all of type `Substate`.
    guard let snapshot = ledger.destination(ofJump: offset, in: stay) as? Substate else {
      return false
    }
    let restore = ReplaceState(embed(context.state, snapshot))
    // Down the chain, not from its top: middleware before this one see the command itself (and
    // a logger there the change it made).
    let committed = try ledger.restoring(in: stay) { try next(restore) }
    guard committed else { return false }
    return ledger.change(in: stay) { history in
      history.jump(offset)
      return Released()
    }
  }
}
