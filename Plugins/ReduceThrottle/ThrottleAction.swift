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

extension ThrottleAction: Encodable {
  private enum CodingKeys: String, CodingKey {
    case command, key
  }

  /// Encodes the command by name, with the key's description for `cancel`:
  /// `{"command":"cancel","key":"search"}`, so that an audit log records which command it was.
  ///
  /// - Parameter encoder: The encoder to write to.
  /// - Throws: What the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .flush:
      try container.encode("flush", forKey: .command)
    case .cancel(let key):
      try container.encode("cancel", forKey: .command)
      try container.encode(key.description, forKey: .key)
    }
  }
}
