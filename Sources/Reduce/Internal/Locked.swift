/// A value guarded by the package's lock: the one lock type of the plugins in this package.
///
/// Why not `Synchronization.Mutex`: on Linux its contended path waits in a futex that
/// ThreadSanitizer does not see, so the concurrency tests report false races on values only
/// ever touched under the lock. ThreadSanitizer understands the pthread mutex under ``Lock``.
/// It is `package`, not `public`: a plugin written outside this package brings its own lock.
///
/// `@unchecked Sendable`: `value` is read and written only inside `withLock`, holding the lock.
/// It lives behind a pointer, as the store's fields do, so that an access costs no dynamic
/// exclusivity check: the lock already makes accesses exclusive.
@usableFromInline
package final class Locked<Value>: @unchecked Sendable {
  @usableFromInline let value: UnsafeMutablePointer<Value>
  @usableFromInline let lock = Lock()

  /// Creates a guarded value.
  ///
  /// - Parameter value: The initial value.
  package init(_ value: Value) {
    self.value = .allocate(capacity: 1)
    self.value.initialize(to: value)
  }

  deinit {
    value.deinitialize(count: 1)
    value.deallocate()
    lock.destroy()
  }

  /// Runs `body` with exclusive access to the value.
  ///
  /// `body` must not call user code (reducers, middleware, observers, user closures): decide
  /// under the lock, act after it.
  ///
  /// - Parameter body: Reads or changes the value.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  @inlinable
  package func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value.pointee)
  }
}
