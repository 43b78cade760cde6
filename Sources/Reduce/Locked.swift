import Synchronization

#if canImport(Glibc)
  public import Glibc
#elseif canImport(Musl)
  public import Musl
#elseif canImport(Darwin)
  public import Darwin
#endif

/// A value guarded by a mutex: the lock of the store and of every built-in plugin, for plugins
/// of your own too.
///
/// Why not `Synchronization.Mutex`: on Linux its contended path waits in a futex that
/// ThreadSanitizer does not see, so a test run under ThreadSanitizer reports races on values
/// only ever touched under the lock. `Locked` is a pthread mutex, which ThreadSanitizer
/// understands on every platform.
///
/// ```swift
/// final class Counter: Sendable {
///   private let seen = Locked<[String: Int]>([:])
///   func note(_ name: String) { seen.withLock { $0[name, default: 0] += 1 } }
/// }
/// ```
///
/// Decide under the lock, act after it: run no user code (reducers, observers, callbacks)
/// inside ``withLock(_:)``, and never dispatch there.
///
/// `@unchecked Sendable`: the value is reached only inside `withLock`, holding the mutex. The
/// mutex and the value live at stable addresses of their own (a pthread mutex must not move),
/// and the value is reached through its address so that an access costs no exclusivity check:
/// the mutex already makes accesses exclusive.
public final class Locked<Value>: @unchecked Sendable {
  @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
  @usableFromInline let value: UnsafeMutablePointer<Value>

  /// Creates a guarded value.
  ///
  /// - Parameter value: The initial value.
  public init(_ value: Value) {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    let status = pthread_mutex_init(mutex, nil)
    // The system refused (out of resources): `fatalError` keeps the message in optimized builds.
    if status != 0 { fatalError("pthread_mutex_init failed with \(status)") }
    self.value = .allocate(capacity: 1)
    self.value.initialize(to: value)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
    value.deinitialize(count: 1)
    value.deallocate()
  }

  /// Runs `body` with exclusive access to the value.
  ///
  /// - Parameter body: Reads or changes the value. It must not call back into code that takes
  ///   the same lock.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  @inlinable
  public func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value.pointee)
  }

  /// Waits, holding the lock, until `mustWait` is false, then runs `body` in the same hold.
  ///
  /// While it waits the lock is released; `condition` must be broadcast, with the lock held,
  /// by whoever makes `mustWait` false.
  @inlinable
  func withLock<Result>(
    waitingOn condition: Condition, while mustWait: (inout Value) -> Bool,
    _ body: (inout Value) -> Result
  ) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    while mustWait(&value.pointee) { pthread_cond_wait(condition.pointer, mutex) }
    return body(&value.pointee)
  }
}

/// A value at a stable address of its own, reached through that address so that an access costs
/// no exclusivity check: the storage of a store's turn-holder fields, which only the thread
/// holding the store's turn touches, so the turn already makes accesses exclusive.
///
/// Measured: the dynamic exclusivity checks of a class's stored properties cost about 600
/// instructions per dispatch (the state and the turn holder's counters are touched a dozen
/// times), as much as the rest of a dispatch. This file is the one place where the package
/// uses raw pointers: here, in ``Locked``, in ``Condition`` and in `withStoredProperty`.
///
/// `@unchecked Sendable`: its owner guarantees that one thread at a time touches the value.
@usableFromInline
final class Exclusive<Value>: @unchecked Sendable {
  @usableFromInline let address: UnsafeMutablePointer<Value>

  @usableFromInline
  init(_ value: Value) {
    address = .allocate(capacity: 1)
    address.initialize(to: value)
  }

  deinit {
    address.deinitialize(count: 1)
    address.deallocate()
  }
}

/// Runs `body` on the stored property of `root` at `offset`, in place.
///
/// `offset` must be `MemoryLayout<Root>.offset(of:)` of a key path to a `Value`: a path of
/// stored properties, whose storage lies inline in `Root` at that offset. A mutator whose key
/// path is such a path reaches its substate with this instead of a key-path projection.
///
/// Measured: a writable key path's projection (`state[keyPath: path]` as an `inout` argument)
/// costs about 120 instructions per handler call, a counter's whole reduction being about 30.
@inlinable
func withStoredProperty<Root, Value, E: Error>(
  of root: inout Root, at offset: Int, as type: Value.Type,
  _ body: (inout Value) throws(E) -> Void
) throws(E) {
  try withUnsafeMutableBytes(of: &root) { (bytes) throws(E) in
    let address = bytes.baseAddress.unsafelyUnwrapped + offset
    try body(&address.assumingMemoryBound(to: Value.self).pointee)
  }
}

/// A condition variable, used with a ``Locked`` value.
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
    // The system refused (out of resources): `fatalError` keeps the message in optimized builds.
    if status != 0 { fatalError("pthread_cond_init failed with \(status)") }
  }

  /// Destroys the condition; the owner calls it once, when nothing can use it any more.
  @usableFromInline
  func destroy() {
    pthread_cond_destroy(pointer)
    pointer.deinitialize(count: 1)
    pointer.deallocate()
  }

  /// Wakes every thread waiting on the condition; call it holding the lock.
  @inlinable
  func broadcast() {
    pthread_cond_broadcast(pointer)
  }
}

/// The identity of the calling thread, for telling a re-entrant dispatch from a concurrent one.
@usableFromInline
struct ThreadID: Equatable, Sendable {
  @usableFromInline let raw: UInt

  @inlinable
  init(raw: UInt) {
    self.raw = raw
  }

  /// Holds the place of a waiting task that is being given a store's turn, until it runs and
  /// claims it: no thread has this identity.
  @inlinable
  static var handedOver: ThreadID { ThreadID(raw: 1) }

  /// Says that nobody holds a store's turn: no thread has this identity.
  @inlinable
  static var nobody: ThreadID { ThreadID(raw: 0) }

  /// The calling thread.
  ///
  /// Never inlined, and it reads memory, so that each call asks again. `pthread_self` is
  /// declared `const`: inlined into an `async` function, calls on either side of a suspension
  /// point could be merged, or one hoisted out of a loop of `await store.send(...)`, and the
  /// identity be that of the thread the task ran on before it suspended. A task would then take
  /// the turn under another thread's name, and that thread would take itself for the holder.
  /// (Found with a turn taken without the lock, where a task of `send-1000` queued work on the
  /// turn holder's own list while another thread held the turn.)
  @inline(never) @usableFromInline
  static var current: ThreadID {
    // An atomic load, which the optimizer may not merge with another across calls.
    _ = threadQueryFence.load(ordering: .relaxed)
    #if canImport(Darwin)
      return ThreadID(raw: UInt(bitPattern: pthread_self()))
    #else
      return ThreadID(raw: UInt(pthread_self()))
    #endif
  }
}

/// Read by ``ThreadID/current``, so that asking for the calling thread reads memory.
let threadQueryFence = Atomic<Int>(0)
