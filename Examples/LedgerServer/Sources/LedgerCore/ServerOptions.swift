public import Logging
public import ReduceLogging

/// The command line of `ledger-server`.
///
/// ```
/// ledger-server [--host 127.0.0.1] [--port 8080] [--journal file] [--log ledger.log]
///               [--durability durable|buffered] [--history-limit 100] [--log-level info]
/// ledger-server --journal postgres [--pg-socket PATH | --pg-host HOST] [--pg-port 5432]
///               [--pg-database postgres] [--pg-user postgres] [--pg-stream ledger]
///               [--pg-writer NAME] [--pg-holder-lease wait|ignore] [...]
/// ```
///
/// The options of one kind of journal are refused with the other (``ServerOptionsError``), so
/// that a mistyped `--journal` does not silently keep the file journal.
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
  /// Where the PostgreSQL journal is, and its stream.
  public var postgres = PostgresJournalOptions()

  /// The usage text.
  public static let usage = """
    usage: ledger-server [options]
      --host ADDRESS          the address to listen on (default 127.0.0.1)
      --port N                the port to listen on, 0 for any free one (default 8080)
      --journal KIND          where changes are recorded: file or postgres (default file)
      --history-limit N       entries kept per account for /history (default 100)
      --log-level LEVEL       trace, debug, info, notice, warning, error or critical (default info)
      --help                  print this text
    with --journal file:
      --log PATH              the journal file (default ledger.log)
      --durability MODE       durable (fsync before answering, the default) or buffered
    with --journal postgres (every change committed before it is answered):
      --pg-socket PATH        the unix socket, or its directory (default /var/run/postgresql)
      --pg-host HOST          connect over TCP without TLS instead of the socket
      --pg-port N             the port, also the socket's number (default 5432)
      --pg-database NAME      the database (default postgres)
      --pg-user NAME          the role (default postgres); the password is read from PGPASSWORD
      --pg-stream NAME        the journal's stream (default ledger)
      --pg-writer NAME        this server's name as the stream's writer, the same across its
                              restarts (default the host name)
      --pg-holder-lease MODE  wait (the default): wait for the lease of this writer's previous
                              process to lapse before serving; ignore: serve at once, for a
                              supervisor that restarts the server after killing it
    """

  /// Creates the default options.
  public init() {}

  /// The journal the options choose.
  public var journal: LedgerJournal {
    switch journalKind {
    case .file: .file(path: logPath, durability: durability)
    case .postgres: .postgres(postgres)
    }
  }

  /// The options only the file journal takes.
  static let fileOptions = ["--log", "--durability"]
  /// The options only the PostgreSQL journal takes.
  static let postgresOptions = [
    "--pg-socket", "--pg-host", "--pg-port", "--pg-database", "--pg-user", "--pg-stream",
    "--pg-writer", "--pg-holder-lease",
  ]

  /// Parses the command line's arguments (without the program's name).
  ///
  /// - Parameters:
  ///   - arguments: The arguments.
  ///   - environment: The environment: `PGPASSWORD` is the PostgreSQL journal's password.
  /// - Returns: The options; nil when `--help` was asked for.
  /// - Throws: ``ServerOptionsError`` naming the first argument that is wrong, or two that do
  ///   not go together.
  public static func parse(_ arguments: [String], environment: [String: String] = [:])
    throws(ServerOptionsError) -> ServerOptions?
  {
    var options = ServerOptions()
    options.postgres.password = environment["PGPASSWORD"]
    var given: [String] = []
    var remaining = arguments[...]
    while let flag = remaining.popFirst() {
      if flag == "--help" || flag == "-h" { return nil }
      guard let value = remaining.popFirst() else {
        throw flag.hasPrefix("--") ? .missingValue(flag) : .unknownOption(flag)
      }
      given.append(flag)
      if postgresOptions.contains(flag) {
        try parsePostgres(flag, value, into: &options.postgres)
        continue
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
    try checkCombination(given, journal: options.journalKind)
    return options
  }

  /// Parses one of the PostgreSQL journal's options.
  private static func parsePostgres(
    _ flag: String, _ value: String, into options: inout PostgresJournalOptions
  ) throws(ServerOptionsError) {
    guard !value.isEmpty else { throw .invalidValue(flag, value) }
    switch flag {
    case "--pg-socket": options.socket = value
    case "--pg-host": options.host = value
    case "--pg-port":
      guard let port = Int(value), (1...65535).contains(port) else {
        throw .invalidValue(flag, value)
      }
      options.port = port
    case "--pg-database": options.database = value
    case "--pg-user": options.user = value
    case "--pg-stream": options.stream = value
    case "--pg-writer": options.writer = value
    case "--pg-holder-lease":
      switch value {
      case "wait": options.ignoringHolderLease = false
      case "ignore": options.ignoringHolderLease = true
      default: throw .invalidValue(flag, value)
      }
    default: throw .unknownOption(flag)
    }
  }

  /// Refuses options of the journal not chosen, and a socket with a host.
  private static func checkCombination(_ given: [String], journal: LedgerJournal.Kind)
    throws(ServerOptionsError)
  {
    let foreign: (options: [String], journal: LedgerJournal.Kind) =
      switch journal {
      case .file: (postgresOptions, .postgres)
      case .postgres: (fileOptions, .file)
      }
    if let flag = given.first(where: foreign.options.contains) {
      throw .needsJournal(flag, foreign.journal.rawValue)
    }
    if given.contains("--pg-socket") && given.contains("--pg-host") {
      throw .exclusive("--pg-socket", "--pg-host")
    }
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
  /// An option that only the journal named second takes, given with another journal.
  case needsJournal(String, String)
  /// Two options of which only one may be given.
  case exclusive(String, String)

  /// A sentence saying what is wrong.
  public var description: String {
    switch self {
    case .unknownOption(let option): "unknown option \(option)"
    case .missingValue(let option): "\(option) needs a value"
    case .invalidValue(let option, let value): "\(option) does not take \"\(value)\""
    case .needsJournal(let option, let journal):
      "\(option) applies to --journal \(journal) only"
    case .exclusive(let first, let second):
      "\(first) and \(second) exclude each other: give one"
    }
  }
}
