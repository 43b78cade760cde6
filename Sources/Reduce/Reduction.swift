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

  /// Creates a reduction.
  ///
  /// - Parameters:
  ///   - action: The action that was reduced.
  ///   - before: The value before.
  ///   - after: The value after.
  public init(action: any Action, before: Value, after: Value) {
    self.action = action
    self.before = before
    self.after = after
  }
}

/// A middleware's watch of a reduction, with those of the middleware before it: what a flow
/// carries once a middleware passed its action on watching.
///
/// One closure, made by ``Next/callAsFunction(_:watching:onReduced:)`` where the state and the
/// watched value's types are known, so that it runs compiled for them; it captures the watch
/// before it (`outer`). Nothing is made per reduction: the value before lives on the closure's
/// stack while the action is reduced. (Measured, undo on a counter: a generic watch class
/// called through a protocol ran unspecialised and looked up `Reduction`'s metadata twice per
/// action, about 660 instructions.)
@usableFromInline
struct ReductionWatch<State: Sendable>: Sendable {
  /// Reads each watched value before `reduce`, runs it, then reads each value after it and
  /// tells each middleware, outermost first: at once, or through `later` (for a batch's
  /// actions, once the batch commits).
  ///
  /// Its arguments: the state, read in place; the action
  /// reduced; where to keep a call for later (nil: call at once); and `reduce`, which reduces
  /// the action, tells the store's observers and returns whether anything was reduced (nothing
  /// is told otherwise). It returns what `reduce` returned, and throws what `reduce` throws
  /// (then nothing is told).
  @usableFromInline let run:
    @Sendable (
      _ state: () -> State, _ action: any Action,
      _ later: ((@escaping @Sendable () -> Void) -> Void)?,
      _ reduce: () throws(DispatchError) -> Bool
    ) throws(DispatchError) -> Bool

  /// Runs the watch around a reduction: see ``run``.
  ///
  /// - Parameters:
  ///   - state: Reads the state, in place.
  ///   - action: The action reduced.
  ///   - later: Keeps a call for later; nil to call at once.
  ///   - reduce: Reduces the action and tells the store's observers; returns whether anything
  ///     was reduced.
  /// - Returns: What `reduce` returned.
  /// - Throws: What `reduce` throws.
  @inlinable
  func around(
    _ state: () -> State, action: any Action,
    later: ((@escaping @Sendable () -> Void) -> Void)?,
    _ reduce: () throws(DispatchError) -> Bool
  ) throws(DispatchError) -> Bool {
    try run(state, action, later, reduce)
  }

  /// A watch of one value, after the watches in `outer`.
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
    run = { state, action, later, reduce throws(DispatchError) in
      let before = value(state())
      let reduced: Bool
      if let outer {
        reduced = try outer.run(state, action, later, reduce)
      } else {
        reduced = try reduce()
      }
      guard reduced else { return false }
      let reduction = Reduction(action: action, before: before, after: value(state()))
      if let later {
        later { onReduced(reduction) }
      } else {
        onReduced(reduction)
      }
      return true
    }
  }
}
