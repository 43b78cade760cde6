import Synchronization

/// Whether a subscription was cancelled: read by the store before each call of its observer.
final class CancellationFlag: Sendable {
  private let cancelled = Atomic<Bool>(false)

  var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

  /// Cancels; returns whether this call did (false when it was cancelled already).
  func cancel() -> Bool {
    !cancelled.exchange(true, ordering: .acquiringAndReleasing)
  }
}

/// The observers of a store, grouped by the value they observe, and how a commit reaches them.
///
/// Each group reads its value from the state after a commit, compares it with the value it
/// read last time, and calls its observers with the new one when it changed. Comparing values
/// (never bytes or identities) is what makes an observer see every change, in place in a
/// collection with spare capacity too. A group whose value lies at known bytes of the state
/// (a key path of stored properties) is skipped without reading it when the commit's handlers
/// touched other bytes only: the bytes are an index, never a way to read or compare the state.
///
/// Single-threaded: only the thread holding the store's turn touches it.
struct ObserverList<State: Sendable> {
  private(set) var groups: [ObserverGroup<State>] = []
  private var lastID: UInt64 = 0
  /// What a dispatch asks of the list before it reduces, kept up to date here.
  let summary: ObserverSummary

  init(summary: ObserverSummary) {
    self.summary = summary
  }

  /// Tells the summary what the groups are now, once one was removed.
  private func summarize() {
    let ranges = groups.compactMap(\.range)
    summary.set(
      count: groups.count, needsOldState: groups.contains { $0.needsOldState },
      watched: ranges.count == groups.count ? ranges : nil)
  }

  mutating func makeID() -> UInt64 {
    lastID += 1
    return lastID
  }

  /// The group of a shared value (a key path, a memoized selector), if one exists.
  func group(sharing key: AnyHashable) -> ObserverGroup<State>? {
    groups.first { $0.shareKey == key }
  }

  mutating func add(_ group: ObserverGroup<State>) {
    groups.append(group)
    summary.add(needsOldState: group.needsOldState, range: group.range)
  }

  /// Removes a member; returns its `finish`, if any, for the caller to call.
  mutating func remove(_ id: UInt64) -> (@Sendable () -> Void)? {
    for index in groups.indices {
      if let finish = groups[index].remove(id) {
        if groups[index].isEmpty {
          groups.remove(at: index)
          summarize()
        }
        return finish
      }
    }
    return nil
  }

  /// Cancels and removes every member; returns their `finish` closures.
  mutating func removeAll() -> [@Sendable () -> Void] {
    defer {
      groups = []
      summarize()
    }
    return groups.flatMap { $0.cancelAll() }
  }

  /// Tells the observers of a commit, in subscription order.
  ///
  /// - Parameters:
  ///   - change: What the commit changed.
  ///   - state: The state after it.
  func tell(_ change: Reducer<State>.Change, state: State) {
    var changed: [ObserverGroup<State>] = []
    for group in groups where group.mayChange(touched: change.touched) {
      if group.refresh(state, change: change) { changed.append(group) }
    }
    if changed.count == 1 {
      changed[0].deliver()
    } else if changed.count > 1 {
      // Members of several groups, interleaved by when they subscribed.
      let calls = changed.flatMap { $0.deliveries() }.sorted { $0.id < $1.id }
      for call in calls { call.run() }
    }
  }
}

/// What a dispatch asks of a store's observers before it reduces: whether there is any, whether
/// one needs the state before each commit, and the bytes of the state their values lie in.
///
/// ``ObserverList`` keeps it up to date. It is a class of its own, not generic, with private
/// fields, for the reason ``Agenda`` is: every dispatch reads it, and the compiler checks these
/// reads when it compiles, where it checked the same reads of the generic list at run time.
///
/// Touched only by the thread holding the store's turn.
@usableFromInline
final class ObserverSummary: @unchecked Sendable {
  // `@unchecked Sendable`: touched only by the thread holding the store's turn.
  private var count = 0
  private var needsOld = false
  /// nil when some observed value's bytes are unknown (a closure, a computed path).
  private var watched: [Range<Int>]? = []

  /// Whether there is no observer.
  @usableFromInline var isEmpty: Bool { count == 0 }

  /// Whether some observer needs the state before each commit.
  @usableFromInline var needsOldState: Bool { needsOld }

  /// Whether a commit whose handlers touched these bytes (nil: unknown) may have changed an
  /// observed value: decided from the bytes alone, in the dispatch, before any value is read.
  @usableFromInline
  func mayChange(touched: [Range<Int>]?) -> Bool {
    guard let watched, let touched else { return true }
    return watched.contains { range in touched.contains { $0.overlaps(range) } }
  }

  func add(needsOldState: Bool, range: Range<Int>?) {
    count += 1
    needsOld = needsOld || needsOldState
    if let range { watched?.append(range) } else { watched = nil }
  }

  func set(count: Int, needsOldState: Bool, watched: [Range<Int>]?) {
    self.count = count
    needsOld = needsOldState
    self.watched = watched
  }
}

/// One call of one observer, for delivering several groups in subscription order.
struct Delivery {
  let id: UInt64
  let run: () -> Void
}

/// A value observed by one or more subscribers.
///
/// Touched only in the store's turn.
class ObserverGroup<State: Sendable>: @unchecked Sendable {
  // `@unchecked Sendable`: its mutable members are touched only by the thread holding the
  // store's turn.

  /// The bytes of the state the value lies in; nil when unknown (a closure, a computed path).
  let range: Range<Int>?
  /// The key under which subscribers of the same value share this group; nil when not shared.
  let shareKey: AnyHashable?

  init(range: Range<Int>?, shareKey: AnyHashable?) {
    self.range = range
    self.shareKey = shareKey
  }

  var needsOldState: Bool { false }
  var isEmpty: Bool { true }

  /// Cancels every member; returns their `finish` closures.
  func cancelAll() -> [@Sendable () -> Void] { [] }

  /// Whether a commit that touched these bytes (nil: unknown) may have changed the value.
  func mayChange(touched: [Range<Int>]?) -> Bool {
    guard let range, let touched else { return true }
    return touched.contains { $0.overlaps(range) }
  }

  /// Reads the value after a commit; returns whether it changed.
  func refresh(_ state: State, change: Reducer<State>.Change) -> Bool { false }

  /// Calls every member with the value.
  func deliver() {}

  /// Each member's call, for interleaving with other groups.
  func deliveries() -> [Delivery] { [] }

  /// Removes a member; returns its `finish` (a no-op closure when it has none), or nil when it
  /// is not a member.
  func remove(_ id: UInt64) -> (@Sendable () -> Void)? { nil }
}

/// Subscribers of one value selected from the state.
final class ValueGroup<State: Sendable, Value: Sendable>: ObserverGroup<State>,
  @unchecked Sendable
{
  struct Member {
    let id: UInt64
    let flag: CancellationFlag
    let observer: @Sendable (Value) -> Void
    let finish: (@Sendable () -> Void)?
  }

  private let select: @Sendable (State) -> Value
  /// Whether two values are the same; nil: every commit that may change it is a change.
  private let isDuplicate: (@Sendable (Value, Value) -> Bool)?
  private(set) var last: Value
  private var members: [Member] = []

  init(
    select: @escaping @Sendable (State) -> Value,
    isDuplicate: (@Sendable (Value, Value) -> Bool)?,
    initial: Value, range: Range<Int>?, shareKey: AnyHashable?
  ) {
    self.select = select
    self.isDuplicate = isDuplicate
    self.last = initial
    super.init(range: range, shareKey: shareKey)
  }

  func add(_ member: Member) {
    members.append(member)
  }

  override var isEmpty: Bool { members.isEmpty }

  override func cancelAll() -> [@Sendable () -> Void] {
    for member in members { _ = member.flag.cancel() }
    return members.compactMap(\.finish)
  }

  override func refresh(_ state: State, change: Reducer<State>.Change) -> Bool {
    let value = select(state)
    if let isDuplicate, isDuplicate(last, value) { return false }
    last = value
    return true
  }

  override func deliver() {
    let value = last
    for member in members where !member.flag.isCancelled { member.observer(value) }
  }

  override func deliveries() -> [Delivery] {
    let value = last
    return members.map { member in
      Delivery(id: member.id) { if !member.flag.isCancelled { member.observer(value) } }
    }
  }

  override func remove(_ id: UInt64) -> (@Sendable () -> Void)? {
    guard let index = members.firstIndex(where: { $0.id == id }) else { return nil }
    let member = members.remove(at: index)
    return member.finish ?? {}
  }
}

/// Subscribers of every change with the state before and after (`subscribeToChanges`).
final class ChangeGroup<State: Sendable>: ObserverGroup<State>, @unchecked Sendable {
  private let id: UInt64
  private let flag: CancellationFlag
  private let observer: @Sendable (StateChange<State>) -> Void
  private let isEqual: (@Sendable (State, State) -> Bool)?
  private var pending: StateChange<State>?
  private var removed = false

  init(
    id: UInt64, flag: CancellationFlag, isEqual: (@Sendable (State, State) -> Bool)?,
    observer: @escaping @Sendable (StateChange<State>) -> Void
  ) {
    self.id = id
    self.flag = flag
    self.isEqual = isEqual
    self.observer = observer
    super.init(range: nil, shareKey: nil)
  }

  override var needsOldState: Bool { true }
  override var isEmpty: Bool { removed }

  override func cancelAll() -> [@Sendable () -> Void] {
    _ = flag.cancel()
    return []
  }

  override func refresh(_ state: State, change: Reducer<State>.Change) -> Bool {
    guard let old = change.old else { return false }
    if let isEqual, isEqual(old, state) { return false }
    pending = StateChange(action: change.commit.action, oldState: old, newState: state)
    return true
  }

  override func deliver() {
    guard let change = pending else { return }
    pending = nil
    if !flag.isCancelled { observer(change) }
  }

  override func deliveries() -> [Delivery] {
    [Delivery(id: id) { self.deliver() }]
  }

  override func remove(_ id: UInt64) -> (@Sendable () -> Void)? {
    guard id == self.id else { return nil }
    removed = true
    return {}
  }
}
