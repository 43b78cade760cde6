/// Why ``ShutdownSignals`` could not start handling the stop signals.
public enum ShutdownSignalsError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Another ``ShutdownSignals`` handles the signals in this process: keep one, give all the
  /// shutdown work to it with ``ShutdownSignals/onShutdown(_:)``, or cancel the other first.
  case alreadyHandled

  /// A sentence that says what went wrong and how to fix it.
  public var description: String {
    switch self {
    case .alreadyHandled:
      "another ShutdownSignals handles the stop signals of this process; keep one and add all the shutdown work to it, or cancel the other first"
    }
  }
}
