public import Reduce

/// A middleware that holds back actions by rules: throttling (at most one per interval) and
/// debouncing (only the last one, after a quiet time).
///
/// Each ``ThrottleRule`` matches actions by type or by a key closure; actions of one key form
/// one stream, timed independently of every other key. Actions no rule matches pass through
/// untouched, at once. A held action is delivered later through the `next` of the dispatch that
/// brought it: the rest of the chain and the reducers then run as a dispatch of their own,
/// serialized with every other dispatch, and observers are notified as usual.
///
/// ```swift
/// let throttle = try ThrottleMiddleware<AppState>(rules: [
///   .debounce(SearchAction.self, for: .milliseconds(300)),
///   .throttle(ScrollAction.self, for: .milliseconds(100), latest: true),
/// ])
/// let store = try Store(initialState: AppState(), mutators: [search, scroll],
///                       middleware: [throttle])
/// ```
///
/// Time comes from the injected clock. When the clock is also a `TaskExecutor` (as
/// `ReduceTesting.ManualClock` is), the middleware's timer task prefers it as its executor, so a
/// test clock can run the deliveries when it advances.
///
/// The middleware's copies share one state: keep a copy to call ``flush()`` or
/// ``cancel(key:)``, or dispatch ``ThrottleAction``. One middleware serves one store at a time;
/// when it leaves the store (`Store.removeMiddleware(named:)` or the store's
/// deinitialisation) its timer stops and every held action is dropped.
///
/// > Note: Key closures run outside the middleware's lock; a key's `hash(into:)` and `==` run
/// > under it and must not dispatch.
public struct ThrottleMiddleware<State: Sendable>: Middleware {
  /// The middleware's name in the chain.
  public let name: String
  private let engine: any ThrottleEngine<State>

  /// Creates a throttle middleware.
  ///
  /// - Parameters:
  ///   - rules: The rules, in priority order: the first rule that matches an action decides.
  ///   - clock: The clock that times the rules; `ContinuousClock` by default.
  ///   - name: The middleware's name, unique in a store's chain.
  /// - Throws: The ``ThrottleError`` of the first rule with invalid options: an interval or
  ///   duration that is not positive, or a `maxWait` shorter than its debounce duration.
  public init(
    rules: [ThrottleRule],
    clock: some Clock<Duration> = ContinuousClock(),
    name: String = "ThrottleMiddleware"
  ) throws(ThrottleError) {
    // Inlined where the store's state type is concrete, this closure is compiled for it: an
    // action passed on at once then runs the rest of the chain specialised.
    try self.init(rules: rules, clock: clock, name: name) { action, next throws(DispatchError) in
      try next(action)
    }
  }

  init(
    rules: [ThrottleRule], clock: some Clock<Duration>, name: String,
    forward: @escaping @Sendable (any Action, Next<State>) throws(DispatchError) -> Void
  ) throws(ThrottleError) {
    for (index, rule) in rules.enumerated() {
      if let error = rule.validate(index: index) { throw error }
    }
    self.name = name
    self.engine = ClockedThrottleEngine<State, _>(rules: rules, clock: clock, forward: forward)
  }

  /// The number of actions held back now, at most one per key.
  ///
  /// - Complexity: O(*k*), where *k* is the number of keys with an active interval or burst.
  public var heldCount: Int {
    engine.heldCount
  }

  /// Delivers every held action now, in arrival order, and starts every key afresh.
  ///
  /// Afterwards no action is held and no interval is running: the next action of a throttled
  /// key passes at once. Called from inside a dispatch (an observer, a middleware), the
  /// deliveries run right after the current action, before the outer dispatch returns.
  public func flush() {
    engine.flush()
  }

  /// Drops what is held for a key, and starts that key afresh.
  ///
  /// The key is dropped from every rule that uses it. Other keys are untouched.
  ///
  /// - Parameter key: The key: a ``ThrottleKey``, or a value a key closure returns.
  public func cancel(key: some Hashable & Sendable) {
    engine.cancel(key: ThrottleKey(key))
  }

  /// Holds back, delays or passes on an action by the rules; performs ``ThrottleAction``s.
  ///
  /// The actions of a `Batch` go through the rules as any action does: one held back is not
  /// part of the batch, and is delivered later as a dispatch of its own.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - context: The store's context.
  ///   - next: Passes the action on, now or later.
  /// - Throws: The `DispatchError` of an action passed on at once.
  public func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>)
    throws
  {
    try engine.handle(action, next: next)
  }

  /// Joins a store; refuses a second store while it serves one.
  ///
  /// - Parameter store: The store's identity.
  /// - Throws: An error explaining that the middleware serves another store.
  public func willAttach(to store: ObjectIdentifier) throws {
    try engine.willAttach(to: store)
  }

  /// Leaves a store: stops the timer and drops every held action.
  ///
  /// - Parameter store: The store's identity.
  public func didDetach(from store: ObjectIdentifier) {
    engine.didDetach(from: store)
  }
}
