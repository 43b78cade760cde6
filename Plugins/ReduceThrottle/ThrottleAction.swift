public import Reduce

/// Commands a ``ThrottleMiddleware`` takes as actions, so that any code that can dispatch can
/// flush or cancel what it holds back.
///
/// The middleware handles these itself: they never reach the middleware after it or the
/// reducers.
public enum ThrottleAction: Action, Equatable {
  /// Delivers every held action now, in arrival order; see ``ThrottleMiddleware/flush()``.
  case flush
  /// Drops what is held for a key; see ``ThrottleMiddleware/cancel(key:)``.
  case cancel(key: ThrottleKey)
}
