public import Reduce

// The commands of an `UndoRecorder`: undo, redo, jump, clear and explicit groups.
extension UndoRecorder {
  /// Carries out a command for the store of `context`, unless the middleware serves another.
  ///
  /// - Returns: Whether the status changed.
  @usableFromInline
  func perform(_ command: UndoAction, context: MiddlewareContext<State>, next: Next<State>)
    throws -> Bool
  {
    guard let stay = book.withLock({ $0.stay }), stay.store == context.storeID else {
      return false
    }
    switch command {
    case .undo:
      return try travel(-1, in: stay, context: context, next: next)
    case .redo:
      return try travel(1, in: stay, context: context, next: next)
    case .jump(let offset):
      return try travel(offset, in: stay, context: context, next: next)
    case .clearHistory:
      let present = read(context.state)
      return change(in: stay) { $0.clear(keeping: present) }
    case .beginGroup(let label):
      return change(in: stay) { history in
        history.beginGroup(label: label)
        return Released()
      }
    case .endGroup:
      var matched = true
      let changed = change(in: stay) { history in
        matched = history.endGroup()
        return Released()
      }
      if !matched { context.report(UndoError.unmatchedEndGroup) }
      return changed
    }
  }

  /// Undoes (negative) or redoes (positive) steps: restores the destination with one
  /// `ReplaceState` passed down the chain, then moves the steps.
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
    // Down the chain, not from its top: middleware before this one see the command itself (and
    // a logger there the change it made). Passed on without a watch, so it records no step.
    try next(ReplaceState(embed(context.state, snapshot)))
    return change(in: stay) { history in
      history.jump(offset)
      return Released()
    }
  }
}
