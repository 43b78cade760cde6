/// A thunk's cancellation id, compared by value.
///
/// `@unchecked Sendable`: `AnyHashable` is not `Sendable`, but the only initialiser takes a value
/// that is `Hashable & Sendable`, so the wrapped value is safe to share across threads.
struct CancellationID: Hashable, @unchecked Sendable, CustomStringConvertible {
  let value: AnyHashable

  init(_ value: some Hashable & Sendable) {
    self.value = AnyHashable(value)
  }

  var description: String { String(describing: value.base) }
}
