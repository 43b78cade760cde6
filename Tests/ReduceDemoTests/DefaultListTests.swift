import Foundation
import ReduceExecutableSupport
import Testing

/// A place for the default list, chosen by the environment, and where the list must end up.
struct DefaultListCase: CustomTestStringConvertible, Sendable {
  var testDescription: String
  /// The variables, with `ROOT` standing for a fresh temporary directory.
  var environment: [String: String]
  /// The directory of the list, below that directory.
  var directory: String
}

/// The places every platform honours.
private let portableCases = [
  DefaultListCase(
    testDescription: "REDUCE_DEMO_DATA_DIR",
    environment: ["REDUCE_DEMO_DATA_DIR": "ROOT/custom/data", "XDG_STATE_HOME": "ROOT/xdg"],
    directory: "custom/data")
]

#if canImport(Darwin)
  private let platformCases: [DefaultListCase] = []
#else
  /// The XDG Base Directory places: the list is state, so `XDG_STATE_HOME`; `XDG_DATA_HOME`,
  /// where older demos kept it, is not looked at.
  private let platformCases = [
    DefaultListCase(
      testDescription: "XDG_STATE_HOME",
      environment: [
        "REDUCE_DEMO_DATA_DIR": "", "XDG_STATE_HOME": "ROOT/xdg", "XDG_DATA_HOME": "ROOT/data",
        "HOME": "ROOT/home",
      ],
      directory: "xdg/reduce-demo"),
    DefaultListCase(
      testDescription: "~/.local/state when XDG_STATE_HOME is empty",
      environment: [
        "REDUCE_DEMO_DATA_DIR": "", "XDG_STATE_HOME": "", "XDG_DATA_HOME": "ROOT/data",
        "HOME": "ROOT/home",
      ],
      directory: "home/.local/state/reduce-demo"),
    DefaultListCase(
      testDescription: "~/.local/state when XDG_STATE_HOME is relative",
      environment: [
        "REDUCE_DEMO_DATA_DIR": "", "XDG_STATE_HOME": "relative/state", "HOME": "ROOT/home",
      ],
      directory: "home/.local/state/reduce-demo"),
  ]
#endif

@Suite struct DefaultListTests {
  @Test(
    "without --state the list lives in a per-user directory, created 0700, and is reloaded",
    .timeLimit(.minutes(1)), arguments: portableCases + platformCases)
  func defaultListIsPerUser(place: DefaultListCase) throws {
    let files = try DemoFiles()
    defer { files.clean() }
    let root = files.directory.path
    let temporary = try files.emptyDirectory("tmp")
    var environment = place.environment.mapValues {
      $0.replacingOccurrences(of: "ROOT", with: root)
    }
    environment["TMPDIR"] = temporary
    let directory = files.directory.appendingPathComponent(place.directory).path
    let list = directory + "/todos.json"

    let first = try Executable.run(
      "reduce-demo", [], input: "add Milk\n", environment: environment)
    first.checkSucceeded()
    #expect(first.standardOutput.contains("List: \(list) (new)\n"))
    #expect(first.standardOutput.contains("Saved 1 item to \(list).\n"))
    let attributes = try FileManager.default.attributesOfItem(atPath: directory)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)

    let second = try Executable.run(
      "reduce-demo", [], input: "add Eggs\n", environment: environment)
    second.checkSucceeded()
    #expect(second.standardOutput.contains("List: \(list) (reloaded 1 item)\n"))
    let saved = try JSONDecoder().decode(
      SavedList.self, from: Data(contentsOf: URL(fileURLWithPath: list)))
    #expect(saved.items.map(\.title) == ["Milk", "Eggs"])
    // Nothing of either run is left in the shared temporary directory.
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
  }

  @Test(
    "without --log no audit log is kept, and a run leaves nothing in the temporary directory",
    .timeLimit(.minutes(1)))
  func noLogByDefault() throws {
    let files = try DemoFiles()
    defer { files.clean() }
    let temporary = try files.emptyDirectory("tmp")
    let result = try Executable.run(
      "reduce-demo", ["--state", files.state], input: "add Milk\nlog\n",
      environment: ["TMPDIR": temporary])
    result.checkSucceeded()
    let output = files.normalized(result.standardOutput)
    #expect(output.contains("Log:  none (--log FILE keeps an audit log)\n"))
    #expect(
      output.contains("There is no audit log: start the demo with --log FILE to keep one.\n"))
    #expect(!output.contains("Audit log:"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: files.directory.path).sorted() == [
        "tmp", "todos.json",
      ])
  }

  @Test(
    "a default directory that cannot be created stops the demo with a sentence",
    .timeLimit(.minutes(1)))
  func uncreatableDirectoryStops() throws {
    let files = try DemoFiles()
    defer { files.clean() }
    try files.writeState("")
    // A file where a parent directory should be.
    let result = try Executable.run(
      "reduce-demo", [], input: "add Milk\n",
      environment: ["REDUCE_DEMO_DATA_DIR": files.state + "/data"])
    #expect(result.status == 1)
    #expect(result.standardOutput == "")
    #expect(
      files.normalized(result.standardError).hasPrefix(
        "reduce-demo: cannot create STATE/data for the list: "))
  }
}

extension DemoFiles {
  /// Creates an empty directory in this test's directory and returns its path.
  func emptyDirectory(_ name: String) throws -> String {
    let url = directory.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    return url.path
  }
}
