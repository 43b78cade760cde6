#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value guarded by a pthread mutex: this module's one lock type.
///
/// Why not `Synchronization.Mutex`: on Linux it is built on futexes inside the prebuilt
/// standard library, which ThreadSanitizer does not see, so the concurrency tests report false
/// races on state only ever touched under the lock. ThreadSanitizer understands pthread mutexes
/// natively (the core's own lock is one for the same reason).
///
/// `@unchecked Sendable`: `value` is only read or written inside `withLock`, holding the mutex,
/// and the value itself is `Sendable`. The mutex is allocated once at a stable address and
/// destroyed in `deinit`.
final class Locked<Value: Sendable>: @unchecked Sendable {
  private var value: Value
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>

  init(_ value: Value) {
    self.value = value
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    let status = pthread_mutex_init(mutex, nil)
    precondition(status == 0, "pthread_mutex_init failed with \(status)")
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  /// Runs `body` with the value, holding the lock.
  ///
  /// `body` must not call user code.
  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }
}
