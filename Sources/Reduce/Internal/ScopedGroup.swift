/// What observers of one value share its group by.
///
/// `@unchecked Sendable`: its key paths are immutable, and `Sendable` or appended from
/// `Sendable` key paths, which `appending(path:)` does not say in its type.
@usableFromInline
enum ShareKey: Hashable, @unchecked Sendable {
  /// A key path: observers of equal key paths share.
  case path(AnyKeyPath)
  /// A ``MemoizedSelector`` of an `Equatable` value, by identity.
  case selector(ObjectIdentifier)
  /// A ``MemoizedSelector`` whose observers are called after each of its computations.
  case generations(ObjectIdentifier)
  /// A scoped store's substate, by its key path from the root.
  case scope(AnyKeyPath)

  @usableFromInline
  static func == (lhs: ShareKey, rhs: ShareKey) -> Bool {
    switch (lhs, rhs) {
    case (.path(let lhs), .path(let rhs)): lhs == rhs
    case (.selector(let lhs), .selector(let rhs)): lhs == rhs
    case (.generations(let lhs), .generations(let rhs)): lhs == rhs
    case (.scope(let lhs), .scope(let rhs)): lhs == rhs
    default: false
    }
  }

  @usableFromInline
  func hash(into hasher: inout Hasher) {
    switch self {
    case .path(let path): hasher.combine(path)
    case .selector(let id): hasher.combine(id)
    case .generations(let id):
      hasher.combine(1)
      hasher.combine(id)
    case .scope(let path):
      hasher.combine(2)
      hasher.combine(path)
    }
  }
}

/// The observers of one key path or selector.
@usableFromInline
struct ScopedGroup<State: Sendable>: Sendable {
  /// The shared last value (a ``KeyPathValue`` or a ``SelectedValue``), by identity.
  @usableFromInline let value: AnyObject & Sendable
  /// What observers of the same value share the group by: a key path, or a ``MemoizedSelector``'s
  /// identity; nil for a closure, which nothing shares.
  @usableFromInline let shareKey: ShareKey?
  /// The bytes of `State` the value occupies, for a stored-property path: the group is
  /// refreshed only after actions whose mutators touched them.
  @usableFromInline let range: Range<Int>?
  /// Reads, compares and keeps the value; specialised where the subscription was made.
  @usableFromInline let refresh: @Sendable (UnsafePointer<State>) -> Bool
  /// The group's observers, and their call with the value.
  @usableFromInline private(set) var members: GroupMembers<State>
  /// The bytes the value occupied at its last refresh, for a value with a range: when they are
  /// the same, so is the value, and it is not read again.
  @usableFromInline let snapshot: ByteSnapshot?

  /// Makes a group without observers.
  ///
  /// - Parameters:
  ///   - value: The shared last value, a ``KeyPathValue`` or a ``SelectedValue``.
  ///   - shareKey: What observers of the same value share the group by; nil: nothing.
  ///   - range: The bytes of `State` the value occupies, when known.
  ///   - refresh: Reads, compares and keeps the value.
  ///   - makeDelivery: Makes the call of a list of the group's observers with the value (the
  ///     value's `delivery(to:)`).
  @usableFromInline
  init(
    value: AnyObject & Sendable, shareKey: ShareKey?, range: Range<Int>?,
    refresh: @escaping @Sendable (UnsafePointer<State>) -> Bool,
    makeDelivery: @escaping @Sendable ([Sink<State>]) -> @Sendable () -> Void
  ) {
    self.value = value
    self.shareKey = shareKey
    self.range = range
    self.refresh = refresh
    self.members = GroupMembers([], makeDelivery: makeDelivery)
    self.snapshot = range.map(ByteSnapshot.init)
  }

  /// The group's observers, in subscription order.
  @inlinable var sinks: [Sink<State>] { members.sinks }

  /// Adds an observer after the others.
  ///
  /// - Parameter sink: A `ValueSink` of the group's value type.
  mutating func append(_ sink: Sink<State>) {
    members = GroupMembers(members.sinks + [sink], makeDelivery: members.makeDelivery)
  }

  /// Removes the observer at a position of `sinks`.
  ///
  /// - Parameter index: The observer's position.
  mutating func removeSink(at index: Int) {
    var sinks = members.sinks
    sinks.remove(at: index)
    members = GroupMembers(sinks, makeDelivery: members.makeDelivery)
  }

  /// Whether an action whose mutators touched `touched` (nil: unknown) may have changed it.
  @inlinable
  func mayHaveChanged(_ touched: [Range<Int>]?) -> Bool {
    guard let range, let touched else { return true }
    for candidate in touched where candidate.overlaps(range) { return true }
    return false
  }
}

/// The observers of one group, in subscription order, and their call with the group's value.
///
/// Immutable but for `delivery`: an observer joining or leaving the group makes new members.
/// The call, which needs the sinks typed for the value, is made when the turn holder first tells
/// the members, not when they change: a thousand observers joining one group would otherwise
/// make a thousand typed lists of up to a thousand sinks (where the delivery is not specialised,
/// about 150 instructions per sink: 1,000 readers of one selector took 184 instead of 109
/// million instructions to subscribe).
///
/// `@unchecked Sendable`: `delivery` is read and written only by the thread holding the store's
/// turn; the other properties are immutable.
@usableFromInline
final class GroupMembers<State: Sendable>: @unchecked Sendable {
  /// The observers, in subscription order.
  @usableFromInline let sinks: [Sink<State>]
  /// Makes the call of a list of the group's observers with its value, the list typed for the
  /// value (the value's `delivery(to:)`); specialised where the subscription was made.
  @usableFromInline let makeDelivery: @Sendable ([Sink<State>]) -> @Sendable () -> Void
  /// `makeDelivery(sinks)`; nil until the members are first told.
  @exclusivity(unchecked) @usableFromInline var delivery: (@Sendable () -> Void)?

  /// Makes members whose call is not made yet.
  ///
  /// - Parameters:
  ///   - sinks: The observers, in subscription order: each a `ValueSink` of the group's value.
  ///   - makeDelivery: Makes the call of a list of the group's observers.
  @usableFromInline
  init(
    _ sinks: [Sink<State>],
    makeDelivery: @escaping @Sendable ([Sink<State>]) -> @Sendable () -> Void
  ) {
    self.sinks = sinks
    self.makeDelivery = makeDelivery
  }

  /// Calls the observers that are not cancelled, in order, with the group's value after its
  /// last refresh; only the turn holder calls it.
  @inlinable
  func deliver() {
    if let delivery { return delivery() }
    let delivery = makeDelivery(sinks)
    self.delivery = delivery
    delivery()
  }
}
