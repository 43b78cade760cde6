import Foundation
import Reduce
import ReduceTesting
import ReduceThrottle
import Testing

/// A clock whose time the test sets and whose sleeps end only when cancelled: every timer of
/// the middleware is late, so arrivals meet overdue intervals and quiet times.
final class LateClock: Clock, @unchecked Sendable {
  // `@unchecked`: `current` is only read and written under `lock`.
  typealias Instant = ManualClock.Instant

  private let lock = NSLock()
  private var current = Instant.zero

  var now: Instant { lock.withLock { current } }
  var minimumResolution: Duration { .zero }

  func set(milliseconds: Int) {
    lock.withLock { current = ms(milliseconds) }
  }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    let (never, continuation) = AsyncStream<Never>.makeStream()
    defer { continuation.finish() }
    for await _ in never {}  // Ends when the task is cancelled.
    throw CancellationError()
  }
}

@Suite struct LateTimerTests {
  func makeStore(_ rule: ThrottleRule) throws -> (
    Store<Editor>, ThrottleMiddleware<Editor>, LateClock
  ) {
    let clock = LateClock()
    let throttle = try ThrottleMiddleware<Editor>(rules: [rule], clock: clock)
    let store = try Store(initialState: Editor(), mutators: editorMutators, middleware: [throttle])
    return (store, throttle, clock)
  }

  @Test(
    "an action after an overdue interval lets the held action go first, then is held for the next interval"
  )
  func overdueThrottleWithHeld() throws {
    let (store, throttle, clock) = try makeStore(
      .throttle(ScrollAction.self, for: .seconds(1), latest: true))
    store.dispatch(ScrollAction.scrolled(to: 1))
    clock.set(milliseconds: 500)
    store.dispatch(ScrollAction.scrolled(to: 2))
    clock.set(milliseconds: 1500)
    let state = try store.dispatch(ScrollAction.scrolled(to: 3)).get()
    #expect(state.scroll == 2)
    #expect(throttle.heldCount == 1)
    throttle.flush()
    #expect(store.state.scroll == 3)
  }

  @Test("an action after an overdue interval with nothing held passes at once")
  func overdueThrottleIdle() throws {
    let (store, throttle, clock) = try makeStore(
      .throttle(ScrollAction.self, for: .seconds(1), latest: false))
    store.dispatch(ScrollAction.scrolled(to: 1))
    clock.set(milliseconds: 2000)
    #expect(try store.dispatch(ScrollAction.scrolled(to: 2)).get().scroll == 2)
    #expect(throttle.heldCount == 0)
  }

  @Test("an action after an overdue quiet time lets the held action go first, then starts a burst")
  func overdueDebounce() throws {
    let (store, throttle, clock) = try makeStore(.debounce(SearchAction.self, for: .seconds(1)))
    store.dispatch(SearchAction.queryChanged("a"))
    clock.set(milliseconds: 3000)
    let state = try store.dispatch(SearchAction.queryChanged("b")).get()
    #expect(state.query == "a")
    #expect(throttle.heldCount == 1)
  }
}
