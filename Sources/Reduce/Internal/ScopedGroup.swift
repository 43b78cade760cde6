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
  /// Makes `deliver` for the group's observers; specialised like `refresh`.
  @usableFromInline let makeDelivery: @Sendable ([Sink<State>]) -> @Sendable () -> Void
  /// The group's observers, in subscription order.
  @usableFromInline private(set) var sinks: [Sink<State>] = []
  /// Calls the group's observers that are not cancelled, in order, with the value after the
  /// last refresh: made again whenever `sinks` change, with the sinks typed for the value.
  @usableFromInline private(set) var deliver: @Sendable () -> Void
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
    self.makeDelivery = makeDelivery
    self.deliver = makeDelivery([])
    self.snapshot = range.map(ByteSnapshot.init)
  }

  /// Adds an observer after the others.
  ///
  /// - Parameter sink: A `ValueSink` of the group's value type.
  mutating func append(_ sink: Sink<State>) {
    sinks.append(sink)
    deliver = makeDelivery(sinks)
  }

  /// Removes the observer at a position of `sinks`.
  ///
  /// - Parameter index: The observer's position.
  mutating func removeSink(at index: Int) {
    sinks.remove(at: index)
    deliver = makeDelivery(sinks)
  }

  /// Whether an action whose mutators touched `touched` (nil: unknown) may have changed it.
  @inlinable
  func mayHaveChanged(_ touched: [Range<Int>]?) -> Bool {
    guard let range, let touched else { return true }
    for candidate in touched where candidate.overlaps(range) { return true }
    return false
  }
}
