#if canImport(Glibc)
  public import Glibc
#elseif canImport(Musl)
  public import Musl
#elseif canImport(Darwin)
  public import Darwin
#endif

/// The one lock type of the package: a pthread mutex with its condition variables.
///
/// `Synchronization.Mutex` has no condition variable, and the store needs two kinds of blocking
/// wait (a thread waiting for its turn to dispatch, a reader waiting for an in-place reduction to
/// commit). ThreadSanitizer understands pthread primitives natively.
///
/// A struct holding the mutex's address, so that using it costs no reference counting; its
/// owner calls ``destroy()`` once, in its `deinit`.
///
/// It is `@unchecked Sendable` because all of its state lives behind the pthread mutex, which is
/// allocated once at a stable address.
@usableFromInline
struct Lock: @unchecked Sendable {
  @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

  @usableFromInline
  init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    let status = pthread_mutex_init(mutex, nil)
    precondition(status == 0, "pthread_mutex_init failed with \(status)")
  }

  /// Destroys the mutex; the owner calls it once, when nothing can use the lock any more.
  func destroy() {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  @inlinable
  func lock() {
    pthread_mutex_lock(mutex)
  }

  @inlinable
  func unlock() {
    pthread_mutex_unlock(mutex)
  }

  /// Runs `body` holding the lock.
  ///
  /// `body` must not call user code.
  @inlinable
  func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }

  /// Blocks until `condition` is signalled; the lock must be held, and is held again on return.
  @inlinable
  func wait(on condition: Condition) {
    pthread_cond_wait(condition.pointer, mutex)
  }
}

/// A condition variable used with ``Lock``.
///
/// `@unchecked Sendable`: the pthread condition is allocated once at a stable address and used
/// only together with the lock that guards the predicate it signals. Its owner calls
/// ``destroy()`` once, in its `deinit`.
@usableFromInline
struct Condition: @unchecked Sendable {
  @usableFromInline let pointer: UnsafeMutablePointer<pthread_cond_t>

  @usableFromInline
  init() {
    pointer = .allocate(capacity: 1)
    pointer.initialize(to: pthread_cond_t())
    let status = pthread_cond_init(pointer, nil)
    precondition(status == 0, "pthread_cond_init failed with \(status)")
  }

  /// Destroys the condition; the owner calls it once, when nothing can use it any more.
  func destroy() {
    pthread_cond_destroy(pointer)
    pointer.deinitialize(count: 1)
    pointer.deallocate()
  }

  @inlinable
  func broadcast() {
    pthread_cond_broadcast(pointer)
  }
}

/// The identity of the calling thread, for telling a re-entrant dispatch from a concurrent one.
@usableFromInline
struct ThreadID: Equatable, Sendable {
  @usableFromInline let raw: UInt

  @usableFromInline
  init(raw: UInt) {
    self.raw = raw
  }

  @inlinable
  static var current: ThreadID {
    #if canImport(Darwin)
      ThreadID(raw: UInt(bitPattern: pthread_self()))
    #else
      ThreadID(raw: UInt(pthread_self()))
    #endif
  }
}
