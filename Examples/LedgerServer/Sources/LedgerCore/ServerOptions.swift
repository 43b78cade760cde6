public import Logging
public import ReduceLogging

/// The command line of `ledger-server`.
///
/// ```
/// ledger-server [--host 127.0.0.1] [--port 8080] [--journal file] [--log ledger.log]
///               [--durability durable|buffered] [--history-limit 100] [--log-level info]
/// ```
public struct ServerOptions: Equatable, Sendable {
  /// The address to listen on.
  public var host = "127.0.0.1"
  /// The port to listen on; 0 picks a free one (the server prints which).
  public var port = 8080
  /// The kind of journal.
  public var journalKind = LedgerJournal.Kind.file
  /// The journal file's path.
  public var logPath = "ledger.log"
  /// When an entry reaches the disk.
  public var durability = FileLogSink.Durability.everyEntry
  /// How many entries each account's history keeps.
  public var historyLimit = Ledger.defaultHistoryLimit
  /// The least level the server logs.
  public var logLevel = Logger.Level.info

  /// The usage text.
  public static let usage = """
    usage: ledger-server [options]
      --host ADDRESS          the address to listen on (default 127.0.0.1)
      --port N                the port to listen on, 0 for any free one (default 8080)
      --journal KIND          where changes are recorded: file (default file)
      --log PATH              the journal file (default ledger.log)
      --durability MODE       durable (fsync before answering, the default) or buffered
      --history-limit N       entries kept per account for /history (default 100)
      --log-level LEVEL       trace, debug, info, notice, warning, error or critical (default info)
      --help                  print this text
    """

  /// Creates the default options.
  public init() {}

  /// The journal the options choose.
  public var journal: LedgerJournal {
    switch journalKind {
    case .file: .file(path: logPath, durability: durability)
    }
  }

  /// Parses the command line's arguments (without the program's name).
  ///
  /// - Parameter arguments: The arguments.
  /// - Returns: The options; nil when `--help` was asked for.
  /// - Throws: ``ServerOptionsError`` naming the first argument that is wrong.
  public static func parse(_ arguments: [String]) throws(ServerOptionsError) -> ServerOptions? {
    var options = ServerOptions()
    var remaining = arguments[...]
    while let flag = remaining.popFirst() {
      if flag == "--help" || flag == "-h" { return nil }
      guard let value = remaining.popFirst() else {
        throw flag.hasPrefix("--") ? .missingValue(flag) : .unknownOption(flag)
      }
      switch flag {
      case "--host":
        guard !value.isEmpty else { throw .invalidValue(flag, value) }
        options.host = value
      case "--port":
        guard let port = Int(value), (0...65535).contains(port) else {
          throw .invalidValue(flag, value)
        }
        options.port = port
      case "--journal":
        guard let kind = LedgerJournal.Kind(rawValue: value) else {
          throw .invalidValue(flag, value)
        }
        options.journalKind = kind
      case "--log":
        guard !value.isEmpty else { throw .invalidValue(flag, value) }
        options.logPath = value
      case "--durability":
        switch value {
        case "durable": options.durability = .everyEntry
        case "buffered": options.durability = .buffered
        default: throw .invalidValue(flag, value)
        }
      case "--history-limit":
        guard let limit = Int(value), limit >= 1 else { throw .invalidValue(flag, value) }
        options.historyLimit = limit
      case "--log-level":
        guard let level = Logger.Level(rawValue: value) else { throw .invalidValue(flag, value) }
        options.logLevel = level
      default:
        throw .unknownOption(flag)
      }
    }
    return options
  }
}

/// Why a command line could not be parsed.
public enum ServerOptionsError: Error, Equatable, Sendable, CustomStringConvertible {
  /// An argument that is no option.
  case unknownOption(String)
  /// An option given last, without its value.
  case missingValue(String)
  /// An option's value that it does not take.
  case invalidValue(String, String)

  /// A sentence saying what is wrong.
  public var description: String {
    switch self {
    case .unknownOption(let option): "unknown option \(option)"
    case .missingValue(let option): "\(option) needs a value"
    case .invalidValue(let option, let value): "\(option) does not take \"\(value)\""
    }
  }
}
