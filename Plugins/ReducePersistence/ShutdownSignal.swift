#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A signal that asks a process to stop, which ``ShutdownSignals`` handles: SIGINT, SIGTERM or
/// SIGHUP.
///
/// The set is closed: these are the signals whose default action ends a process and that a
/// terminal, a shell, a service manager or a container runtime sends to ask it to stop.
public struct ShutdownSignal: Sendable, Hashable, CustomStringConvertible {
  /// The signal's number, such as `SIGINT`.
  public let number: Int32
  /// The signal's name with its prefix, as `kill -l` spells it: `SIGINT`.
  public let name: String

  private init(number: Int32, name: String) {
    self.number = number
    self.name = name
  }

  /// SIGINT: Ctrl-C at the terminal.
  public static let interrupt = ShutdownSignal(number: SIGINT, name: "SIGINT")
  /// SIGTERM: `kill`, a service manager or a container runtime stopping the process.
  public static let terminate = ShutdownSignal(number: SIGTERM, name: "SIGTERM")
  /// SIGHUP: the terminal was closed.
  public static let hangUp = ShutdownSignal(number: SIGHUP, name: "SIGHUP")

  /// SIGINT, SIGTERM and SIGHUP: the signals ``ShutdownSignals`` handles by default.
  public static let all: [ShutdownSignal] = [.interrupt, .terminate, .hangUp]

  /// The exit status a shell reports for a process this signal ended: 128 plus its number
  /// (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
  public var shellStatus: Int32 { 128 + number }

  /// The signal's name, such as `SIGINT`.
  public var description: String { name }
}
