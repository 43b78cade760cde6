/// Code a plugin of this package runs around every action the store reduces, on the thread that
/// holds the dispatch turn.
///
/// The undo plugin records its steps this way rather than as a step of the middleware chain:
/// it reads the tracked value before and after each reduction, and a chain step around every
/// action would cost more than the recording. A middleware provides a hook by conforming to
/// ``ReductionHookProviding``; the store asks for it once, when the middleware joins the chain,
/// and calls it for as long as the middleware is in the chain.
///
/// Both closures are called with no lock of the store held. `willReduce` runs before the
/// handlers, while the state is marked as being reduced: it must not read the store (a reducer
/// may not either). `didReduce` runs after the action committed and the store's observers were
/// told, for an action that ran a handler or replaced the state; it is not called when a
/// handler threw (the action was rolled back).
@usableFromInline
package final class ReductionHook<State: Sendable>: Sendable {
  /// Makes the hook's slot for one store: memory only that store's dispatch turn holder
  /// touches, given back to both closures, for what `willReduce` passes to `didReduce`.
  @usableFromInline let makeSlot: @Sendable () -> UnsafeMutableRawPointer
  /// Frees a slot `makeSlot` made, when the store no longer uses it.
  @usableFromInline let freeSlot: @Sendable (UnsafeMutableRawPointer) -> Void
  /// Called before the handlers run, with the state before the action, the store's slot and
  /// the store's identity.
  @usableFromInline let willReduce:
    @Sendable (UnsafePointer<State>, UnsafeMutableRawPointer, ObjectIdentifier) -> Void
  /// Called after the action committed, with the new state, the store's slot, the action and
  /// the store's identity.
  @usableFromInline let didReduce:
    @Sendable (UnsafePointer<State>, UnsafeMutableRawPointer, () -> any Action, ObjectIdentifier)
      -> Void

  /// Creates a hook.
  ///
  /// - Parameters:
  ///   - makeSlot: Makes the hook's slot for one store.
  ///   - freeSlot: Frees a slot `makeSlot` made.
  ///   - willReduce: Called before the handlers of each action run.
  ///   - didReduce: Called after each action committed.
  package init(
    makeSlot: @escaping @Sendable () -> UnsafeMutableRawPointer,
    freeSlot: @escaping @Sendable (UnsafeMutableRawPointer) -> Void,
    willReduce:
      @escaping @Sendable (UnsafePointer<State>, UnsafeMutableRawPointer, ObjectIdentifier)
      -> Void,
    didReduce:
      @escaping @Sendable (
        UnsafePointer<State>, UnsafeMutableRawPointer, () -> any Action, ObjectIdentifier
      ) -> Void
  ) {
    self.makeSlot = makeSlot
    self.freeSlot = freeSlot
    self.willReduce = willReduce
    self.didReduce = didReduce
  }
}

/// A middleware that also runs code around every reduction: see ``ReductionHook``.
package protocol ReductionHookProviding<State>: Middleware {
  /// The hook; asked once, when the middleware joins a store's chain.
  var reductionHook: ReductionHook<State> { get }
}

/// The reduction hooks of a chain's middleware, in chain order, with their slots for one store:
/// an immutable snapshot, made by that store.
///
/// `@unchecked Sendable`: immutable after `init`; the memory `slots` points to is touched only by
/// the thread holding the dispatch turn of the store that made the snapshot.
@usableFromInline
final class ReductionHooks<State: Sendable>: @unchecked Sendable {
  @usableFromInline let hooks: [ReductionHook<State>]
  /// Each hook's slot for the store, at the hook's index, freed with the snapshot.
  @usableFromInline let slots: [UnsafeMutableRawPointer]

  init(_ hooks: [ReductionHook<State>]) {
    self.hooks = hooks
    self.slots = hooks.map { $0.makeSlot() }
  }

  deinit {
    for (hook, slot) in zip(hooks, slots) { hook.freeSlot(slot) }
  }

  /// Calls every hook's `willReduce`.
  ///
  /// The snapshot keeps its hooks and slots alive: each is used through a guaranteed
  /// reference.
  @inlinable
  func willReduce(_ state: UnsafeMutablePointer<State>, store: ObjectIdentifier) {
    for index in hooks.indices {
      Unmanaged.passUnretained(hooks[index])._withUnsafeGuaranteedRef { hook in
        hook.willReduce(UnsafePointer(state), slots[index], store)
      }
    }
  }

  /// Calls every hook's `didReduce`.
  ///
  /// The snapshot keeps its hooks and slots alive: each is used through a guaranteed
  /// reference.
  @inlinable
  func didReduce(
    _ state: UnsafeMutablePointer<State>, action: () -> any Action, store: ObjectIdentifier
  ) {
    for index in hooks.indices {
      Unmanaged.passUnretained(hooks[index])._withUnsafeGuaranteedRef { hook in
        hook.didReduce(UnsafePointer(state), slots[index], action, store)
      }
    }
  }
}
