import Dispatch
import Reduce

/// A clock whose time moves only when a test tells it to, so that tests of timed code never
/// sleep.
///
/// `now` starts at ``Instant/zero`` (or the instant given to ``init(now:)``) and moves only by
/// ``advance(by:)`` and ``advance(to:)``. A task that sleeps on the clock is resumed when an
/// advance reaches its deadline.
///
/// The clock is also a `TaskExecutor`. Tasks that prefer it (`Task(executorPreference: clock)`,
/// or code inside `withTaskExecutorPreference(clock)`) run one job at a time on the clock's own
/// queue, which lets an advance wait until their work is done: when `advance` returns, every
/// such task woken by it has run until it waits again (sleeps on the clock, or ends). Code that
/// takes a clock can opt in by preferring the clock as its tasks' executor when the clock is a
/// `TaskExecutor`, as `ThrottleMiddleware` does.
///
/// ```swift
/// let clock = ManualClock()
/// let task = Task(executorPreference: clock) {
///   try await clock.sleep(for: .seconds(1))
///   return clock.now
/// }
/// await clock.advance(by: .seconds(1))
/// #expect(try await task.value == ManualClock.Instant(offset: .seconds(1)))
/// ```
///
/// > Note: Only one advance runs at a time; an advance that starts while another one runs waits
/// > for it. Time never moves backwards: advancing to an earlier instant only lets the clock's
/// > tasks run.
public final class ManualClock: Clock, TaskExecutor, Sendable {
  /// Durations are Swift's `Duration`.
  public typealias Duration = Swift.Duration

  /// A task sleeping on the clock.
  private struct Sleeper: Sendable {
    let id: UInt64
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  /// How a call to `sleep` ends before it suspends.
  private enum SleepStart {
    case cancelled
    case due
    case sleeping
  }

  private struct State: Sendable {
    var now: Instant
    /// Sorted by deadline, then by the order in which the tasks went to sleep.
    var sleepers: [Sleeper] = []
    var lastID: UInt64 = 0
    /// Sleepers an advance resumed that have not yet returned from `sleep`.
    var resumed: Set<UInt64> = []
    var returnWaiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
    /// Jobs enqueued on the clock's queue that have not finished running.
    var pendingJobs = 0
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    var isAdvancing = false
    var advanceWaiters: [CheckedContinuation<Void, Never>] = []

    mutating func makeID() -> UInt64 {
      lastID &+= 1
      return lastID
    }

    mutating func insert(_ sleeper: Sleeper) {
      // Binary search for the first sleeper with a later deadline: ties keep arrival order.
      var low = 0
      var high = sleepers.count
      while low < high {
        let middle = (low + high) / 2
        if sleepers[middle].deadline <= sleeper.deadline {
          low = middle + 1
        } else {
          high = middle
        }
      }
      sleepers.insert(sleeper, at: low)
    }

    mutating func removeSleeper(_ id: UInt64) -> Sleeper? {
      guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
      return sleepers.remove(at: index)
    }

    /// Takes the earliest sleeper due by `target` and moves time to its deadline; when none is
    /// due, moves time to `target`.
    mutating func takeDue(by target: Instant) -> Sleeper? {
      guard let first = sleepers.first, first.deadline <= target else {
        if target > now { now = target }
        return nil
      }
      sleepers.removeFirst()
      if first.deadline > now { now = first.deadline }
      resumed.insert(first.id)
      return first
    }
  }

  private let state: Locked<State>
  private let queue = DispatchQueue(label: "ReduceTesting.ManualClock")

  /// Creates a clock that stands still at an instant.
  ///
  /// - Parameter now: The clock's time until it is advanced.
  public init(now: Instant = .zero) {
    state = Locked(State(now: now))
  }

  /// The clock's current time.
  public var now: Instant {
    state.withLock { $0.now }
  }

  /// The clock measures time exactly.
  public var minimumResolution: Duration { .zero }

  /// The number of tasks sleeping on the clock.
  public var sleeperCount: Int {
    state.withLock { $0.sleepers.count }
  }

  /// The earliest deadline any task sleeps until, or `nil` when none sleeps.
  public var nextDeadline: Instant? {
    state.withLock { $0.sleepers.first?.deadline }
  }

  /// Suspends the calling task until an advance of the clock reaches a deadline.
  ///
  /// A deadline that is not later than ``now`` returns at once. Cancelling the task ends the sleep
  /// at once with `CancellationError`, without an advance.
  ///
  /// - Parameters:
  ///   - deadline: The instant to wake at.
  ///   - tolerance: Ignored: the clock is exact.
  /// - Throws: `CancellationError` when the task is or becomes cancelled before the deadline.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    let id = state.withLock { $0.makeID() }
    defer { didReturn(id) }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        let start: SleepStart = state.withLock { state in
          // Checked under the lock: a cancellation after this check finds the sleeper below.
          if Task.isCancelled { return .cancelled }
          if deadline <= state.now { return .due }
          state.insert(Sleeper(id: id, deadline: deadline, continuation: continuation))
          return .sleeping
        }
        switch start {
        case .cancelled: continuation.resume(throwing: CancellationError())
        case .due: continuation.resume()
        case .sleeping: break
        }
      }
    } onCancel: {
      let sleeper = state.withLock { $0.removeSleeper(id) }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Moves time forward and resumes, in deadline order, every task whose deadline it reaches.
  ///
  /// The clock moves to each sleeper's deadline in turn, resumes it, and waits until it has
  /// returned from `sleep` and every task that runs on the clock has run until it waits again,
  /// before it moves on. Work a woken task does at once (including sleeping again until a
  /// deadline the advance also reaches) is therefore done, at the right instant, when `advance`
  /// returns. Sleepers with equal deadlines resume in the order they went to sleep.
  ///
  /// - Parameter duration: How far to move time; a negative duration moves nothing.
  public func advance(by duration: Duration) async {
    await advance { $0.advanced(by: duration) }
  }

  /// Moves time forward to an instant, resuming every task whose deadline it reaches.
  ///
  /// See ``advance(by:)``.
  ///
  /// - Parameter deadline: The instant to move to; an instant not later than ``now`` moves
  ///   nothing.
  public func advance(to deadline: Instant) async {
    await advance { _ in deadline }
  }

  /// Lets every task that runs on the clock work until it waits, without moving time.
  ///
  /// Use it before reading ``sleeperCount`` or ``nextDeadline`` to be sure that tasks that were
  /// just started have gone to sleep.
  public func settle() async {
    await beginAdvance()
    await waitUntilIdle()
    endAdvance()
  }

  /// Runs a job of a task that prefers this clock as its executor, on the clock's queue.
  ///
  /// - Parameter job: The job to run.
  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    state.withLock { $0.pendingJobs += 1 }
    queue.async {
      job.runSynchronously(on: self.asUnownedTaskExecutor())
      let waiters = self.state.withLock { state in
        state.pendingJobs -= 1
        guard state.pendingJobs == 0 else { return [CheckedContinuation<Void, Never>]() }
        defer { state.idleWaiters = [] }
        return state.idleWaiters
      }
      for waiter in waiters { waiter.resume() }
    }
  }

  // MARK: Advancing

  private func advance(_ target: (Instant) -> Instant) async {
    await beginAdvance()
    let target = target(now)
    await waitUntilIdle()
    while let sleeper = state.withLock({ $0.takeDue(by: target) }) {
      sleeper.continuation.resume()
      await waitUntilReturned(sleeper.id)
      await waitUntilIdle()
    }
    endAdvance()
  }

  /// Waits for the advances that started before this one.
  private func beginAdvance() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let mayStart = state.withLock { state in
        if state.isAdvancing {
          state.advanceWaiters.append(continuation)
          return false
        }
        state.isAdvancing = true
        return true
      }
      if mayStart { continuation.resume() }
    }
  }

  /// Hands the clock to the next waiting advance.
  private func endAdvance() {
    let next: CheckedContinuation<Void, Never>? = state.withLock { state in
      guard !state.advanceWaiters.isEmpty else {
        state.isAdvancing = false
        return nil
      }
      return state.advanceWaiters.removeFirst()
    }
    next?.resume()
  }

  /// Waits until no job of a task that runs on the clock is queued or running.
  private func waitUntilIdle() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let isIdle = state.withLock { state in
        if state.pendingJobs == 0 { return true }
        state.idleWaiters.append(continuation)
        return false
      }
      if isIdle { continuation.resume() }
    }
  }

  /// Waits until a resumed sleeper has returned from `sleep`.
  private func waitUntilReturned(_ id: UInt64) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let hasReturned = state.withLock { state in
        if !state.resumed.contains(id) { return true }
        state.returnWaiter = (id, continuation)
        return false
      }
      if hasReturned { continuation.resume() }
    }
  }

  /// Notes that a call to `sleep` returned, and wakes the advance waiting for it.
  private func didReturn(_ id: UInt64) {
    let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
      guard state.resumed.remove(id) != nil else { return nil }
      guard let waiter = state.returnWaiter, waiter.id == id else { return nil }
      state.returnWaiter = nil
      return waiter.continuation
    }
    waiter?.resume()
  }
}
