/// Why a dispatch failed.
///
/// Every failure is also published on ``Store/errors`` and given to the store's fallback.
/// This enum has exactly these three cases.
public indirect enum DispatchError: Error, Sendable {
  /// A reducer threw while handling `action`. Every change made for the action was discarded.
  ///
  /// - `key`: the key of the mutator whose handler threw.
  case reducerFailed(key: MutatorKey, action: any Action, underlying: any Error)
  /// The middleware named `by` threw from `handle`, rejecting `action`.
  case rejected(by: String, action: any Action, underlying: any Error)
  /// The middleware named `name` reported an error it found later, through
  /// ``MiddlewareContext/report(_:)`` (an async thunk failed, a log file could not be written).
  case middlewareFailed(name: String, action: any Action, underlying: any Error)

  /// The action that failed.
  public var action: any Action {
    switch self {
    case .reducerFailed(_, let action, _), .rejected(_, let action, _),
      .middlewareFailed(_, let action, _):
      action
    }
  }

  /// The error that caused the failure.
  ///
  /// To get it as the type the reducer or middleware threw, use ``underlying(as:)``.
  public var underlying: any Error {
    switch self {
    case .reducerFailed(_, _, let error), .rejected(_, _, let error),
      .middlewareFailed(_, _, let error):
      error
    }
  }

  /// The error that caused the failure, as the type the reducer or middleware threw.
  ///
  /// A `validate:` closure that `throws(LedgerError)`, a middleware that refuses an action, and
  /// a middleware's later ``MiddlewareContext/report(_:)`` all reach the caller wrapped in a
  /// `DispatchError`; this gives their own error back without a cast:
  ///
  /// ```swift
  /// if let refusal = store.dispatch(LedgerAction.withdrew("ada", 500))
  ///   .failure(as: LedgerError.self)
  /// {
  ///   show(refusal)
  /// }
  /// for await error in store.errors {
  ///   if let refusal = error.underlying(as: LedgerError.self) { show(refusal) }
  /// }
  /// ```
  ///
  /// When the cause is itself a `DispatchError` (a middleware threw the failure of a dispatch
  /// of its own), its cause is looked at in turn.
  ///
  /// - Parameter type: The error type to look for, such as `LedgerError.self`.
  /// - Returns: The cause as an `E`, or nil when the cause is of another type.
  /// - Complexity: O(*d*), where *d* is how deeply `DispatchError`s are nested: O(1) in
  ///   practice.
  public func underlying<E: Error>(as type: E.Type) -> E? {
    var cause = underlying
    while true {
      if let match = cause as? E { return match }
      guard let inner = cause as? DispatchError else { return nil }
      cause = inner.underlying
    }
  }
}

extension Result where Failure == DispatchError {
  /// The cause of a failed dispatch, as the type the reducer or middleware threw.
  ///
  /// ```swift
  /// let result = store.dispatch(LedgerAction.withdrew("ada", 500))
  /// if let refusal = result.failure(as: LedgerError.self) {
  ///   show(refusal)
  /// }
  /// ```
  ///
  /// `failure(as: DispatchError.self)` is the failure itself, for code that wants to know
  /// which middleware rejected the action or which mutator threw.
  ///
  /// - Parameter type: The error type to look for, such as `LedgerError.self`.
  /// - Returns: The cause as an `E` (see ``DispatchError/underlying(as:)``), or nil when the
  ///   dispatch succeeded or failed for a cause of another type.
  public func failure<E: Error>(as type: E.Type) -> E? {
    guard case .failure(let error) = self else { return nil }
    return (error as any Error) as? E ?? error.underlying(as: type)
  }
}

extension DispatchError: CustomStringConvertible {
  /// A sentence that names the failing part, the action and the cause.
  public var description: String {
    switch self {
    case .reducerFailed(let key, let action, let error):
      "Mutator '\(key)' failed to reduce \(action): \(error)"
    case .rejected(let name, let action, let error):
      "Middleware '\(name)' rejected \(action): \(error)"
    case .middlewareFailed(let name, let action, let error):
      "Middleware '\(name)' failed while handling \(action): \(error)"
    }
  }
}
