import Foundation

/// A throwaway PostgreSQL cluster for the PostgreSQL journal's tests: `initdb` in a temporary
/// directory, reached through a unix socket there (no TCP port), removed when the test process
/// exits.
///
/// A small version of `ReducePostgresCluster` in Integrations/ReducePostgres, which is a target
/// of that package and not a product, so this package cannot depend on it. As root, `initdb` and
/// `pg_ctl` run as the `postgres` user (they refuse root). The binaries are Debian's
/// (`/usr/lib/postgresql/<version>/bin`), or `PG_BIN`'s. When they are missing the tests that
/// need a cluster fail, saying so: CI installs the `postgresql` package.
final class TestCluster: Sendable {
  /// Why the cluster could not be made or started.
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// The directory that holds the data directory and the socket.
  let directory: String
  private let binaries: String

  /// The directory of the unix socket, as `--pg-socket` takes it.
  var socketDirectory: String { directory }

  /// The cluster every test of the process shares (each test uses streams of its own).
  static let shared: Result<TestCluster, Failure> = {
    do {
      let cluster = try TestCluster()
      atexit { try? TestCluster.shared.get().remove() }
      return .success(cluster)
    } catch let failure as Failure {
      return .failure(failure)
    } catch {
      return .failure(Failure(description: "\(error)"))
    }
  }()

  private init() throws {
    binaries = try Self.findBinaries()
    var template = Array((NSTemporaryDirectory() + "ledger-pg-XXXXXX").utf8CString)
    guard mkdtemp(&template) != nil else { throw Failure(description: "mkdtemp failed") }
    directory = String(
      decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if geteuid() == 0 {
      try Self.run("/bin/chown", ["postgres:postgres", directory], asPostgres: false)
    }
    try Self.run(
      binaries + "/initdb",
      ["-D", directory + "/data", "-U", "postgres", "-A", "trust", "--no-sync", "--locale=C"],
      asPostgres: geteuid() == 0)
    try Self.run(
      binaries + "/pg_ctl",
      [
        "-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60", "-o",
        "-k \(directory) -c listen_addresses='' -c max_connections=40", "start",
      ], asPostgres: geteuid() == 0)
  }

  /// Stops the cluster and deletes its directory.
  func remove() {
    _ = try? Self.run(
      binaries + "/pg_ctl", ["-D", directory + "/data", "-w", "-m", "immediate", "stop"],
      asPostgres: geteuid() == 0)
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// Runs a program to its end from `/`, its output kept in a file that a failure quotes.
  ///
  /// `posix_spawn` and `waitpid`: Foundation's `Process` was seen not to return from
  /// `waitUntilExit` after a `pg_ctl start`, whose server keeps the pipes open.
  private static func run(_ executable: String, _ arguments: [String], asPostgres: Bool) throws {
    let runner = ["/bin/sh", "-c", "cd / && exec \"$@\"", "sh"]
    let argv =
      runner + (asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []) + [executable]
      + arguments
    let output = NSTemporaryDirectory() + "ledger-pg-output-\(UUID().uuidString)"
    defer { unlink(output) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let cArguments = argv.map { strdup($0) } + [nil]
    defer { for argument in cArguments { free(argument) } }
    var pid = pid_t()
    let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
    guard spawned == 0 else {
      throw Failure(description: "cannot run \(executable): posix_spawn failed with \(spawned)")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else { throw Failure(description: "waitpid failed for \(executable)") }
    }
    guard status == 0 else {
      let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
      throw Failure(
        description: "\(executable) \(arguments.joined(separator: " ")) failed: \(text)")
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
        "PostgreSQL is not installed: no initdb under \(root)/*/bin. The PostgreSQL journal's tests need it: apt-get install postgresql (CI does), or set PG_BIN"
    )
  }
}

/// A stream name no other test uses.
func uniqueStream(_ label: String = #function) -> String {
  "\(label.prefix { $0.isLetter || $0.isNumber })-\(UUID().uuidString.prefix(8))"
}
