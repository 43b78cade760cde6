import Foundation
import Reduce

/// What a logging middleware (``LoggingMiddleware``, ``AuditTrail``) knows of the dispatches it
/// takes part in, shared by its copies: its `handle` calls running in each store, and the
/// threads that wrote entries they have not yet waited for.
///
/// Its `handle` and its commit observer's `willCommit` and `didCommit` run in the store's turn,
/// on the dispatching thread; `afterTurn` runs on that thread too, after the turn. So:
///
/// - A commit of a store is made while the middleware's outermost `handle` call in that store
///   runs (the action's, or its batch's), or while none does (an action another middleware
///   passed on late): that call's start is the entry's start.
/// - A `handle` call that runs inside another of the same store is one of a `Batch`'s actions,
///   which go through the chain while the batch's call runs: the batch's call logs the failure.
/// - An `afterTurn` waits for durability only when its own thread wrote an entry: the callback
///   has no argument, and it must neither return before its own dispatch's entries are on disk
///   nor make a dispatch that wrote nothing wait for other threads' entries.
final class DispatchTracker: Sendable {
  /// The `handle` calls of the middleware running in one store, and how to report from it.
  struct Handling {
    /// How many are running: more than one inside a `Batch`.
    var depth = 0
    /// When the outermost began, by the entries' clock.
    var timestamp = Date(timeIntervalSince1970: 0)
    /// When the outermost began, by the clock that measures durations.
    var start = Duration.zero
    /// Reports an error for an action on the store's `errors`, through a context it gave.
    var report: (@Sendable (any Error, any Action) -> Void)?
  }

  /// When an entry began and how long it took, as ``DispatchTracker/entryTiming(in:)`` finds.
  struct Timing {
    let timestamp: Date
    let duration: Duration
  }

  private struct Tracked {
    var stores: [ObjectIdentifier: Handling] = [:]
    /// The threads that wrote an entry since their last `afterTurn`, with their last entry.
    var unwaited: [UInt: WrittenEntry] = [:]
  }

  private let tracked = Locked(Tracked())
  /// A reading of the clock that measures durations, as the time since the tracker was made.
  private let reading: @Sendable () -> Duration
  private let now: @Sendable () -> Date

  init(clock: any Clock<Duration>, now: @escaping @Sendable () -> Date) {
    reading = Self.stopwatch(clock)
    self.now = now
  }

  private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
    let origin = clock.now
    return { origin.duration(to: clock.now) }
  }

  // MARK: Handling

  /// Notes that a `handle` call begins in `store`.
  ///
  /// - Parameters:
  ///   - store: The store's identity.
  ///   - report: How to report from the store, asked for when none is known yet.
  /// - Returns: Whether it is the outermost call running in the store (not a batch's action).
  func enter(
    _ store: ObjectIdentifier,
    report: @autoclosure () -> (@Sendable (any Error, any Action) -> Void)? = nil
  ) -> Bool {
    let timestamp = now()
    let start = reading()
    return tracked.withLock { tracked in
      var handling = tracked.stores[store] ?? Handling()
      handling.depth += 1
      if handling.depth == 1 {
        handling.timestamp = timestamp
        handling.start = start
      }
      if handling.report == nil { handling.report = report() }
      tracked.stores[store] = handling
      return handling.depth == 1
    }
  }

  /// Notes that a `handle` call in `store` ended.
  func exit(_ store: ObjectIdentifier) {
    tracked.withLock { $0.stores[store]?.depth -= 1 }
  }

  /// Forgets a store the middleware left.
  func forget(_ store: ObjectIdentifier) {
    tracked.withLock { _ = $0.stores.removeValue(forKey: store) }
  }

  /// The timestamp and duration of an entry made now in `store`: from the start of the
  /// outermost `handle` call running there; with none, now and zero.
  func entryTiming(in store: ObjectIdentifier) -> Timing {
    let started = tracked.withLock { tracked -> (Date, Duration)? in
      guard let handling = tracked.stores[store], handling.depth > 0 else { return nil }
      return (handling.timestamp, handling.start)
    }
    guard let (timestamp, start) = started else { return Timing(timestamp: now(), duration: .zero) }
    return Timing(timestamp: timestamp, duration: reading() - start)
  }

  /// Reports an error for an action through the store's context, if a `handle` call gave one.
  func report(_ error: any Error, for action: any Action, in store: ObjectIdentifier) {
    let report = tracked.withLock { $0.stores[store]?.report }
    report?(error, action)
  }

  // MARK: Durability

  /// An entry written by a thread, that its `afterTurn` waits for.
  struct WrittenEntry {
    let action: any Action
    let store: ObjectIdentifier
  }

  /// Notes that the calling thread wrote an entry its `afterTurn` must wait for.
  func wroteEntry(for action: any Action, in store: ObjectIdentifier) {
    let thread = currentThreadIdentity
    tracked.withLock { $0.unwaited[thread] = WrittenEntry(action: action, store: store) }
  }

  /// The last entry the calling thread wrote since it last asked, which it then forgets.
  func takeWrittenEntry() -> WrittenEntry? {
    let thread = currentThreadIdentity
    return tracked.withLock { $0.unwaited.removeValue(forKey: thread) }
  }
}
