import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Serialises a store's work: one body at a time, each on its caller's own thread.
///
/// This is the one place of the store that knows about threads. It knows nothing of states,
/// actions or middleware: it runs closures. Everything else in the store is single-threaded
/// code that runs inside ``run(_:)`` or ``runSuspending(_:)``.
///
/// Every body runs on the thread (or in the task) that asked, never on another's. So a body
/// sees its caller's task-local values, which is what makes an action's middleware and
/// reducers see its dispatcher's task-locals, under contention too. Nothing is handed from one
/// thread to another to run.
///
/// The turn is an unfair lock: a thread that releases it and asks again at once usually gets it
/// back, and a waiter is woken to compete for it, not handed it. That keeps a busy store busy
/// (a hand-over costs a context switch for every body); the price is that waiting is not FIFO.
/// At most one waiter is woken at a time: until it has run and competed, a release wakes no
/// other (otherwise every release under contention would cost a system call).
///
/// Uncontended, taking and giving back the turn is one atomic operation each on `state`: 0 when
/// the turn is free, 1 when it is held, 2 when it is held and someone may be waiting. Only then
/// does a release take `mutex` to wake a waiter. A caller that finds the turn taken takes
/// `mutex` and sets `state` to 2 before it decides to wait, so the holder's release, which
/// reads the 2, takes `mutex` after the caller queued itself and wakes it: no wake-up is lost.
///
/// A thread waits on a condition variable of its own. A task that finds the turn taken
/// suspends, holding no thread, until a release wakes it.
///
/// Re-entrancy is the caller's business: ``isHeldByCurrentThread`` tells it that it already
/// holds the turn (a middleware or observer dispatching); asking again then would deadlock.
@usableFromInline
final class Turn: @unchecked Sendable {
  // `@unchecked Sendable`: `waiters`, `firstWaiter` and `wakePending` are touched only holding
  // `mutex`; `state` and `holder` are atomics.

  private enum Waiter {
    case thread(ThreadWaiter)
    case task(UnsafeContinuation<Void, Never>)
  }

  private static let free = 0
  private static let held = 1
  private static let contended = 2

  /// ``free``, ``held``, or ``contended``: held, and someone may be waiting.
  private let state = Atomic<Int>(Turn.free)
  /// The thread holding the turn, 0 when none: only that thread stores its own identity here,
  /// so a thread that reads its own identity knows it holds the turn.
  private let holder = Atomic<UInt>(0)
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var wakePending = false
  private var waiters: [Waiter] = []
  private var firstWaiter = 0

  init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Whether the calling thread holds the turn: it is running a body.
  @usableFromInline var isHeldByCurrentThread: Bool {
    holder.load(ordering: .relaxed) == currentThreadIdentity
  }

  /// Runs `body` holding the turn, blocking the calling thread until the turn is free.
  ///
  /// - Parameter body: The work; it must not ask for the turn again.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  func run<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
    acquire()
    defer { release() }
    return try body()
  }

  /// Runs `body` holding the turn; a task that finds the turn taken suspends until it is free.
  ///
  /// - Parameter body: The work; it runs without suspending, on the task's thread.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  func runSuspending<R, E: Error>(_ body: () throws(E) -> R) async throws(E) -> R {
    await acquireSuspending()
    defer { release() }
    return try body()
  }

  /// Takes the turn, blocking the calling thread until it is free; ``release()`` gives it back.
  @usableFromInline
  func acquire() {
    if !takeIfFree() {
      pthread_mutex_lock(mutex)
      while !takeContended() {
        let waiter = ThreadWaiter()
        enqueue(.thread(waiter))
        waiter.wait(on: mutex)
        wakePending = false
      }
      pthread_mutex_unlock(mutex)
    }
    holder.store(currentThreadIdentity, ordering: .relaxed)
  }

  /// Takes the turn; a task that finds it taken suspends until it is free.
  @usableFromInline
  func acquireSuspending() async {
    if !takeIfFree() {
      while true {
        pthread_mutex_lock(mutex)
        if takeContended() {
          pthread_mutex_unlock(mutex)
          break
        }
        await withUnsafeContinuation { continuation in
          enqueue(.task(continuation))
          pthread_mutex_unlock(mutex)
        }
        pthread_mutex_lock(mutex)
        wakePending = false
        pthread_mutex_unlock(mutex)
      }
    }
    holder.store(currentThreadIdentity, ordering: .relaxed)
  }

  /// Takes the turn if it is free and nobody waits: the uncontended case, with no lock.
  private func takeIfFree() -> Bool {
    state.compareExchange(expected: Self.free, desired: Self.held, ordering: .acquiring).exchanged
  }

  /// Marks the turn contended, and takes it if it was free; the caller holds `mutex`.
  ///
  /// When the turn was not free, its holder's release sees the mark and wakes a waiter.
  private func takeContended() -> Bool {
    state.exchange(Self.contended, ordering: .acquiring) == Self.free
  }

  /// Gives the turn back, and wakes one waiter to compete for it.
  @usableFromInline
  func release() {
    holder.store(0, ordering: .relaxed)
    if state.exchange(Self.free, ordering: .releasing) == Self.held { return }
    pthread_mutex_lock(mutex)
    var woken: UnsafeContinuation<Void, Never>?
    if !wakePending, let waiter = dequeue() {
      wakePending = true
      switch waiter {
      case .thread(let thread): thread.wake()
      case .task(let continuation): woken = continuation
      }
    }
    pthread_mutex_unlock(mutex)
    woken?.resume()
  }

  /// Holding `mutex`.
  private func enqueue(_ waiter: Waiter) {
    waiters.append(waiter)
  }

  /// Holding `mutex`.
  private func dequeue() -> Waiter? {
    guard firstWaiter < waiters.count else { return nil }
    let waiter = waiters[firstWaiter]
    firstWaiter += 1
    if firstWaiter == waiters.count {
      waiters.removeAll(keepingCapacity: true)
      firstWaiter = 0
    }
    return waiter
  }
}

/// The calling thread's identity (`pthread_self()`), unique among the threads running: what the
/// turn compares to know that a thread holds it, and what the logging plugin's `DispatchTracker`
/// keys the entries a thread wrote by.
package var currentThreadIdentity: UInt {
  #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
  #else
    UInt(pthread_self())
  #endif
}

/// A thread waiting for the turn, on a condition variable of its own so that a release wakes
/// exactly it.
private final class ThreadWaiter {
  private let condition = Condition()
  private var woken = false

  /// Holding the turn's mutex, which the wait releases and takes back.
  func wait(on mutex: UnsafeMutablePointer<pthread_mutex_t>) {
    while !woken { condition.wait(on: mutex) }
  }

  /// Holding the turn's mutex.
  func wake() {
    woken = true
    condition.signal()
  }
}
