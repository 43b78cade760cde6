/// What the reduction of one action did to a value a middleware watched: see
/// ``Next/callAsFunction(_:watching:onReduced:)``.
public struct Reduction<Value: Sendable>: Sendable {
  /// The action that was reduced: the one passed on, or what a later middleware passed on in its
  /// place.
  public let action: any Action
  /// The value right before the reducers ran.
  public let before: Value
  /// The value right after the action committed.
  public let after: Value
  /// The store that reduced the action: its ``MiddlewareContext/storeID``.
  ///
  /// A watcher made once (``ReductionWatcher``) is handed to `next` in every store its
  /// middleware joins; this tells the reductions of one store from another's.
  public let store: ObjectIdentifier

  /// Creates a reduction.
  ///
  /// - Parameters:
  ///   - action: The action that was reduced.
  ///   - before: The value before.
  ///   - after: The value after.
  ///   - store: The identity of the store that reduced the action.
  public init(action: any Action, before: Value, after: Value, store: ObjectIdentifier) {
    self.action = action
    self.before = before
    self.after = after
    self.store = store
  }
}

/// A watch of one value of the state around each reduction, made once and handed to `next` with
/// every action a middleware passes on (``Next/callAsFunction(_:watcher:)``).
///
/// It does what ``Next/callAsFunction(_:watching:onReduced:)`` does, without making a watch per
/// action: that call allocates its watch, about 480 instructions per dispatch (measured on
/// `undo`), which a middleware that watches every action it passes on, such as an undo
/// recorder, saves by making its watcher once. When a middleware before it watches the action
/// too, the two are combined for that action.
///
/// ```swift
/// let watcher = ReductionWatcher<Editor>(watching: \.document) { change in
///   history.note(change.before, change.after)
/// }
/// // In `handle`:
/// try next(action, watcher: watcher)
/// ```
///
/// A class, so that handing it to `next` costs one reference count.
public final class ReductionWatcher<State: Sendable>: Sendable {
  /// The watch, for an action no middleware before watches.
  @usableFromInline let alone: ReductionWatch<State>
  /// Makes the watch inside the watches of the middleware before.
  @usableFromInline let inside: @Sendable (ReductionWatch<State>) -> ReductionWatch<State>

  /// Creates a watcher.
  ///
  /// - Parameters:
  ///   - value: Reads the watched value from a state; it runs while the store reduces, like a
  ///     reducer, and must not read the store.
  ///   - onReduced: Called with the value before and after each reduction, as
  ///     ``Next/callAsFunction(_:watching:onReduced:)`` calls its `onReduced`.
  @inlinable
  public init<Value: Sendable>(
    watching value: @escaping @Sendable (State) -> Value,
    onReduced: @escaping @Sendable (Reduction<Value>) -> Void
  ) {
    alone = ReductionWatch(value: value, onReduced: onReduced, outer: nil)
    inside = { outer in ReductionWatch(value: value, onReduced: onReduced, outer: outer) }
  }
}

/// An action's change, decided but not made yet: what a middleware that passed the action on
/// with ``Next/callAsFunction(_:willCommit:)`` is shown before the change becomes visible.
public struct PendingChange: Sendable {
  /// The action whose change it is: the one passed on, or what a later middleware passed on
  /// in its place; for a `Batch`, the batch.
  public let action: any Action
  /// The keys of the mutators whose handlers make the change, in the order they run.
  ///
  /// For a `Batch`, those of all its actions, in order. Empty when no mutator handles the
  /// action.
  public let mutators: [MutatorKey]
  /// Whether the change replaces the whole state: a `ReplaceState`, or a batch holding one.
  public let replacesState: Bool

  /// Creates a pending change.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - mutators: The keys of the mutators that make the change.
  ///   - replacesState: Whether it replaces the whole state.
  public init(action: any Action, mutators: [MutatorKey], replacesState: Bool = false) {
    self.action = action
    self.mutators = mutators
    self.replacesState = replacesState
  }
}

/// The watches of a reduction made by the middleware an action passed, innermost first: what a
/// flow carries once a middleware passed its action on watching it
/// (``Next/callAsFunction(_:watching:onReduced:)``) or asking to be told before it commits
/// (``Next/callAsFunction(_:willCommit:)``).
///
/// Closures, made in `Next` where the state and the watched value's types are known, so that
/// they run compiled for them; each captures the watch before it (`outer`). Nothing is made per
/// reduction: the value before lives on the closure's stack while the action is reduced.
/// (Measured, undo on a counter: a generic watch class called through a protocol ran
/// unspecialised and looked up `Reduction`'s metadata twice per action, about 660
/// instructions.)
///
/// A class, so that a flow carries one reference however many kinds of watch it holds:
/// measured, a flow carrying the two closures inline was copied through value witnesses, about
/// 350 instructions more per dispatch on a counter, watched or not.
@usableFromInline
final class ReductionWatch<State: Sendable>: Sendable {
  /// Reads each watched value before `reduce`, runs it, then reads each value after it and
  /// tells each middleware.
  ///
  /// It tells them outermost first: at once, or through `later` (for a batch's actions, once
  /// the batch commits). Nil when no middleware watches values. Its arguments: the state, read
  /// in place; the action reduced; where to keep a call for later (nil: call at once); and
  /// `reduce`, which reduces the action, tells the store's observers and returns whether
  /// anything was reduced (nothing is told otherwise). It returns what `reduce` returned, and
  /// throws what `reduce` throws (then nothing is told).
  @usableFromInline let run:
    (
      @Sendable (
        _ state: () -> State, _ action: any Action, _ store: ObjectIdentifier,
        _ later: ((@escaping @Sendable () -> Void) -> Void)?,
        _ reduce: () throws(DispatchError) -> Bool
      ) throws(DispatchError) -> Bool
    )?

  /// Shows a decided change to each middleware that asked, before the change is visible.
  ///
  /// Innermost first; the first that throws refuses it (the store then leaves the state as it
  /// was). Nil when no middleware asked.
  @usableFromInline let willCommit: (@Sendable (PendingChange) throws(DispatchError) -> Void)?

  /// Runs the watches around a reduction: see ``run``.
  ///
  /// - Parameters:
  ///   - state: Reads the state, in place.
  ///   - action: The action reduced.
  ///   - store: The identity of the store reducing it.
  ///   - later: Keeps a call for later; nil to call at once.
  ///   - reduce: Reduces the action and tells the store's observers; returns whether anything
  ///     was reduced.
  /// - Throws: What `reduce` throws.
  @inlinable
  func around(
    _ state: () -> State, action: any Action, store: ObjectIdentifier,
    later: ((@escaping @Sendable () -> Void) -> Void)?,
    _ reduce: () throws(DispatchError) -> Bool
  ) throws(DispatchError) {
    if let run {
      _ = try run(state, action, store, later, reduce)
    } else {
      _ = try reduce()
    }
  }

  /// A watch of one value, inside the watches in `outer`.
  ///
  /// - Parameters:
  ///   - value: Reads the watched value from a state.
  ///   - onReduced: Told the value before and after each reduction.
  ///   - outer: The watches of the middleware before this one.
  @inlinable
  init<Value: Sendable>(
    value: @escaping @Sendable (State) -> Value,
    onReduced: @escaping @Sendable (Reduction<Value>) -> Void,
    outer: ReductionWatch<State>?
  ) {
    let outerRun = outer?.run
    willCommit = outer?.willCommit
    run = { state, action, store, later, reduce throws(DispatchError) in
      let before = value(state())
      let reduced: Bool
      if let outerRun {
        reduced = try outerRun(state, action, store, later, reduce)
      } else {
        reduced = try reduce()
      }
      guard reduced else { return false }
      let reduction = Reduction(action: action, before: before, after: value(state()), store: store)
      if let later {
        later { onReduced(reduction) }
      } else {
        onReduced(reduction)
      }
      return true
    }
  }

  /// A request to be shown the change before it commits, inside the watches in `outer`.
  ///
  /// - Parameters:
  ///   - middleware: The name of the middleware that asked, for the error if `body` throws.
  ///   - body: Shown the change; throws to refuse it.
  ///   - outer: The watches of the middleware before this one.
  @inlinable
  init(
    middleware: String,
    willCommit body: @escaping @Sendable (PendingChange) throws -> Void,
    outer: ReductionWatch<State>?
  ) {
    run = outer?.run
    let outerWillCommit = outer?.willCommit
    willCommit = { change throws(DispatchError) in
      do {
        try body(change)
      } catch let error as DispatchError {
        throw error
      } catch {
        throw .middlewareFailed(name: middleware, action: change.action, underlying: error)
      }
      try outerWillCommit?(change)
    }
  }
}
