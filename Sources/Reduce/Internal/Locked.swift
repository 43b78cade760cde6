#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value guarded by a mutex: the one lock of the store and of every built-in plugin.
///
/// It is `package`, not public: a state container exports no lock. Plugins of this package use
/// it; a plugin of your own uses whatever lock it likes.
///
/// Why not `Synchronization.Mutex`: on Linux its contended path waits in a futex that
/// ThreadSanitizer does not see, so a run under ThreadSanitizer reports races on values only
/// ever touched under the lock. A pthread mutex is understood by ThreadSanitizer everywhere.
///
/// Decide under the lock, act after it: run no user code inside ``withLock(_:)``.
///
/// `@unchecked Sendable`: the value is reached only inside `withLock`, holding the mutex. The
/// mutex and the value live at addresses of their own (a pthread mutex must not move), and the
/// value is reached through its address: a stored property would be an exclusivity-checked
/// access that ThreadSanitizer, which does not see the mutex order those checks, reports as a
/// race between threads that each held the lock.
@usableFromInline
package final class Locked<Value>: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let value: UnsafeMutablePointer<Value>

  /// Creates a guarded value.
  ///
  /// - Parameter value: The initial value.
  package init(_ value: Value) {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
    self.value = .allocate(capacity: 1)
    self.value.initialize(to: value)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
    value.deinitialize(count: 1)
    value.deallocate()
  }

  /// Runs `body` with exclusive access to the value.
  ///
  /// - Parameter body: Reads or changes the value; it must not take the same lock.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  @usableFromInline
  package func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value.pointee)
  }

  /// Waits until `isReady` holds, then runs `body`, in one hold of the lock.
  ///
  /// While it waits the lock is released. Whoever makes `isReady` true calls ``wakeAll()``.
  ///
  /// - Parameters:
  ///   - isReady: Whether to stop waiting.
  ///   - body: Runs once `isReady` holds.
  /// - Returns: What `body` returns.
  package func withLock<Result>(
    when isReady: (Value) -> Bool, _ body: (inout Value) -> Result
  ) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    while !isReady(value.pointee) { condition.wait(on: mutex) }
    return body(&value.pointee)
  }

  /// Waits until `isReady` holds or `deadline` has passed, then runs `body`, in one hold of the
  /// lock: as ``withLock(when:_:)``, but `body` also runs when the deadline passes first.
  ///
  /// - Parameters:
  ///   - isReady: Whether to stop waiting.
  ///   - deadline: When to stop waiting anyway.
  ///   - body: Runs once `isReady` holds or the deadline has passed.
  /// - Returns: What `body` returns.
  package func withLock<Result>(
    when isReady: (Value) -> Bool, orUntil deadline: ContinuousClock.Instant,
    _ body: (inout Value) -> Result
  ) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    while !isReady(value.pointee) {
      let remaining = ContinuousClock.now.duration(to: deadline)
      guard remaining > .zero else { break }
      condition.wait(on: mutex, for: remaining)
    }
    return body(&value.pointee)
  }

  /// Wakes every thread waiting in ``withLock(when:_:)`` or ``withLock(when:orUntil:_:)``.
  package func wakeAll() {
    pthread_mutex_lock(mutex)
    condition.broadcast()
    pthread_mutex_unlock(mutex)
  }

  private let condition = Condition()
}

/// A pthread condition variable that lives as long as its owner.
final class Condition: @unchecked Sendable {
  // `@unchecked Sendable`: pthread condition variables are made to be shared between threads.
  private let pointer: UnsafeMutablePointer<pthread_cond_t>

  init() {
    pointer = .allocate(capacity: 1)
    pointer.initialize(to: pthread_cond_t())
    #if canImport(Darwin)
      pthread_cond_init(pointer, nil)
    #else
      // Timed waits count on the monotonic clock, which the wall clock's jumps do not move.
      var attributes = pthread_condattr_t()
      pthread_condattr_init(&attributes)
      pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
      pthread_cond_init(pointer, &attributes)
      pthread_condattr_destroy(&attributes)
    #endif
  }

  deinit {
    pthread_cond_destroy(pointer)
    pointer.deallocate()
  }

  func wait(on mutex: UnsafeMutablePointer<pthread_mutex_t>) {
    pthread_cond_wait(pointer, mutex)
  }

  /// Waits at most `timeout`, or until woken (or woken spuriously).
  func wait(on mutex: UnsafeMutablePointer<pthread_mutex_t>, for timeout: Duration) {
    let (seconds, attoseconds) = timeout.components
    var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    #if canImport(Darwin)
      pthread_cond_timedwait_relative_np(pointer, mutex, &time)
    #else
      var now = timespec()
      clock_gettime(CLOCK_MONOTONIC, &now)
      let nanoseconds = time.tv_nsec + now.tv_nsec
      time.tv_sec += now.tv_sec + nanoseconds / 1_000_000_000
      time.tv_nsec = nanoseconds % 1_000_000_000
      pthread_cond_timedwait(pointer, mutex, &time)
    #endif
  }

  func signal() { pthread_cond_signal(pointer) }

  func broadcast() { pthread_cond_broadcast(pointer) }
}
