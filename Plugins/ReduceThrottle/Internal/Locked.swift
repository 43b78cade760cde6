#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value guarded by a pthread mutex: this module's one lock type.
///
/// Not `Synchronization.Mutex`: on Linux its contended path waits in a futex that
/// ThreadSanitizer cannot see, so TSan reports false races on values it guards. ThreadSanitizer
/// understands pthread mutexes natively.
///
/// `@unchecked Sendable` is safe: `value` is only read or written inside `withLock`, while the
/// mutex, allocated once at a stable address, is held.
final class Locked<Value: Sendable>: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var value: Value

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
