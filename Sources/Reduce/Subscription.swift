/// A handle on an observer of a store: cancel it to stop the observer.
///
/// The observer is cancelled by ``cancel()`` or when the subscription is deinitialised, so keep
/// it for as long as you want to observe. After `cancel()` returns, the observer is not called
/// again. A subscription holds no strong reference to its store.
///
/// ```swift
/// var subscriptions = Set<Subscription>()
/// store.subscribe(to: \.counter) { print("counter:", $0) }.store(in: &subscriptions)
/// ```
public final class Subscription: Sendable, Hashable {
  private let flag: CancellationFlag
  private let onCancel: @Sendable () -> Void

  init(flag: CancellationFlag, onCancel: @escaping @Sendable () -> Void) {
    self.flag = flag
    self.onCancel = onCancel
  }

  deinit {
    cancel()
  }

  /// Whether the subscription was cancelled.
  public var isCancelled: Bool { flag.isCancelled }

  /// Stops the observer.
  ///
  /// Calling it again does nothing.
  public func cancel() {
    if flag.cancel() { onCancel() }
  }

  /// Keeps this subscription in a set, so that it lives as long as the set holds it.
  ///
  /// - Parameter set: The set to insert into.
  public func store(in set: inout Set<Subscription>) {
    set.insert(self)
  }

  /// Whether two subscriptions are the same object.
  public static func == (lhs: Subscription, rhs: Subscription) -> Bool {
    lhs === rhs
  }

  /// Hashes the subscription's identity.
  ///
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self))
  }
}
