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
  public var underlying: any Error {
    switch self {
    case .reducerFailed(_, _, let error), .rejected(_, _, let error),
      .middlewareFailed(_, _, let error):
      error
    }
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
