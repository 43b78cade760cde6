import Foundation
public import PostgresNIO

/// Where the PostgreSQL journal is and which stream it keeps: what `ledger-server --journal
/// postgres` and its `--pg-…` options choose.
///
/// The server reaches PostgreSQL through a unix socket (by default libpq's,
/// `/var/run/postgresql`) or over TCP without TLS (`--pg-host`: for a server on the same
/// machine or a trusted network). The password, if the server asks for one, comes from the
/// `PGPASSWORD` environment variable, never from the command line.
public struct PostgresJournalOptions: Equatable, Sendable {
  /// The unix socket libpq and Debian's PostgreSQL use when none is named.
  public static let defaultSocketDirectory = "/var/run/postgresql"

  /// The unix socket: its path, or the directory that holds `.s.PGSQL.<port>`; nil for the
  /// default directory, unless ``host`` is set.
  public var socket: String?
  /// The host to reach over TCP; nil to use the unix socket.
  public var host: String?
  /// The server's port: TCP's, or the number in the socket's name.
  public var port = 5432
  /// The database that holds the journal's tables.
  public var database = "postgres"
  /// The role the server connects as.
  public var user = "postgres"
  /// The role's password; nil when the server asks none (peer or trust authentication).
  public var password: String?
  /// The journal's stream: one ledger's entries.
  public var stream = "ledger"
  /// The writer's name, the same across this server's restarts; nil for the host name.
  public var writer: String?
  /// Whether to open the stream at once, though an earlier process of this writer may hold it.
  ///
  /// For a supervisor that restarts the server after killing it. If that process is in fact
  /// running, the changes of its last commit timeout may be lost. By default the server waits
  /// for the earlier process's lease to lapse (at most a minute).
  public var ignoringHolderLease = false

  /// Creates the default options: the default unix socket, the `postgres` database and role,
  /// the stream `ledger`, the host name as the writer.
  public init() {}

  /// How the server reaches PostgreSQL.
  public enum Endpoint: Equatable, Sendable {
    /// A unix socket, by the path of the socket itself.
    case unixSocket(path: String)
    /// A host and port over TCP, without TLS.
    case tcp(host: String, port: Int)
  }

  /// The endpoint the options name: TCP when ``host`` is set; otherwise the socket, with
  /// `.s.PGSQL.<port>` appended when ``socket`` names its directory.
  public var endpoint: Endpoint {
    if let host { return .tcp(host: host, port: port) }
    let path = socket ?? Self.defaultSocketDirectory
    let name = ".s.PGSQL."
    if (path as NSString).lastPathComponent.hasPrefix(name) { return .unixSocket(path: path) }
    return .unixSocket(path: (path as NSString).appendingPathComponent("\(name)\(port)"))
  }

  /// The writer's name: ``writer``, or this machine's host name.
  public var writerName: String {
    if let writer { return writer }
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "ledger-server" }
    let name = String(
      decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return name.isEmpty ? "ledger-server" : name
  }

  /// The connection's configuration for postgres-nio.
  public var configuration: PostgresConnection.Configuration {
    switch endpoint {
    case .unixSocket(let path):
      PostgresConnection.Configuration(
        unixSocketPath: path, username: user, password: password, database: database)
    case .tcp(let host, let port):
      PostgresConnection.Configuration(
        host: host, port: port, username: user, password: password, database: database,
        tls: .disable)
    }
  }

  /// A line saying where the journal is, without the password.
  public var summary: String {
    let place =
      switch endpoint {
      case .unixSocket(let path): "socket \(path)"
      case .tcp(let host, let port): "\(host):\(port)"
      }
    return
      "postgres stream \(stream) as writer \(writerName) (\(place), database \(database), user \(user))"
  }
}
