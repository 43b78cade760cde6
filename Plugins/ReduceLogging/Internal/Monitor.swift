#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value guarded by a pthread mutex, with a condition variable to wait for it to change: what
/// `Locked` is, plus waiting, which `Reduce` keeps to itself.
///
/// A pthread mutex and condition, not `Synchronization.Mutex`, for the reason `Locked` gives:
/// ThreadSanitizer does not see the futex of a contended `Mutex` on Linux.
///
/// `@unchecked Sendable`: the value is reached only holding the mutex. The mutex, the condition
/// and the value live at stable addresses of their own (pthread objects must not move).
final class Monitor<Value>: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let condition: UnsafeMutablePointer<pthread_cond_t>
  private let value: UnsafeMutablePointer<Value>

  init(_ value: Value) {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    var status = pthread_mutex_init(mutex, nil)
    // The system refused (out of resources): `fatalError` keeps the message in optimized builds.
    if status != 0 { fatalError("pthread_mutex_init failed with \(status)") }
    condition = .allocate(capacity: 1)
    condition.initialize(to: pthread_cond_t())
    #if canImport(Darwin)
      status = pthread_cond_init(condition, nil)
    #else
      // Timed waits measure time by the monotonic clock, which the wall clock's jumps do not move.
      var attributes = pthread_condattr_t()
      pthread_condattr_init(&attributes)
      pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
      status = pthread_cond_init(condition, &attributes)
      pthread_condattr_destroy(&attributes)
    #endif
    // The system refused (out of resources): `fatalError` keeps the message in optimized builds.
    if status != 0 { fatalError("pthread_cond_init failed with \(status)") }
    self.value = .allocate(capacity: 1)
    self.value.initialize(to: value)
  }

  deinit {
    pthread_cond_destroy(condition)
    condition.deinitialize(count: 1)
    condition.deallocate()
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
    value.deinitialize(count: 1)
    value.deallocate()
  }

  /// Runs `body` with exclusive access to the value.
  func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result)
    throws(Failure) -> Result
  {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value.pointee)
  }

  /// Waits, holding the lock, until `mustWait` is false, then runs `body` in the same hold.
  ///
  /// While it waits the lock is released. Whoever makes `mustWait` false calls ``broadcast()``
  /// in the ``withLock(_:)`` that does, or after it.
  func withLock<Result, Failure: Error>(
    waitingWhile mustWait: (Value) -> Bool, _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    while mustWait(value.pointee) { pthread_cond_wait(condition, mutex) }
    return try body(&value.pointee)
  }

  /// Waits, holding the lock, until `mustWait` is false or `deadline` has passed, then runs
  /// `body` in the same hold.
  ///
  /// As ``withLock(waitingWhile:_:)``, but `body` also runs when the deadline passes while
  /// `mustWait` is still true.
  func withLock<Result, Failure: Error>(
    waitingWhile mustWait: (Value) -> Bool, until deadline: ContinuousClock.Instant,
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    while mustWait(value.pointee) {
      let remaining = ContinuousClock.now.duration(to: deadline)
      guard remaining > .zero else { break }
      let (seconds, attoseconds) = remaining.components
      var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
      #if canImport(Darwin)
        pthread_cond_timedwait_relative_np(condition, mutex, &time)
      #else
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        time.tv_sec += now.tv_sec + (time.tv_nsec + now.tv_nsec) / 1_000_000_000
        time.tv_nsec = (time.tv_nsec + now.tv_nsec) % 1_000_000_000
        pthread_cond_timedwait(condition, mutex, &time)
      #endif
    }
    return try body(&value.pointee)
  }

  /// Wakes every thread waiting in ``withLock(waitingWhile:_:)``.
  ///
  /// Call it holding the lock, or after the ``withLock(_:)`` that changed what they wait for
  /// (no wake-up is lost: a waiter that looked before the change is waiting by then). After
  /// is cheaper when many wait: woken holding it, each would wake only to wait for the lock.
  func broadcast() {
    pthread_cond_broadcast(condition)
  }
}
