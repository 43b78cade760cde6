import Foundation
import Reduce
import ReducePersistence
import ReduceTesting
import Testing

/// Version 1 of the document kept the title under "name"; version 2 renamed it "title" and
/// added the body; version 3 is the `Document` of today.
let documentMigrations: [PersistenceMigration] = [
  .init(from: 1) { old in
    var object = try JSONSerialization.jsonObject(with: old) as? [String: Any] ?? [:]
    object["title"] = object.removeValue(forKey: "name")
    object["body"] = ""
    return try JSONSerialization.data(withJSONObject: object)
  },
  .init(from: 2) { old in
    var object = try JSONSerialization.jsonObject(with: old) as? [String: Any] ?? [:]
    guard let title = object["title"] as? String else { throw MigrationTestError.noTitle }
    object["title"] = title.capitalized
    return try JSONSerialization.data(withJSONObject: object)
  },
]

enum MigrationTestError: Error {
  case noTitle
}

@Suite struct PersistenceFileTests {
  func open(
    _ directory: TemporaryDirectory, version: Int = 3, layout: PersistenceFormat.Layout = .envelope,
    policy: UnreadableFilePolicy = .fail
  ) throws(PersistenceError) -> PersistenceMiddleware<Editor, Document> {
    try PersistenceMiddleware(
      file: directory.file("editor.json"), scope: \Editor.document,
      format: PersistenceFormat(version: version, layout: layout, migrations: documentMigrations),
      onUnreadableFile: policy, clock: ManualClock())
  }

  @Test(
    "files of older versions are migrated one version at a time",
    arguments: [
      (#"{"version": 1, "state": {"name": "notes"}}"#, Document(title: "Notes")),
      (
        #"{"version": 2, "state": {"title": "plans", "body": "b"}}"#,
        Document(title: "Plans", body: "b")
      ),
      (
        #"{"version": 3, "state": {"title": "plans", "body": "b"}}"#,
        Document(title: "plans", body: "b")
      ),
    ])
  func migrations(text: String, expected: Document) throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write(text, to: "editor.json")
    let persistence = try open(directory)
    #expect(persistence.restoredValue == expected)
    // The file is written back with the current version at the next save.
    let store = try Store(
      initialState: persistence.restoring(Editor()), mutators: editorMutators,
      middleware: [persistence])
    store.dispatch(Edit.typed("!"))
    try persistence.flush()
    #expect(try savedDocument(at: directory.file("editor.json")).version == 3)
  }

  /// The problem a file that cannot be restored was refused with.
  func problem(
    of text: String, version: Int = 3, layout: PersistenceFormat.Layout = .envelope
  ) throws -> StateFileProblem? {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write(text, to: "editor.json")
    do {
      _ = try open(directory, version: version, layout: layout)
      Issue.record("\(text) was restored")
      return nil
    } catch {
      guard case .unusableFile(let path, let problem, nil) = error else {
        Issue.record("unexpected \(error)")
        return nil
      }
      #expect(path == directory.file("editor.json"))
      // Left where it was, byte for byte.
      #expect(try directory.read("editor.json") == text)
      #expect(try directory.names() == ["editor.json"])
      return problem
    }
  }

  @Test("a version newer than the app knows is refused, and the file is left as it is")
  func newerVersion() throws {
    let problem = try problem(of: #"{"version": 4, "state": {"title": "", "body": ""}}"#)
    guard case .newerVersion(found: 4, supported: 3)? = problem else {
      Issue.record("unexpected \(String(describing: problem))")
      return
    }
  }

  @Test("a version no migration leads from is refused")
  func missingMigration() throws {
    let problem = try problem(of: #"{"version": 1, "state": {"name": "x"}}"#, version: 5)
    guard case .noMigration(from: 3, to: 4)? = problem else {
      Issue.record("unexpected \(String(describing: problem))")
      return
    }
  }

  @Test("a migration that throws is reported with its version and error")
  func failingMigration() throws {
    let problem = try problem(of: #"{"version": 2, "state": {"body": ""}}"#)
    guard case .migrationFailed(from: 2, let underlying)? = problem else {
      Issue.record("unexpected \(String(describing: problem))")
      return
    }
    #expect(underlying as? MigrationTestError == .noTitle)
  }

  @Test(
    "a corrupt file is refused with a typed error and left as it is",
    arguments: [
      "", "{", "not json", "[1, 2]", #"{"state": {"title": "", "body": ""}}"#,
      #"{"version": "3", "state": {}}"#, #"{"version": 3, "state": {"title": 1}}"#,
      #"{"version": 3}"#, #"{"version": 0, "state": {}}"#,
    ])
  func corruptFile(text: String) throws {
    switch try problem(of: text) {
    case .noVersion?, .notDecodable?: break
    case let other: Issue.record("unexpected \(String(describing: other))")
    }
  }

  @Test("moveAsideAndStartFresh moves a corrupt file aside and starts from the initial state")
  func moveAsideAndStartFresh() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("{ torn", to: "editor.json")
    let persistence = try open(directory, policy: .moveAsideAndStartFresh)
    #expect(persistence.restoredValue == nil)
    guard case .unusableFile(_, .noVersion, let movedTo?)? = persistence.restoreError else {
      Issue.record("unexpected \(String(describing: persistence.restoreError))")
      return
    }
    #expect(movedTo.hasPrefix(directory.file("editor.json.corrupt-")))
    #expect(try String(contentsOfFile: movedTo, encoding: .utf8) == "{ torn")
    // A save writes a new file and leaves the moved one alone.
    let store = try Store(
      initialState: persistence.restoring(Editor()), mutators: editorMutators,
      middleware: [persistence])
    store.dispatch(Edit.titled("Fresh"))
    try persistence.flush()
    #expect(try savedDocument(at: directory.file("editor.json")).state.title == "Fresh")
    #expect(try String(contentsOfFile: movedTo, encoding: .utf8) == "{ torn")
  }

  @Test("moveAsideAndFail moves a corrupt file aside and throws")
  func moveAsideAndFail() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("[]", to: "editor.json")
    do {
      _ = try open(directory, policy: .moveAsideAndFail)
      Issue.record("a corrupt file was restored")
    } catch {
      guard case .unusableFile(_, .noVersion, let movedTo?) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(try directory.names() == [URL(fileURLWithPath: movedTo).lastPathComponent])
    }
  }

  @Test("a file that cannot be read is reported as such")
  func unreadable() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    // A directory where the file should be: open succeeds, read fails (EISDIR).
    try FileManager.default.createDirectory(
      atPath: directory.file("editor.json"), withIntermediateDirectories: false)
    do {
      _ = try open(directory)
      Issue.record("a directory was restored")
    } catch {
      guard case .unusableFile(_, .cannotRead(let reason), nil) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(!reason.isEmpty)
    }
  }

  @Test("the flat layout keeps the version beside the value's own keys")
  func flatLayout() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write(#"{"version": 1, "name": "old"}"#, to: "editor.json")
    let persistence = try open(directory, layout: .flat)
    #expect(persistence.restoredValue == Document(title: "Old"))
    let store = try Store(
      initialState: persistence.restoring(Editor()), mutators: editorMutators,
      middleware: [persistence])
    store.dispatch(Edit.typed("text"))
    try persistence.flush()
    struct Flat: Decodable, Equatable {
      var version: Int
      var title: String
      var body: String
    }
    let data = try Data(contentsOf: URL(fileURLWithPath: directory.file("editor.json")))
    #expect(
      try JSONDecoder().decode(Flat.self, from: data)
        == Flat(version: 3, title: "Old", body: "text"))
    #expect(
      try open(directory, layout: .flat).restoredValue == Document(title: "Old", body: "text"))
  }

  @Test("the flat layout refuses to save a value that is not a JSON object")
  func flatLayoutNeedsAnObject() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let persistence = try PersistenceMiddleware<Int, Int>(
      file: directory.file("count.json"), format: PersistenceFormat(layout: .flat),
      clock: ManualClock())
    let increment = Mutator(\Int.self, key: "count") { (count: inout Int, _: Edit) in count += 1 }
    let store = try Store(initialState: 0, mutators: [increment], middleware: [persistence])
    store.dispatch(Edit.typed("x"))
    #expect(throws: PersistenceError.self) { try persistence.flush() }
    #expect(try directory.names().isEmpty)
    #expect(persistence.hasPendingChanges)
  }
}
