import Foundation
import Reduce
import ReducePersistence
import ReduceTesting
import Testing

/// Saves that fail.
///
/// The tests run as root in CI, where file permissions stop no write, so the file is put where
/// no file can be made: under a path whose "directory" is a regular file
/// (`open` fails with ENOTDIR for root too). Turning that file into a directory lets the next
/// save succeed.
@Suite struct PersistenceErrorTests {
  /// The persistence of the document and its store that `makeEditor(in:)` makes, with the file
  /// under `blocked`, which does not exist yet: restoring finds no file.
  func makeBlockedEditor(
    in directory: TemporaryDirectory
  ) throws -> (Store<Editor>, PersistenceMiddleware<Editor, Document>, ManualClock) {
    try makeEditor(in: directory, file: "blocked/editor.json")
  }

  /// Makes `blocked` a regular file, so that no file can be made under it.
  func block(_ directory: TemporaryDirectory) throws {
    try directory.write("not a directory", to: "blocked")
  }

  func unblock(_ directory: TemporaryDirectory) throws {
    try FileManager.default.removeItem(atPath: directory.file("blocked"))
    try FileManager.default.createDirectory(
      atPath: directory.file("blocked"), withIntermediateDirectories: false)
  }

  @Test(
    "a failed save reaches the store's errors, the state is kept, and a later save retries",
    .timeLimit(.minutes(1)))
  func failedSaveIsReportedAndRetried() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (store, persistence, clock) = try makeBlockedEditor(in: directory)
    try block(directory)
    var errors = store.errors.makeAsyncIterator()
    store.dispatch(Edit.typed("kept"))
    await clock.advance(by: .milliseconds(500))
    let error = try #require(await errors.next())
    guard case .middlewareFailed("PersistenceMiddleware", let action, let underlying) = error,
      case .writeFailed(persistence.path, let reason)? = underlying as? PersistenceError
    else {
      Issue.record("unexpected \(error)")
      return
    }
    #expect(action as? Edit == .typed("kept"))
    #expect(reason == String(cString: strerror(ENOTDIR)))
    #expect(store.state.document.body == "kept")
    #expect(persistence.hasPendingChanges)
    #expect(persistence.lastSaveError != nil)
    // Nothing was left behind in the parent directory either.
    #expect(try directory.names() == ["blocked"])

    try unblock(directory)
    store.dispatch(Edit.typed(" and more"))
    await clock.advance(by: .milliseconds(500))
    #expect(try savedDocument(at: persistence.path).state.body == "kept and more")
    #expect(!persistence.hasPendingChanges)
    #expect(persistence.lastSaveError == nil)
  }

  @Test("flush throws a failed save and keeps the value for the next flush")
  func flushRetries() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (store, persistence, _) = try makeBlockedEditor(in: directory)
    try block(directory)
    store.dispatch(Edit.titled("Draft"))
    #expect(throws: PersistenceError.self) { try persistence.flush() }
    try unblock(directory)
    #expect(try persistence.flush())
    #expect(try savedDocument(at: persistence.path).state.title == "Draft")
  }

  @Test("a failed final save is kept in lastSaveError")
  func failedFinalSave() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let persistence: PersistenceMiddleware<Editor, Document>
    do {
      // The store goes away at the end of this scope: the final save.
      let (store, made, _) = try makeBlockedEditor(in: directory)
      persistence = made
      try block(directory)
      store.dispatch(Edit.titled("Lost?"))
    }
    guard case .writeFailed? = persistence.lastSaveError else {
      Issue.record("unexpected \(String(describing: persistence.lastSaveError))")
      return
    }
    // Still pending: a flush once the disk is back writes it.
    try unblock(directory)
    #expect(try persistence.flush())
    #expect(try savedDocument(at: persistence.path).state.title == "Lost?")
  }

  @Test("a save over a directory fails and leaves the directory")
  func replacingADirectoryFails() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (store, persistence, _) = try makeEditor(in: directory)
    try FileManager.default.createDirectory(
      atPath: directory.file("editor.json"), withIntermediateDirectories: false)
    store.dispatch(Edit.typed("x"))
    #expect(throws: PersistenceError.self) { try persistence.flush() }
    var isDirectory: ObjCBool = false
    #expect(
      FileManager.default.fileExists(
        atPath: directory.file("editor.json"), isDirectory: &isDirectory))
    #expect(isDirectory.boolValue)
    #expect(try directory.names() == ["editor.json"], "the temporary file was removed")
  }
}
