/// Why a thunk could not run, or `perform` could not wait for it.
///
/// Cancellation is not among these: a cancelled thunk makes `perform` throw `CancellationError`.
public enum ThunkError: Error, Equatable, Sendable {
  /// `perform` found no ``ThunkMiddleware`` in the store's chain, so nothing would run the thunk.
  case middlewareMissing
  /// A middleware before ``ThunkMiddleware`` dropped the thunk, so it will never run.
  case dropped
  /// The thunk's body asks for dependencies of type `expected`, but the store's
  /// ``ThunkMiddleware`` was given a value of type `found`.
  case dependenciesMismatch(expected: String, found: String)
  /// The thunk was built for a store whose state is `expected`, but dispatched to a store whose
  /// state is `found`.
  case stateMismatch(expected: String, found: String)
}

extension ThunkError: CustomStringConvertible {
  /// A sentence that says what went wrong and how to fix it.
  public var description: String {
    switch self {
    case .middlewareMissing:
      "The store has no ThunkMiddleware, so the thunk would never run; add ThunkMiddleware(dependencies:) to the store's middleware, first in the chain."
    case .dropped:
      "A middleware before ThunkMiddleware dropped the thunk, so it never ran; put ThunkMiddleware first in the chain."
    case .dependenciesMismatch(let expected, let found):
      "The thunk needs dependencies of type \(expected), but the store's ThunkMiddleware has \(found); give ThunkMiddleware a value of type \(expected), or annotate the thunk's context with ThunkContext<_, \(found)>."
    case .stateMismatch(let expected, let found):
      "The thunk is for a store of \(expected) but was dispatched to a store of \(found); build it as Thunk<\(found), _>."
    }
  }
}
