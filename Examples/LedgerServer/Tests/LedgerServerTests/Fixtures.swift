import Foundation
import Hummingbird
import HummingbirdTesting
import LedgerCore
import Logging
import ReduceLogging
import Testing

/// A journal in a directory of its own, removed when the fixture goes.
final class JournalFixture: Sendable {
  let directory: URL
  let path: String

  init() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("ledger-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    path = directory.appendingPathComponent("ledger.log").path
  }

  deinit {
    try? FileManager.default.removeItem(at: directory)
  }

  /// Opens the journal and a book over its store.
  func open(durability: FileLogSink.Durability = .buffered, historyLimit: Int = 100) async throws
    -> (journal: OpenJournal, book: LedgerBook)
  {
    let journal = try await LedgerJournal.file(path: path, durability: durability)
      .open(historyLimit: historyLimit)
    return (journal, LedgerBook(store: journal.store))
  }

  /// The journal's entries, parsed.
  func entries() throws -> [[String: Any]] {
    guard FileManager.default.fileExists(atPath: path) else { return [] }
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return try text.split(separator: "\n").map { line in
      try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
  }

  /// The journal's bytes.
  func bytes() throws -> Data {
    guard FileManager.default.fileExists(atPath: path) else { return Data() }
    return try Data(contentsOf: URL(fileURLWithPath: path))
  }
}

/// The application over a book, for HummingbirdTesting.
func application(_ book: LedgerBook) -> some ApplicationProtocol {
  var logger = Logger(label: "ledger-tests")
  logger.logLevel = .warning
  return LedgerServer.application(book: book, logger: logger)
}

/// Headers naming a principal.
func principal(_ name: String) throws -> HTTPFields {
  let header = try #require(HTTPFields.Element.Name("X-Principal"))
  return [header: name]
}

/// A JSON body.
func body(_ text: String) -> ByteBuffer {
  ByteBuffer(string: text)
}

/// Decodes a response's JSON body.
func decoded<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
  try JSONDecoder().decode(T.self, from: Data(response.body.readableBytesView))
}

/// A response's JSON body as a dictionary.
func object(_ response: TestResponse) throws -> [String: Any] {
  try #require(
    JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
}

/// The payload of a journal entry for a `LedgerAction` case.
func payload(_ entry: [String: Any], _ caseName: String) -> [String: Any]? {
  (entry["payload"] as? [String: Any])?[caseName] as? [String: Any]
}
