public import Synchronization

/// A flag shared by a ``Subscription`` and its observer: once set, the observer is never called.
@usableFromInline
final class CancellationFlag: Sendable {
  @usableFromInline let cancelled = Atomic<Bool>(false)

  @inlinable var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

  /// Sets the flag; returns true for the call that set it.
  func cancel() -> Bool {
    !cancelled.exchange(true, ordering: .acquiringAndReleasing)
  }
}

/// One observer of a store, of any kind, with its place in the subscription order.
@usableFromInline
final class Sink<State: Sendable>: Sendable {
  @usableFromInline
  enum Delivery: Sendable {
    /// A whole-state observer.
    case state(@Sendable (State) -> Void)
    /// A change observer.
    case change(@Sendable (StateChange<State>) -> Void)
    /// A key-path observer; it reads the value its group has just refreshed.
    case value(@Sendable () -> Void)
  }

  @usableFromInline let id: UInt64
  @usableFromInline let flag: CancellationFlag
  @usableFromInline let delivery: Delivery
  /// Ends an async sequence fed by this sink when the store goes away.
  let finish: (@Sendable () -> Void)?

  init(
    id: UInt64, flag: CancellationFlag, delivery: Delivery, finish: (@Sendable () -> Void)?
  ) {
    self.id = id
    self.flag = flag
    self.delivery = delivery
    self.finish = finish
  }
}

/// The last value a key path had, shared by every observer of that key path.
@usableFromInline
protocol ScopedValue<State>: AnyObject, Sendable {
  associatedtype State
  var keyPath: AnyKeyPath { get }
  /// Reads the value from `state`; returns whether it differs from the last one, and keeps it.
  func refresh(from state: State) -> Bool
}

/// The value at one key path, compared by `==` after every action that ran a handler.
///
/// `@unchecked Sendable`: `last` is read and written only by the thread that holds the store's
/// dispatch turn, so accesses are serialized by the turn.
final class KeyPathValue<State, Value: Equatable & Sendable>: ScopedValue, @unchecked Sendable {
  let path: KeyPath<State, Value> & Sendable
  private(set) var last: Value

  init(path: KeyPath<State, Value> & Sendable, initial: Value) {
    self.path = path
    self.last = initial
  }

  var keyPath: AnyKeyPath { path }

  func refresh(from state: State) -> Bool {
    let value = state[keyPath: path]
    if value == last { return false }
    last = value
    return true
  }
}

/// The observers of one key path.
@usableFromInline
struct ScopedGroup<State: Sendable>: Sendable {
  @usableFromInline let value: any ScopedValue<State>
  @usableFromInline var sinks: [Sink<State>]
}

/// Every observer of a store: a value snapshot, copied out under the lock for each action.
@usableFromInline
struct Observers<State: Sendable>: Sendable {
  @usableFromInline var whole: [Sink<State>] = []
  @usableFromInline var changes: [Sink<State>] = []
  @usableFromInline var groups: [ScopedGroup<State>] = []

  @usableFromInline
  init() {}

  @inlinable var isEmpty: Bool { whole.isEmpty && changes.isEmpty && groups.isEmpty }

  /// Whether notifying these observers needs the state from before the action.
  @inlinable
  func needOldState(stateIsEquatable: Bool) -> Bool {
    !changes.isEmpty || (stateIsEquatable && !whole.isEmpty)
  }

  var allSinks: [Sink<State>] { whole + changes + groups.flatMap(\.sinks) }

  /// Removes the sink with this id; returns whether it was there.
  mutating func remove(_ id: UInt64) -> Bool {
    if let index = whole.firstIndex(where: { $0.id == id }) {
      whole.remove(at: index)
      return true
    }
    if let index = changes.firstIndex(where: { $0.id == id }) {
      changes.remove(at: index)
      return true
    }
    for groupIndex in groups.indices {
      if let index = groups[groupIndex].sinks.firstIndex(where: { $0.id == id }) {
        groups[groupIndex].sinks.remove(at: index)
        if groups[groupIndex].sinks.isEmpty { groups.remove(at: groupIndex) }
        return true
      }
    }
    return false
  }
}
