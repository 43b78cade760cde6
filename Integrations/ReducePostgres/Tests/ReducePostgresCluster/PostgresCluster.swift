import Foundation
public import PostgresNIO

/// A throwaway PostgreSQL cluster for the tests and the benchmark: made with `initdb` in a
/// temporary directory, reached through a unix socket in that directory (no TCP port), and
/// removed when ``remove()`` is called.
///
/// `initdb` and `pg_ctl` refuse to run as root; as root, they run as the `postgres` user
/// (`runuser -u postgres`), which owns the directory. The binaries are looked up under
/// `/usr/lib/postgresql/<version>/bin` (Debian's layout), or in `PG_BIN` when it is set.
public final class PostgresCluster: @unchecked Sendable {
  // `@unchecked Sendable`: every property is a constant.

  /// Why the cluster could not be made, started or stopped.
  public struct Failure: Error, CustomStringConvertible {
    /// What failed, with the tool's output.
    public var description: String

    /// Creates a failure.
    ///
    /// - Parameter description: What failed.
    public init(description: String) {
      self.description = description
    }
  }

  /// The temporary directory: the data directory and the socket are in it.
  public let directory: String
  /// The data directory.
  public var dataDirectory: String { directory + "/data" }
  /// The unix socket's path.
  public var socketPath: String { directory + "/.s.PGSQL.5432" }
  private let binaries: String

  /// How a client reaches the cluster: the socket, as the `postgres` superuser, no password.
  public var configuration: PostgresConnection.Configuration {
    PostgresConnection.Configuration(
      unixSocketPath: socketPath, username: "postgres", password: nil, database: "postgres")
  }

  /// Makes and starts a cluster.
  ///
  /// - Throws: ``Failure`` when PostgreSQL is not installed or does not start.
  public init() throws {
    binaries = try Self.findBinaries()
    let template = NSTemporaryDirectory() + "reduce-pg-XXXXXX"
    var path = Array(template.utf8CString)
    guard mkdtemp(&path) != nil else { throw Failure(description: "mkdtemp failed") }
    directory = String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if geteuid() == 0 {
      try Self.run("/bin/chown", ["postgres:postgres", directory], asPostgres: false)
    }
    try run(
      "initdb",
      ["-D", dataDirectory, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync",
       "--locale=C"])
    try start()
  }

  /// Starts the cluster and waits until it accepts connections.
  ///
  /// - Throws: ``Failure`` when it does not start.
  public func start() throws {
    try run(
      "pg_ctl",
      ["-D", dataDirectory, "-l", directory + "/server.log", "-w", "-t", "60",
       "-o", "-k \(directory) -c listen_addresses='' -c max_connections=50", "start"])
  }

  /// Stops the cluster.
  ///
  /// - Parameter immediately: `-m immediate` (like a crash: no checkpoint, the next start
  ///   recovers from the WAL) rather than `-m fast`.
  /// - Throws: ``Failure`` when `pg_ctl` fails.
  public func stop(immediately: Bool = false) throws {
    try run(
      "pg_ctl", ["-D", dataDirectory, "-w", "-m", immediately ? "immediate" : "fast", "stop"])
  }

  /// Stops the cluster if it runs and deletes its directory.
  public func remove() {
    _ = try? run("pg_ctl", ["-D", dataDirectory, "-w", "-m", "immediate", "stop"])
    try? FileManager.default.removeItem(atPath: directory)
  }

  private func run(_ tool: String, _ arguments: [String]) throws {
    try Self.run(binaries + "/" + tool, arguments, asPostgres: geteuid() == 0)
  }

  private static func run(_ executable: String, _ arguments: [String], asPostgres: Bool) throws {
    let process = Process()
    if asPostgres {
      process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
      process.arguments = ["-u", "postgres", "--", executable] + arguments
    } else {
      process.executableURL = URL(fileURLWithPath: executable)
      process.arguments = arguments
    }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    // Not the tests' working directory, which the postgres user may not be able to enter.
    process.currentDirectoryURL = URL(fileURLWithPath: "/")
    do {
      try process.run()
    } catch {
      throw Failure(description: "cannot run \(executable): \(error)")
    }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw Failure(
        description:
          "\(executable) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus): \(text)"
      )
    }
  }

  private static func findBinaries() throws -> String {
    if let given = ProcessInfo.processInfo.environment["PG_BIN"] { return given }
    let root = "/usr/lib/postgresql"
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
    for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
      let path = "\(root)/\(version)/bin"
      if FileManager.default.isExecutableFile(atPath: path + "/initdb") { return path }
    }
    throw Failure(
      description:
        "PostgreSQL's initdb was not found under \(root)/*/bin; install the postgresql package (Scripts/ci.sh does) or set PG_BIN"
    )
  }
}
