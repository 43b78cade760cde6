import Foundation
import Testing

/// `load FILE` with a file that gives no items says why, and shows no progress first.
@Suite struct LoadFailureTests {
  /// A file `load` cannot take items from.
  enum BadFile: String, CaseIterable, CustomTestStringConvertible {
    case missing, directory, blank, notText

    var testDescription: String { rawValue }

    /// Makes the file (or nothing) and returns its path.
    func make(in files: DemoFiles) throws -> String {
      let path = files.directory.appendingPathComponent("items-\(rawValue)").path
      switch self {
      case .missing: break
      case .directory:
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      case .blank: try Data("\n   \n\n".utf8).write(to: URL(fileURLWithPath: path))
      case .notText: try Data([0xFF, 0xFE, 0x80, 0x0A]).write(to: URL(fileURLWithPath: path))
      }
      return path
    }

    /// The reason the demo gives.
    var reason: String {
      switch self {
      case .missing: "there is no such file"
      case .directory: "it is a directory, not a file of items"
      case .blank: "the file has no items (one item per non-blank line)"
      case .notText: "the file is not UTF-8 text"
      }
    }
  }

  @Test(
    "a failed load gives the reason and prints no progress", .timeLimit(.minutes(1)),
    arguments: BadFile.allCases)
  func failedLoad(file: BadFile) throws {
    let files = try DemoFiles()
    defer { files.clean() }
    let path = try file.make(in: files)
    let result = try files.runDemo(script: ["add Milk", "load \(path)"])
    #expect(result.status == 0)
    let output = result.standardOutput
    let afterLoad = try #require(output.range(of: "> load \(path)\n")).upperBound
    let lines = output[afterLoad...].split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.first.map(String.init) == "Could not load \(path): \(file.reason).")
    #expect(!output.contains("Loading"))
    #expect(!output.contains("1/3"))
    #expect(try files.savedList().items.map(\.title) == ["Milk"])
  }
}
