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
///
/// `@unchecked Sendable`: not final (a key-path observer is a ``ValueSink``), and every stored
/// property is a `let` of a `Sendable` type.
@usableFromInline
class Sink<State: Sendable>: @unchecked Sendable {
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

/// A key-path or selector observer, with its closure typed for the value, so that its group can
/// call it with the value it read once for all of them (see `KeyPathValue.delivery(to:)`).
@usableFromInline
final class ValueSink<State: Sendable, Value: Sendable>: Sink<State>, @unchecked Sendable {
  @usableFromInline let observer: @Sendable (Value) -> Void

  @usableFromInline
  init(
    id: UInt64, flag: CancellationFlag, value: KeyPathValue<State, Value>,
    observer: @escaping @Sendable (Value) -> Void, finish: (@Sendable () -> Void)?
  ) where Value: Equatable {
    self.observer = observer
    super.init(id: id, flag: flag, delivery: .value { observer(value.last) }, finish: finish)
  }

  @usableFromInline
  init(
    id: UInt64, flag: CancellationFlag, selected: SelectedValue<State, Value>,
    observer: @escaping @Sendable (Value) -> Void, finish: (@Sendable () -> Void)?
  ) {
    self.observer = observer
    super.init(id: id, flag: flag, delivery: .value { observer(selected.last) }, finish: finish)
  }

  /// Calls the observer with `value`, unless it was cancelled.
  ///
  /// A method, so that the loop calling a group's observers (``deliverValue(_:to:)``) borrows
  /// the sink from its array as `self`, and the observer's closure from the sink's `let`: no
  /// reference count per observer. Reading `sink.observer` in the loop instead retained and
  /// released both the sink and the closure's context (about 60 of the 106 instructions per
  /// observer of `subscribers-1000`).
  @inlinable
  func tell(_ value: Value) {
    if !flag.isCancelled { observer(value) }
  }

  /// The sinks of a group of this value type, typed as what they are.
  ///
  /// `unsafeDowncast`, checked in a debug build: a group's sinks are all made for its value's
  /// type (`StoreCore.join`).
  ///
  /// - Parameter sinks: Sinks that are each a `ValueSink<State, Value>`.
  /// - Returns: The same sinks, in the same order.
  @inlinable
  static func typed(_ sinks: [Sink<State>]) -> ContiguousArray<ValueSink<State, Value>> {
    var typed = ContiguousArray<ValueSink<State, Value>>()
    typed.reserveCapacity(sinks.count)
    for sink in sinks { typed.append(unsafeDowncast(sink, to: ValueSink<State, Value>.self)) }
    return typed
  }
}

/// The last value a selector gave, shared by every observer of that selector: a closure, or a
/// ``MemoizedSelector`` whose observers share one evaluation per action.
///
/// `@unchecked Sendable`: `last` is read and written only by the thread holding the store's
/// dispatch turn (and by the subscribing thread, which holds the turn too).
@usableFromInline
final class SelectedValue<State: Sendable, Value: Sendable>: @unchecked Sendable {
  /// Reads the value from the state at an address and, when it changed since `last`, writes it
  /// there and returns true. (In place rather than an optional result: code not specialised
  /// for `Value` would look up the optional's type at every call.)
  @usableFromInline let select: @Sendable (UnsafePointer<State>, inout Value) -> Bool
  /// The value after the last refresh.
  ///
  /// Unchecked exclusivity: only the turn holder reads or writes it, so accesses never overlap,
  /// and the dynamic check of each `inout` access cost about 100 instructions per refreshed
  /// group (measured on `scoped-1000`, 20 refreshes per dispatch).
  @exclusivity(unchecked) @usableFromInline var last: Value

  @usableFromInline
  init(select: @escaping @Sendable (UnsafePointer<State>, inout Value) -> Bool, initial: Value) {
    self.select = select
    self.last = initial
  }

  /// Makes the call of a group's observers with this value after each refresh.
  ///
  /// - Parameter sinks: The group's observers, in order: each a `ValueSink<State, Value>`, as
  ///   `StoreCore.subscribe(selecting:)` makes them.
  /// - Returns: Calls the observers that are not cancelled, in order, with the value after the
  ///   last refresh.
  @inlinable
  func delivery(to sinks: [Sink<State>]) -> @Sendable () -> Void {
    let sinks = ValueSink<State, Value>.typed(sinks)
    return { deliverValue(self.last, to: sinks) }
  }

  /// Reads the value from the state (by address, as ``KeyPathValue/refresh(from:)``); returns
  /// whether it changed, and keeps it.
  @inlinable
  func refresh(from state: UnsafePointer<State>) -> Bool {
    select(state, &last)
  }
}

/// The last value a key path had, shared by every observer of that key path.
///
/// `@unchecked Sendable`: `last` is read and written only by the thread holding the store's
/// dispatch turn, so accesses are serialized by the turn. `path` is immutable, and `Sendable`
/// or appended from `Sendable` key paths (a scoped store's), which `appending(path:)` does not
/// say in its type.
@usableFromInline
final class KeyPathValue<State: Sendable, Value: Equatable & Sendable>: @unchecked Sendable {
  @usableFromInline let path: KeyPath<State, Value>
  /// Where the value is stored in `State`, for a path of stored properties.
  @usableFromInline let offset: Int?
  /// The value after the last refresh.
  @exclusivity(unchecked) @usableFromInline var last: Value

  @usableFromInline
  init(path: KeyPath<State, Value>, initial: Value) {
    self.path = path
    self.offset = MemoryLayout<State>.offset(of: path)
    self.last = initial
  }

  /// Makes the call of a group's observers with this value after each refresh.
  ///
  /// - Parameter sinks: The group's observers, in order: each a `ValueSink<State, Value>`, as
  ///   `StoreCore.subscribe(to:)` makes them.
  /// - Returns: Calls the observers that are not cancelled, in order, with the value after the
  ///   last refresh.
  @inlinable
  func delivery(to sinks: [Sink<State>]) -> @Sendable () -> Void {
    let sinks = ValueSink<State, Value>.typed(sinks)
    return { deliverValue(self.last, to: sinks) }
  }

  /// Reads the value from the state; returns whether it differs from the last one, and keeps it.
  ///
  /// The state is passed by address: a closure of a generic type would otherwise take a copy
  /// of the whole state (retaining every reference in it) to pass it indirectly.
  @inlinable
  func refresh(from state: UnsafePointer<State>) -> Bool {
    let value = readValue(at: path, offset: offset, in: state)
    if value == last { return false }
    last = value
    return true
  }
}

/// Calls the observers that are not cancelled, in order, with a value of a group.
///
/// By index, each sink the `self` of ``ValueSink/tell(_:)``: the sinks and their closures are
/// borrowed from the array, which its caller holds, and the value is read once and passed to
/// each observer borrowed. (A `for sink in sinks` loop, or an `[Sink]` array, retained each sink.)
///
/// - Parameters:
///   - value: The group's value after its last refresh.
///   - sinks: The group's observers, in order.
@inlinable
func deliverValue<State: Sendable, Value: Sendable>(
  _ value: Value, to sinks: ContiguousArray<ValueSink<State, Value>>
) {
  // `0..<count`, not `indices`: unspecialised (a scoped store's observers), `indices` is a
  // protocol call that looks up the array's metadata, about 1,100 instructions per group.
  for index in 0..<sinks.count { sinks[index].tell(value) }
}

/// Every observer of a store: a value snapshot, copied out under the lock for each action.
@usableFromInline
struct Observers<State: Sendable>: Sendable {
  @usableFromInline var whole: [Sink<State>] = []
  @usableFromInline var changes: [Sink<State>] = []
  @usableFromInline var groups: [ScopedGroup<State>] = []
  /// The indices of the groups without bytes, which every action may have changed.
  @usableFromInline var unranged: [Int] = []
  /// The indices of the groups with bytes, by the lower bound of their range.
  @usableFromInline var ranged: [Int] = []
  /// The lower bounds of the ranges of `ranged`, in its order, for a binary search.
  @usableFromInline var lowerBounds: [Int] = []
  /// The length of the longest range of `ranged`.
  @usableFromInline var longest = 0

  @usableFromInline
  init() {}

  /// Indexes the groups by their bytes, after a change of the groups.
  mutating func reindex() {
    unranged = groups.indices.filter { groups[$0].range == nil }
    ranged = groups.indices.filter { groups[$0].range != nil }.sorted {
      (groups[$0].range?.lowerBound ?? 0, $0) < (groups[$1].range?.lowerBound ?? 0, $1)
    }
    lowerBounds = ranged.map { groups[$0].range?.lowerBound ?? 0 }
    longest = ranged.map { groups[$0].range?.count ?? 0 }.max() ?? 0
  }

  /// Calls `body` with the index of each group that an action whose mutators touched `touched`
  /// (nil: unknown) may have changed, once each.
  ///
  /// - Complexity: For one touched range, O(log *g* + *k*), where *g* is the number of groups
  ///   with bytes and *k* the number of groups without bytes or near the range; otherwise O(*g*).
  @inlinable
  func forEachCandidate(_ touched: [Range<Int>]?, _ body: (Int) -> Void) {
    guard let touched, touched.count == 1 else {
      for index in groups.indices where groups[index].mayHaveChanged(touched) { body(index) }
      return
    }
    let target = touched[0]
    for index in unranged { body(index) }
    // A group overlaps the range only if it starts after `target.lowerBound - longest`.
    let after = target.lowerBound - longest
    var low = 0
    var high = lowerBounds.count
    while low < high {
      let middle = (low + high) / 2
      if lowerBounds[middle] > after { high = middle } else { low = middle + 1 }
    }
    var position = low
    while position < lowerBounds.count, lowerBounds[position] < target.upperBound {
      let index = ranged[position]
      if let range = groups[index].range, range.overlaps(target) { body(index) }
      position += 1
    }
  }

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
        groups[groupIndex].removeSink(at: index)
        if groups[groupIndex].sinks.isEmpty { groups.remove(at: groupIndex) }
        return true
      }
    }
    return false
  }
}

/// The value at `path` in the state at `root`.
///
/// A stored property (`offset`, from `MemoryLayout.offset(of:)`) is read where it lies, copying
/// the value alone; a key-path projection, where the code is not specialised for `Root`, would
/// first copy the whole root state to pass it on.
@inlinable
func readValue<Root, Value>(
  at path: KeyPath<Root, Value>, offset: Int?, in root: UnsafePointer<Root>
) -> Value {
  guard let offset else { return root.pointee[keyPath: path] }
  return (UnsafeRawPointer(root) + offset).assumingMemoryBound(to: Value.self).pointee
}
