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
    directory = String(
      decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if geteuid() == 0 {
      try Self.run("/bin/chown", ["postgres:postgres", directory], asPostgres: false)
    }
    try run(
      "initdb",
      [
        "-D", dataDirectory, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync",
        "--locale=C",
      ])
    try start()
  }

  /// Starts the cluster and waits until it accepts connections.
  ///
  /// - Throws: ``Failure`` when it does not start.
  public func start() throws {
    try run(
      "pg_ctl",
      [
        "-D", dataDirectory, "-l", directory + "/server.log", "-w", "-t", "60",
        "-o", "-k \(directory) -c listen_addresses='' -c max_connections=80", "start",
      ])
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

  /// Runs a program to its end, its output going to a temporary file, read when it fails.
  ///
  /// `posix_spawn` and `waitpid` rather than Foundation's `Process`, whose `waitUntilExit` was
  /// seen never to return for a `pg_ctl start` (which leaves a daemon behind) on Linux.
  private static func run(_ executable: String, _ arguments: [String], asPostgres: Bool) throws {
    // From `/`, not the tests' working directory, which the postgres user may not be able to
    // enter.
    let command = ["/bin/sh", "-c", "cd / && exec \"$@\"", "sh"]
    let argv =
      asPostgres
      ? command + ["/usr/sbin/runuser", "-u", "postgres", "--", executable] + arguments
      : command + [executable] + arguments
    let output = NSTemporaryDirectory() + "reduce-pg-output-\(getpid())-\(UUID().uuidString)"
    defer { unlink(output) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var pid = pid_t()
    let cArguments = argv.map { strdup($0) } + [nil]
    defer { for argument in cArguments { free(argument) } }
    let status = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
    guard status == 0 else {
      throw Failure(description: "cannot run \(executable): posix_spawn failed with \(status)")
    }
    var exitStatus: Int32 = 0
    while waitpid(pid, &exitStatus, 0) < 0 {
      guard errno == EINTR else { throw Failure(description: "waitpid failed for \(argv[0])") }
    }
    guard exitStatus == 0 else {
      let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
      throw Failure(
        description:
          "\(executable) \(arguments.joined(separator: " ")) failed (wait status \(exitStatus)): \(text)"
      )
    }
  }

  private static func findBinaries() throws -> String {
    if let given = ProcessInfo.processInfo.environment["PG_BIN"] {
      guard FileManager.default.isExecutableFile(atPath: given + "/initdb") else {
        throw Failure(description: "PG_BIN is \(given), which holds no initdb")
      }
      return given
    }
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
