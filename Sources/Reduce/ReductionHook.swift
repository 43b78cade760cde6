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
  /// Called before the handlers run, with the state before the action and the store's identity.
  @usableFromInline package let willReduce: @Sendable (UnsafePointer<State>, ObjectIdentifier) -> Void
  /// Called after the action committed, with the new state, the action and the store's
  /// identity.
  @usableFromInline package let didReduce:
    @Sendable (UnsafePointer<State>, () -> any Action, ObjectIdentifier) -> Void

  /// Creates a hook.
  ///
  /// - Parameters:
  ///   - willReduce: Called before the handlers of each action run.
  ///   - didReduce: Called after each action committed.
  package init(
    willReduce: @escaping @Sendable (UnsafePointer<State>, ObjectIdentifier) -> Void,
    didReduce: @escaping @Sendable (UnsafePointer<State>, () -> any Action, ObjectIdentifier) ->
      Void
  ) {
    self.willReduce = willReduce
    self.didReduce = didReduce
  }
}

/// A middleware that also runs code around every reduction: see ``ReductionHook``.
package protocol ReductionHookProviding<State>: Middleware {
  /// The hook; asked once, when the middleware joins a store's chain.
  var reductionHook: ReductionHook<State> { get }
}

/// The reduction hooks of a chain's middleware, in chain order: an immutable snapshot.
@usableFromInline
final class ReductionHooks<State: Sendable>: Sendable {
  @usableFromInline let hooks: [ReductionHook<State>]

  init(_ hooks: [ReductionHook<State>]) {
    self.hooks = hooks
  }

  /// Calls every hook's `willReduce`.
  ///
  /// The snapshot keeps its hooks alive: each is used through a guaranteed reference.
  @inlinable
  func willReduce(_ state: UnsafeMutablePointer<State>, store: ObjectIdentifier) {
    for index in hooks.indices {
      Unmanaged.passUnretained(hooks[index])._withUnsafeGuaranteedRef { hook in
        hook.willReduce(UnsafePointer(state), store)
      }
    }
  }

  /// Calls every hook's `didReduce`.
  ///
  /// The snapshot keeps its hooks alive: each is used through a guaranteed reference.
  @inlinable
  func didReduce(
    _ state: UnsafeMutablePointer<State>, action: () -> any Action, store: ObjectIdentifier
  ) {
    for index in hooks.indices {
      Unmanaged.passUnretained(hooks[index])._withUnsafeGuaranteedRef { hook in
        hook.didReduce(UnsafePointer(state), action, store)
      }
    }
  }
}
