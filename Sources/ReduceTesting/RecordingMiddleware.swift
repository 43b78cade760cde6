public import Reduce

/// A middleware that keeps every action it sees, in order, and passes each one on.
///
/// Place it where you want to look: innermost to see what reaches the reducers (a throttle's
/// late deliveries included), outermost to see what was dispatched. It is a class: keep a
/// reference and read ``actions`` from any thread.
///
/// ```swift
/// let recorder = RecordingMiddleware<AppState>()
/// let store = try Store(initialState: AppState(), middleware: [throttle, recorder])
/// store.dispatch(SearchAction.queryChanged("s"))
/// #expect(recorder.actions(of: SearchAction.self) == [])
/// ```
public final class RecordingMiddleware<State: Sendable>: Middleware {
  /// The middleware's name in the chain.
  public let name: String
  private let recorded = Locked<[any Action]>([])

  /// Creates a recording middleware.
  ///
  /// - Parameter name: The middleware's name, unique in a store's chain.
  public init(name: String = "RecordingMiddleware") {
    self.name = name
  }

  /// Every action seen so far, in the order the middleware saw them.
  public var actions: [any Action] {
    recorded.withLock { $0 }
  }

  /// The actions seen so far that have a type, in order.
  ///
  /// - Parameter type: The action type.
  /// - Returns: The actions of that type.
  public func actions<A: Action>(of type: A.Type) -> [A] {
    recorded.withLock { $0.compactMap { $0 as? A } }
  }

  /// The number of actions seen so far.
  public var count: Int {
    recorded.withLock { $0.count }
  }

  /// Forgets every action seen so far.
  public func removeAll() {
    recorded.withLock { $0.removeAll() }
  }

  /// Records the action, then passes it on.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - context: The store's context (unused).
  ///   - next: Passes the action on.
  /// - Throws: What the rest of the chain throws.
  public func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>)
    throws
  {
    recorded.withLock { $0.append(action) }
    try next(action)
  }
}
