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

/// One middleware's watch of a reduction, erased over the watched value's type.
///
/// In three steps: `begin` reads the value before the reduction; what it returns reads the
/// value after it; what that returns tells the middleware. The last step is separate so that
/// the watches of a batch's actions, read when each is reduced, are told only once the batch
/// has committed.
@usableFromInline
struct Watch<State: Sendable>: Sendable {
  @usableFromInline let begin:
    @Sendable (State) -> @Sendable (any Action, State) -> @Sendable () -> Void

  @inlinable
  init<Value: Sendable>(
    value: @escaping @Sendable (State) -> Value,
    onReduced: @escaping @Sendable (Reduction<Value>) -> Void
  ) {
    begin = { state in
      let before = value(state)
      return { action, state in
        let reduction = Reduction(action: action, before: before, after: value(state))
        return { onReduced(reduction) }
      }
    }
  }
}

/// The watches a flow carries, innermost (the last middleware that added one) first.
@usableFromInline
final class WatchList<State: Sendable>: Sendable {
  @usableFromInline let watch: Watch<State>
  @usableFromInline let outer: WatchList<State>?

  @inlinable
  init(_ watch: Watch<State>, outer: WatchList<State>?) {
    self.watch = watch
    self.outer = outer
  }

  /// Reads every watched value before a reduction.
  ///
  /// - Returns: What to call after the reduction committed: each watch's end, outermost first.
  @inlinable
  func begin(_ state: State) -> WatchEnds<State> {
    var ends: [@Sendable (any Action, State) -> @Sendable () -> Void] = []
    var node: WatchList? = self
    while let current = node {
      ends.append(current.watch.begin(state))
      node = current.outer
    }
    return WatchEnds(ends: ends.reversed())
  }
}

/// The second halves of a reduction's watches.
@usableFromInline
struct WatchEnds<State: Sendable> {
  @usableFromInline let ends: [@Sendable (any Action, State) -> @Sendable () -> Void]

  @inlinable
  init(ends: [@Sendable (any Action, State) -> @Sendable () -> Void]) {
    self.ends = ends
  }

  /// Reads every watched value after the reduction.
  ///
  /// - Returns: The calls that tell the middleware, outermost first.
  @inlinable
  func end(_ action: any Action, _ state: State) -> [@Sendable () -> Void] {
    ends.map { $0(action, state) }
  }
}
