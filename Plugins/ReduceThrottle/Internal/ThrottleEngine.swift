import Reduce

/// The shared, clock-typed engine behind a ``ThrottleMiddleware`` and its copies.
protocol ThrottleEngine<State>: Sendable {
  associatedtype State: Sendable
  var heldCount: Int { get }
  func handle(_ action: any Action, next: Next<State>) throws
  func flush()
  func cancel(key: ThrottleKey)
  func willAttach(to store: ObjectIdentifier) throws
  func didDetach(from store: ObjectIdentifier)
}

/// Why a throttle middleware refused to join a store.
struct AlreadyAttached: Error, CustomStringConvertible {
  var description: String {
    "this ThrottleMiddleware already serves another store; create one middleware per store."
  }
}

/// The engine for one clock type: rules, the clock, and the timing state under a lock.
///
/// Decisions are made under the lock by ``ThrottleBook``; actions are passed on, tasks started
/// and cancelled, and user code (key closures, the clock) called after it is released.
final class ClockedThrottleEngine<State: Sendable, C: Clock>: ThrottleEngine
where C.Duration == Duration {
  let rules: [ThrottleRule]
  let clock: C
  /// The executor the driver task prefers: the clock itself when it is a `TaskExecutor` (a test
  /// clock that runs timed work when it advances), else none.
  let executor: (any TaskExecutor)?
  let book: Locked<ThrottleBook<State, C.Instant>>
  /// Passes an action on at once, compiled for the store's state type.
  let forward: @Sendable (any Action, Next<State>) throws(DispatchError) -> Void

  init(
    rules: [ThrottleRule], clock: C,
    forward: @escaping @Sendable (any Action, Next<State>) throws(DispatchError) -> Void
  ) {
    self.rules = rules
    self.clock = clock
    self.executor = clock as? any TaskExecutor
    self.book = Locked(ThrottleBook(timings: rules.map(\.timing)))
    self.forward = forward
  }

  var heldCount: Int {
    book.withLock { $0.heldCount }
  }

  func handle(_ action: any Action, next: Next<State>) throws {
    // The type the store planned the action by, not a subclass `type(of:)` would give.
    let type = ObjectIdentifier(action.dispatchedType)
    if type == ObjectIdentifier(ThrottleAction.self), let command = action as? ThrottleAction {
      switch command {
      case .flush: flush()
      case .cancel(let key): cancel(key: key)
      }
      return
    }
    guard let (index, key) = match(action, of: type) else {
      try forward(action, next)
      return
    }
    let id = StreamID(rule: index, key: key)
    let now = clock.now
    let arrival = book.withLock { book in
      // Detached but still handling (a dispatch that started with the old chain): hold nothing.
      guard book.attachment != nil else { return Arrival<State>(passNow: true) }
      switch rules[index].timing {
      case .throttle(let interval, let latest):
        return book.throttle(
          action, next: next, id: id, at: now, interval: interval, latest: latest)
      case .debounce(let duration, let maxWait):
        return book.debounce(
          action, next: next, id: id, at: now, duration: duration, maxWait: maxWait)
      }
    }
    if let wake = arrival.wake { start(wake) }
    for held in arrival.late { held.deliver() }
    if arrival.passNow { try forward(action, next) }
  }

  /// The first rule that matches an action of a type, and the action's key; called outside the
  /// lock.
  private func match(_ action: any Action, of type: ObjectIdentifier) -> (Int, ThrottleKey)? {
    for (index, rule) in rules.enumerated() {
      if let ruleType = rule.actionType, ruleType != type { continue }
      if let key = rule.key(action) { return (index, key) }
    }
    return nil
  }

  func flush() {
    let (held, task, _) = book.withLock { book in
      let (held, streams) = book.takeAll()
      return (held, book.stopDriver(), streams)
    }
    task?.cancel()
    for action in held { action.deliver() }
  }

  func cancel(key: ThrottleKey) {
    let (task, _) = book.withLock { book in
      let removed = book.remove(key: key, rules: rules.count)
      let task = book.streams.isEmpty && !removed.isEmpty ? book.stopDriver() : nil
      return (task, removed)
    }
    task?.cancel()
  }

  func willAttach(to store: ObjectIdentifier) throws {
    let joined = book.withLock { book in
      switch book.attachment {
      case nil:
        book.attachment = (store, 1)
        return true
      case (let attached, let count)? where attached == store:
        book.attachment = (store, count + 1)
        return true
      case .some:
        return false
      }
    }
    if !joined { throw AlreadyAttached() }
  }

  func didDetach(from store: ObjectIdentifier) {
    let (task, _) = book.withLock { book in
      guard let attachment = book.attachment, attachment.store == store else {
        return (Task<Void, Never>?.none, [Stream<State, C.Instant>]())
      }
      guard attachment.count <= 1 else {
        book.attachment = (store, attachment.count - 1)
        return (nil, [])
      }
      book.attachment = nil
      return (book.stopDriver(), book.takeAll().streams)
    }
    task?.cancel()
  }

  // MARK: The driver

  /// Starts a driver task, after cancelling the one it replaces.
  private func start(_ wake: DriverStart) {
    wake.replaced?.cancel()
    let generation = wake.generation
    let task = Task(executorPreference: executor) { [weak self] in
      guard let self else { return }
      await self.drive(generation: generation)
    }
    let isCurrent = book.withLock { book in
      guard book.driverGeneration == generation else { return false }
      book.driverTask = task
      return true
    }
    if !isCurrent { task.cancel() }
  }

  /// Fires due timers and sleeps until the next one, until nothing is scheduled.
  private func drive(generation: UInt64) async {
    while true {
      let now = clock.now
      switch book.withLock({ $0.step(now: now, generation: generation) }) {
      case .exit:
        return
      case .deliver(let held):
        for action in held { action.deliver() }
      case .sleep(let deadline):
        do {
          try await clock.sleep(until: deadline, tolerance: nil)
        } catch {
          // Cancelled: a driver for an earlier deadline replaced this one, or the middleware
          // was flushed, emptied or detached. A clock that fails otherwise leaves the timers
          // to the driver the next arrival starts.
          book.withLock { $0.driverFailed(generation: generation) }
          return
        }
      }
    }
  }
}
