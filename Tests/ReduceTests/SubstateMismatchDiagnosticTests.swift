import Foundation
import Testing

/// A mutator closure whose `inout` parameter is not the key path's value type: the compiler's
/// message names the substate (Mutator+Mismatch.swift), not `any Action`.
@Suite struct SubstateMismatchDiagnosticTests {
  /// The directory of the built modules (`.build/<triple>/debug/Modules`), next to the tests.
  static let modules: URL? = {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = directory.appendingPathComponent("Modules")
      let module = candidate.appendingPathComponent("Reduce.swiftmodule")
      if FileManager.default.fileExists(atPath: module.path) { return candidate }
      directory.deleteLastPathComponent()
    }
    return nil
  }()

  /// Type-checks a file against the built `Reduce` module and returns what the compiler wrote.
  static func typecheck(_ source: String) throws -> String {
    let modules = try #require(modules)
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("substate-mismatch-\(UUID().uuidString).swift")
    try source.write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "swiftc", "-typecheck", "-swift-version", "6", "-I", modules.path, file.path,
    ]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }

  static let prelude = """
    import Reduce

    struct Settings: Sendable {
      var theme = "light"
      var fontSize = 12
    }

    enum SettingsAction: Action {
      case enlarged
    }

    """

  @Test(
    "a key-path mutator whose closure takes another type is reported against the substate",
    .enabled(if: modules != nil), .timeLimit(.minutes(5)))
  func keyPathForm() throws {
    let output = try Self.typecheck(
      Self.prelude + """
        let theme = Mutator(\\Settings.theme) { (theme: inout Int, action: SettingsAction) in
          if case .enlarged = action { theme += 1 }
        }
        let any = Mutator(\\Settings.theme) { (theme: inout Int, action: any Action) in
          theme += 1
        }
        let lens = Mutator(key: "theme", lens: Lens(\\Settings.theme)) {
          (theme: inout Int, action: SettingsAction) in theme += 1
        }
        """)
    #expect(
      output.components(
        separatedBy: "error: 'init(_:key:_:)' is unavailable: the closure's 'inout' parameter "
          + "must have the type of the key path's value (the substate)"
      ).count - 1 >= 2, "\(output)")
    #expect(
      output.contains(
        "error: 'init(key:lens:_:)' is unavailable: the closure's 'inout' parameter must have "
          + "the type of the lens's value (the substate)"), "\(output)")
    #expect(!output.contains("cannot convert value"), "\(output)")
  }
}
