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
/// A protocol over the watched value's type: each watch is a ``ValueWatch`` of its middleware's
/// value. One watch object is made per watched `next`, and nothing per reduction: the value
/// before lives on the stack of ``around(_:action:later:_:)`` while the action is reduced.
@usableFromInline
protocol ReductionWatch<State>: AnyObject, Sendable {
  associatedtype State: Sendable

  /// Reads each watched value before `reduce`, runs it, then reads each value after it and tells
  /// each middleware, outermost first: at once, or through `later` (for a batch's actions,
  /// once the batch commits).
  ///
  /// - Parameters:
  ///   - state: Reads the state, in place.
  ///   - action: The action reduced, for the middleware.
  ///   - later: Keeps a call for later; nil to call at once.
  ///   - reduce: Reduces the action and tells the store's observers; returns whether anything
  ///     was reduced (nothing is told otherwise).
  /// - Returns: What `reduce` returned.
  /// - Throws: What `reduce` throws; then nothing is told.
  func around(
    _ state: () -> State, action: any Action,
    later: ((@escaping @Sendable () -> Void) -> Void)?,
    _ reduce: () throws(DispatchError) -> Bool
  ) throws(DispatchError) -> Bool
}

/// The watch of one value of the state, made by ``Next/callAsFunction(_:watching:onReduced:)``.
///
/// `@unchecked Sendable`: `outer` is set once, by the `next` that made the watch, before the
/// watch is shared; the closures are `Sendable`.
@usableFromInline
final class ValueWatch<State: Sendable, Value: Sendable>: ReductionWatch, @unchecked Sendable {
  @usableFromInline let value: @Sendable (State) -> Value
  @usableFromInline let onReduced: @Sendable (Reduction<Value>) -> Void
  /// The watches of the middleware before this one.
  @usableFromInline var outer: (any ReductionWatch<State>)?

  @inlinable
  init(
    value: @escaping @Sendable (State) -> Value,
    onReduced: @escaping @Sendable (Reduction<Value>) -> Void
  ) {
    self.value = value
    self.onReduced = onReduced
  }

  @inlinable
  func around(
    _ state: () -> State, action: any Action,
    later: ((@escaping @Sendable () -> Void) -> Void)?,
    _ reduce: () throws(DispatchError) -> Bool
  ) throws(DispatchError) -> Bool {
    let before = value(state())
    let reduced: Bool
    if let outer {
      reduced = try outer.around(state, action: action, later: later, reduce)
    } else {
      reduced = try reduce()
    }
    guard reduced else { return false }
    let reduction = Reduction(action: action, before: before, after: value(state()))
    if let later {
      later { [onReduced] in onReduced(reduction) }
    } else {
      onReduced(reduction)
    }
    return true
  }
}
