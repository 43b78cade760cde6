import Reduce

/// One stream of a throttle middleware: a rule and a key.
struct StreamID: Hashable, Sendable {
  let rule: Int
  let key: ThrottleKey
}

/// An action held back, with the `next` of the dispatch that brought it.
struct HeldAction<State: Sendable>: Sendable {
  let action: any Action
  let next: Next<State>
  /// Arrival order across every stream of the middleware.
  let order: UInt64

  /// Passes the action on to the rest of the chain, as a dispatch of its own.
  func deliver() {
    do {
      try next(action)
    } catch {
      // A late `next` publishes its failure on the store's `errors` and gives it to the
      // fallback itself; there is no caller left to rethrow it to.
    }
  }
}

/// The timing state of one stream.
struct Stream<State: Sendable, Instant: InstantProtocol>: Sendable {
  var held: HeldAction<State>?
  /// The end of the current interval (throttle) or of the quiet time (debounce).
  var deadline: Instant
  /// Debounce with `maxWait`: the latest delivery time of the current burst.
  var maxDeadline: Instant?
  /// The generation of the stream's one live timer.
  var generation: UInt64 = 0

  /// When the stream's timer must act.
  var due: Instant {
    guard let maxDeadline, maxDeadline < deadline else { return deadline }
    return maxDeadline
  }
}

/// A timer entry: wake at `deadline` for the stream `id`, if its generation is still live.
struct Timer<Instant: InstantProtocol>: Comparable, Sendable {
  let deadline: Instant
  /// Breaks ties between equal deadlines: earlier pushes fire first.
  let order: UInt64
  let id: StreamID
  let generation: UInt64

  static func < (lhs: Timer, rhs: Timer) -> Bool {
    lhs.deadline < rhs.deadline || (lhs.deadline == rhs.deadline && lhs.order < rhs.order)
  }

  static func == (lhs: Timer, rhs: Timer) -> Bool {
    lhs.order == rhs.order
  }
}

/// What the middleware must do, after releasing its lock, about an arriving action.
struct Arrival<State: Sendable>: Sendable {
  /// Pass the arriving action on now.
  var passNow = false
  /// Held actions whose time came before the arriving one; deliver them first.
  var late: [HeldAction<State>] = []
  /// Held actions replaced by the arriving one; released after the lock.
  var dropped: [HeldAction<State>] = []
  /// Start a driver for a new, earlier deadline.
  var wake: DriverStart?
}

/// Start a driver task of a generation, cancelling the one it replaces.
struct DriverStart: Sendable {
  let generation: UInt64
  let replaced: Task<Void, Never>?
}

/// What the driver task does next.
enum DriverStep<State: Sendable, Instant: InstantProtocol>: Sendable {
  /// Deliver these actions, then ask again.
  case deliver([HeldAction<State>])
  /// Sleep until this instant, then ask again.
  case sleep(until: Instant)
  /// Stop: nothing is scheduled, or a newer driver took over.
  case exit
}

/// The timing state of a throttle middleware, changed only under its lock.
///
/// Invariant: every stream has exactly one live timer in `timers` (the one whose generation
/// matches the stream's); every other timer there is stale and is skipped when popped.
struct ThrottleBook<State: Sendable, Instant: InstantProtocol>: Sendable
where Instant.Duration == Duration {
  enum Driver: Sendable {
    case idle
    case running
    case sleeping(until: Instant)
  }

  /// The timing of each rule, by index.
  let timings: [ThrottleRule.Timing]
  var streams: [StreamID: Stream<State, Instant>] = [:]
  var timers = DeadlineHeap<Timer<Instant>>()
  var driver = Driver.idle
  var driverGeneration: UInt64 = 0
  var driverTask: Task<Void, Never>?
  /// The store the middleware serves, and how many times it joined it.
  var attachment: (store: ObjectIdentifier, count: Int)?
  private var lastOrder: UInt64 = 0
  private var lastGeneration: UInt64 = 0

  init(timings: [ThrottleRule.Timing]) {
    self.timings = timings
  }

  var heldCount: Int {
    streams.values.reduce(0) { $0 + ($1.held == nil ? 0 : 1) }
  }

  private mutating func nextOrder() -> UInt64 {
    lastOrder &+= 1
    return lastOrder
  }

  // MARK: Arrivals

  /// Decides what happens to an action a throttle rule matched.
  mutating func throttle(
    _ action: any Action, next: Next<State>, id: StreamID, at now: Instant,
    interval: Duration, latest: Bool
  ) -> Arrival<State> {
    var arrival = Arrival<State>()
    if var stream = streams[id] {
      if stream.deadline <= now {
        // The interval is over but its timer has not fired yet.
        guard let late = stream.held else {
          streams[id] = nil
          return startInterval(id, at: now, interval: interval, arrival)
        }
        // The held action is due: it is delivered now and starts the next interval.
        arrival.late.append(late)
        stream.held = nil
        stream.deadline = now.advanced(by: interval)
        schedule(&stream, id)
        arrival.wake = wakeDriver(for: stream.deadline)
      }
      if latest {
        if let replaced = stream.held { arrival.dropped.append(replaced) }
        stream.held = HeldAction(action: action, next: next, order: nextOrder())
      }
      streams[id] = stream
      return arrival
    }
    return startInterval(id, at: now, interval: interval, arrival)
  }

  /// Lets an action through and starts an interval for its stream.
  private mutating func startInterval(
    _ id: StreamID, at now: Instant, interval: Duration, _ arrival: Arrival<State>
  ) -> Arrival<State> {
    var arrival = arrival
    arrival.passNow = true
    var stream = Stream<State, Instant>(held: nil, deadline: now.advanced(by: interval))
    schedule(&stream, id)
    streams[id] = stream
    arrival.wake = wakeDriver(for: stream.deadline)
    return arrival
  }

  /// Decides what happens to an action a debounce rule matched.
  mutating func debounce(
    _ action: any Action, next: Next<State>, id: StreamID, at now: Instant,
    duration: Duration, maxWait: Duration?
  ) -> Arrival<State> {
    var arrival = Arrival<State>()
    let held = HeldAction(action: action, next: next, order: nextOrder())
    if var stream = streams[id] {
      if stream.due > now {
        if let replaced = stream.held { arrival.dropped.append(replaced) }
        stream.held = held
        stream.deadline = now.advanced(by: duration)
        // The live timer is at the old, earlier due time; when it fires it reschedules.
        streams[id] = stream
        return arrival
      }
      // The burst is over but its timer has not fired yet: deliver it, start a new burst.
      if let late = stream.held { arrival.late.append(late) }
      streams[id] = nil
    }
    var stream = Stream<State, Instant>(
      held: held, deadline: now.advanced(by: duration),
      maxDeadline: maxWait.map { now.advanced(by: $0) })
    schedule(&stream, id)
    streams[id] = stream
    arrival.wake = wakeDriver(for: stream.due)
    return arrival
  }

  // MARK: Timers

  /// Pushes the stream's new live timer at its due time.
  private mutating func schedule(_ stream: inout Stream<State, Instant>, _ id: StreamID) {
    lastGeneration &+= 1
    stream.generation = lastGeneration
    timers.push(Timer(deadline: stream.due, order: nextOrder(), id: id, generation: lastGeneration))
  }

  /// Starts a driver when none would wake by `deadline`.
  private mutating func wakeDriver(for deadline: Instant) -> DriverStart? {
    switch driver {
    case .running:
      return nil
    case .sleeping(let until) where until <= deadline:
      return nil
    case .idle, .sleeping:
      return startDriver()
    }
  }

  private mutating func startDriver() -> DriverStart {
    driverGeneration &+= 1
    driver = .running
    defer { driverTask = nil }
    return DriverStart(generation: driverGeneration, replaced: driverTask)
  }

  /// Stops the driver; returns its task, to cancel after the lock.
  mutating func stopDriver() -> Task<Void, Never>? {
    driverGeneration &+= 1
    driver = .idle
    defer { driverTask = nil }
    return driverTask
  }

  /// Fires the timers due by `now` for the driver of `generation`, or tells it how long to
  /// sleep.
  mutating func step(now: Instant, generation: UInt64) -> DriverStep<State, Instant> {
    guard generation == driverGeneration else { return .exit }
    var deliveries: [HeldAction<State>] = []
    while let timer = timers.min, timer.deadline <= now {
      timers.popMin()
      guard var stream = streams[timer.id], stream.generation == timer.generation else {
        continue
      }
      if stream.due > now {
        // A debounced stream got a later action: wait for its new due time.
        schedule(&stream, timer.id)
        streams[timer.id] = stream
        continue
      }
      if let held = stream.held { deliveries.append(held) }
      if let interval = throttleInterval(of: timer.id), stream.held != nil {
        // The delivery starts the stream's next interval.
        stream.held = nil
        stream.deadline = now.advanced(by: interval)
        schedule(&stream, timer.id)
        streams[timer.id] = stream
      } else {
        streams[timer.id] = nil
      }
    }
    if !deliveries.isEmpty {
      driver = .running
      return .deliver(deliveries)
    }
    compactIfNeeded()
    guard let first = timers.min else {
      driver = .idle
      driverTask = nil
      return .exit
    }
    driver = .sleeping(until: first.deadline)
    return .sleep(until: first.deadline)
  }

  /// The driver of `generation` could not sleep; let the next arrival start another.
  mutating func driverFailed(generation: UInt64) {
    guard generation == driverGeneration else { return }
    driver = .idle
    driverTask = nil
  }

  /// The interval of the rule of a throttled stream, or `nil` for a debounced one.
  private func throttleInterval(of id: StreamID) -> Duration? {
    guard case .throttle(let interval, _) = timings[id.rule] else { return nil }
    return interval
  }

  // MARK: Flush, cancel, detach

  /// Takes every held action out, in arrival order, and forgets every stream.
  mutating func takeAll() -> (held: [HeldAction<State>], streams: [Stream<State, Instant>]) {
    let all = Array(streams.values)
    streams = [:]
    timers = DeadlineHeap()
    let held = all.compactMap(\.held).sorted { $0.order < $1.order }
    return (held, all)
  }

  /// Forgets the streams of a key in every rule.
  mutating func remove(key: ThrottleKey, rules: Int) -> [Stream<State, Instant>] {
    var removed: [Stream<State, Instant>] = []
    for rule in 0..<rules {
      if let stream = streams.removeValue(forKey: StreamID(rule: rule, key: key)) {
        removed.append(stream)
      }
    }
    if streams.isEmpty { timers = DeadlineHeap() } else { compactIfNeeded() }
    return removed
  }

  /// Drops stale timers once they outnumber the live ones, so memory follows the streams.
  private mutating func compactIfNeeded() {
    guard timers.count > 2 * streams.count + 64 else { return }
    timers = DeadlineHeap(
      timers.elements.filter { streams[$0.id]?.generation == $0.generation })
  }
}
