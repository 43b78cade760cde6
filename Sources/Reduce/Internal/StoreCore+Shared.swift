public import Synchronization

#if canImport(Glibc)
  public import Glibc
#elseif canImport(Musl)
  public import Musl
#elseif canImport(Darwin)
  public import Darwin
#endif

/// What the turn holder shares with other threads: the setup it keeps a copy of, which they
/// change, and the state, which they read while it changes it in place.
extension StoreCore {
  // MARK: The setup

  /// Changes the store's setup; the lock must be held.
  ///
  /// The turn holder takes the new setup before it next uses its copy (``refreshSetup()``).
  func changeSetup<Result>(
    _ fields: inout CoreFields<State>, _ body: (inout Setup<State>) -> Result
  ) -> Result {
    let result = body(&fields.setup)
    setupGeneration.add(1, ordering: .releasing)
    return result
  }

  /// Makes the turn holder's copy of the setup the store's current one; turn holder only.
  ///
  /// Called before an action's setup is used: a mutator registered, a middleware added or an
  /// observer subscribed before (even by a middleware of this very dispatch) is seen. Costs one
  /// atomic load when nothing changed.
  @inlinable
  func refreshSetup() {
    if setupGeneration.load(ordering: .acquiring) != local.pointee.setupGeneration {
      takeSetup()
    }
  }

  /// Copies the store's setup for the turn holder.
  @usableFromInline
  func takeSetup() {
    fields.withLock { fields in
      // Under the lock, no change of the setup can come in between.
      local.pointee.setup = fields.setup
      local.pointee.setupGeneration = setupGeneration.load(ordering: .relaxed)
    }
  }

  // MARK: Reading the state

  /// The committed state; waits while another thread changes it in place.
  ///
  /// The turn holder reads it at once: during a `Batch`, a middleware sees the batch's changes
  /// so far. A reducer may not read it.
  ///
  /// A reader copies the state holding the lock, and counted in ``readersCopying``; the turn
  /// holder begins a change without the lock (``beginChange()``). Each announces itself, then
  /// looks at the other, with sequentially consistent operations (Dekker's pattern): so either
  /// the reader sees the change and waits for its end, or the change sees the reader and waits
  /// for its copy.
  @inlinable
  func readState() -> State {
    // The turn holder alone changes the state: it needs no lock to read it.
    if holds(.current) {
      if changingState.load(ordering: .relaxed) && local.pointee.inReducers {
        // A mistake of the caller's, not an invariant of the store's: `fatalError`, whose
        // message an optimized build prints too (a failed `precondition` stops silently).
        fatalError(
          "A reducer read the store's state or dispatched to it. Reducers must be pure functions of their substate and action: dispatch follow-up actions from a middleware or an observer instead."
        )
      }
      return local.pointee.state
    }
    return fields.withLock(
      waitingOn: stateCommitted, while: { _ in !startCopying() },
      { _ in
        // Counted as copying: a change waits for this copy (see `beginChange`).
        defer { readersCopying.subtract(1, ordering: .sequentiallyConsistent) }
        return local.pointee.state
      })
  }

  /// Counts the calling reader as copying the state; the lock must be held.
  ///
  /// - Returns: True when the reader was counted; false while a change is going on, whose end
  ///   will wake the reader.
  @inlinable
  func startCopying() -> Bool {
    while true {
      readersCopying.add(1, ordering: .sequentiallyConsistent)
      if !changingState.load(ordering: .sequentiallyConsistent) { return true }
      readersCopying.subtract(1, ordering: .sequentiallyConsistent)
      // Announce the wait, then look again: a change that ended in between either is seen
      // now, or sees the announcement and wakes this reader (see `endChange`).
      readersWaiting.store(true, ordering: .sequentiallyConsistent)
      if changingState.load(ordering: .sequentiallyConsistent) { return false }
    }
  }

  /// Marks the state as being changed in place by the turn holder, once no reader copies it.
  ///
  /// No lock: see ``readState()``. A reader that was copying when the change began finishes
  /// its copy (a moment) before the change goes on.
  @inlinable
  func beginChange() {
    changingState.store(true, ordering: .sequentiallyConsistent)
    while readersCopying.load(ordering: .sequentiallyConsistent) != 0 {
      sched_yield()
    }
  }

  /// Ends an in-place change and wakes the readers waiting for it.
  ///
  /// It takes the lock only when a reader waits. A reader announces its wait before it looks at
  /// `changingState` a second time, and both sides use sequentially consistent operations: so
  /// either the reader sees the change ended, or this sees the announcement (Dekker's pattern).
  @inlinable
  func endChange() {
    changingState.store(false, ordering: .sequentiallyConsistent)
    guard readersWaiting.load(ordering: .sequentiallyConsistent) else { return }
    fields.withLock { _ in
      readersWaiting.store(false, ordering: .sequentiallyConsistent)
      stateCommitted.broadcast()
    }
  }
}
