public import Synchronization

extension MiddlewareContext {
  /// Calls `body` with a pointer to the store's current state, as ``state`` returns it, and
  /// returns its result.
  ///
  /// During `handle`, on the thread that called it, the pointer addresses the store's own
  /// storage: reading one property through it (at its `MemoryLayout.offset(of:)`, or with
  /// `pointee[keyPath:]`) copies that property alone. Otherwise it addresses a copy read under
  /// the lock. For the plugins of this package: the undo plugin reads its tracked substate
  /// through it when it clears its history.
  ///
  /// The pointer is valid only during `body`, and `body` must not call `next`.
  ///
  /// - Parameter body: Reads what it needs through the pointer.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  @inlinable
  package func withUnsafeState<Value, E: Error>(
    _ body: (UnsafePointer<State>) throws(E) -> Value
  ) throws(E) -> Value {
    // The context's plan keeps the core alive: it is used through a guaranteed reference,
    // with no reference counting.
    let result: Result<Value, E> = Unmanaged.passUnretained(plan.core)
      ._withUnsafeGuaranteedRef { core in
        do throws(E) {
          if readsInPlace(core) {
            core.turn.pointee.borrowingState += 1
            defer { core.turn.pointee.borrowingState -= 1 }
            return .success(try body(UnsafePointer(core.stateStorage)))
          }
          var copy = core.readState()
          return .success(try body(&copy))
        } catch {
          return .failure(error)
        }
      }
    return try result.get()
  }

  /// Whether this context may read the state in place, without the store's lock: on the thread
  /// processing its dispatch item, while that item is in progress and not reducing in place.
  ///
  /// That thread holds the turn: it alone writes `reducing` and the state, so it reads both
  /// without the lock. While it reduces in place (a reducer reading the state), the locked read
  /// reports that.
  @inlinable @inline(__always)
  func readsInPlace(_ core: StoreCore<State>) -> Bool {
    core.activeItem.load(ordering: .acquiring) == item && thread == ThreadID.current
      && !core.reducing.load(ordering: .relaxed)
  }
}
