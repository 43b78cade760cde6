#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value guarded by a pthread mutex, with a condition variable to wait until it changes: the
/// package's one lock.
///
/// pthread objects rather than `Synchronization.Mutex`, which ThreadSanitizer misreads on Linux
/// (the root package's style guide says why), and because waiting with a deadline needs a
/// condition variable anyway.
///
/// `@unchecked Sendable`: the value is reached only holding the mutex; the mutex, the condition
/// and the value live at addresses of their own, since pthread objects must not move.
final class Monitor<Value>: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let condition: UnsafeMutablePointer<pthread_cond_t>
  private let value: UnsafeMutablePointer<Value>

  init(_ initial: Value) {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    // Out of resources at start-up: nothing sensible can go on without a lock.
    guard pthread_mutex_init(mutex, nil) == 0 else { fatalError("pthread_mutex_init failed") }
    condition = .allocate(capacity: 1)
    condition.initialize(to: pthread_cond_t())
    #if canImport(Darwin)
      let status = pthread_cond_init(condition, nil)
    #else
      // Deadlines are read off the monotonic clock, which jumps of the wall clock do not move.
      var attributes = pthread_condattr_t()
      pthread_condattr_init(&attributes)
      pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
      let status = pthread_cond_init(condition, &attributes)
      pthread_condattr_destroy(&attributes)
    #endif
    guard status == 0 else { fatalError("pthread_cond_init failed") }
    value = .allocate(capacity: 1)
    value.initialize(to: initial)
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

  /// Waits while `mustWait` holds, for at most until `deadline` (nil: no limit), then runs
  /// `body` in the same hold of the lock.
  ///
  /// The lock is released while waiting. Whoever changes what `mustWait` reads calls
  /// ``broadcast()`` after the change.
  func withLock<Result, Failure: Error>(
    waitingWhile mustWait: (Value) -> Bool, until deadline: ContinuousClock.Instant?,
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    while mustWait(value.pointee) {
      guard let deadline else {
        pthread_cond_wait(condition, mutex)
        continue
      }
      let remaining = ContinuousClock.now.duration(to: deadline)
      guard remaining > .zero else { break }
      let (seconds, attoseconds) = remaining.components
      var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
      #if canImport(Darwin)
        pthread_cond_timedwait_relative_np(condition, mutex, &time)
      #else
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nanoseconds = time.tv_nsec + now.tv_nsec
        time.tv_sec += now.tv_sec + nanoseconds / 1_000_000_000
        time.tv_nsec = nanoseconds % 1_000_000_000
        pthread_cond_timedwait(condition, mutex, &time)
      #endif
    }
    return try body(&value.pointee)
  }

  /// Wakes every thread waiting in ``withLock(waitingWhile:until:_:)``.
  func broadcast() {
    pthread_cond_broadcast(condition)
  }
}
