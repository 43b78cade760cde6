import Foundation
import Reduce
import ReducePersistence
import ReduceTesting
import Testing

/// A file that holds a saved value is protected from a store that was not built from it.
@Suite struct PersistenceProtectionTests {
  /// Saves a document titled "Saved" in the directory's `editor.json`.
  func saveDocument(in directory: TemporaryDirectory) throws {
    let (store, persistence, _) = try makeEditor(in: directory)
    store.dispatch(Edit.titled("Saved"))
    #expect(try persistence.flush())
  }

  /// A persistence of `editor.json` and a store built without `restoring(_:)`.
  func forgetfulEditor(in directory: TemporaryDirectory) throws -> (
    Store<Editor>, PersistenceMiddleware<Editor, Document>
  ) {
    let persistence = try PersistenceMiddleware(
      file: directory.file("editor.json"), scope: \Editor.document, clock: ManualClock())
    let store = try Store(
      initialState: Editor(), mutators: editorMutators, middleware: [persistence])
    return (store, persistence)
  }

  @Test(
    "a store not built from the saved value does not overwrite it: the save fails with a typed error, reported, and the change stays pending",
    .timeLimit(.minutes(1)))
  func refusesToOverwrite() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try saveDocument(in: directory)
    let path = directory.file("editor.json")
    do {
      let (store, persistence) = try forgetfulEditor(in: directory)
      #expect(persistence.restoredValue == Document(title: "Saved"))
      #expect(!persistence.isGuardingSavedValue)  // not decided before the first commit
      var errors = store.errors.makeAsyncIterator()
      store.dispatch(Edit.typed("new"))
      #expect(persistence.isGuardingSavedValue)
      #expect(store.state.document.body == "new")  // the state changes; the file does not
      #expect {
        try persistence.flush()
      } throws: { error in
        guard case .savedValueNotRestored(path)? = error as? PersistenceError else { return false }
        return true
      }
      let reported = try #require(await errors.next())
      guard case .middlewareFailed("PersistenceMiddleware", _, let underlying) = reported,
        case .savedValueNotRestored(path)? = underlying as? PersistenceError
      else {
        Issue.record("unexpected \(reported)")
        return
      }
      #expect(persistence.hasPendingChanges)
      #expect(try savedDocument(at: path).state == Document(title: "Saved"))
      // Leaving the store does not overwrite it either.
      store.removeMiddleware(named: persistence.name)
      guard case .savedValueNotRestored? = persistence.lastSaveError else {
        Issue.record("unexpected \(String(describing: persistence.lastSaveError))")
        return
      }
    }
    #expect(try savedDocument(at: path).state == Document(title: "Saved"))
  }

  @Test("restoring the saved value later, with a ReplaceState, lifts the protection")
  func restoringLater() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try saveDocument(in: directory)
    let (store, persistence) = try forgetfulEditor(in: directory)
    store.dispatch(Edit.moved(to: 2))
    #expect(persistence.isGuardingSavedValue)
    store.dispatch(ReplaceState(persistence.restoring(store.state)))
    #expect(!persistence.isGuardingSavedValue)
    store.dispatch(Edit.typed("more"))
    #expect(try persistence.flush())
    #expect(
      try savedDocument(at: directory.file("editor.json")).state
        == Document(title: "Saved", body: "more"))
  }

  @Test("replaceSavedValue lets the next save overwrite the saved value")
  func explicitReplace() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try saveDocument(in: directory)
    let (store, persistence) = try forgetfulEditor(in: directory)
    store.dispatch(Edit.typed("fresh"))
    #expect(throws: PersistenceError.self) { try persistence.flush() }
    persistence.replaceSavedValue()
    #expect(!persistence.isGuardingSavedValue)
    #expect(try persistence.flush())
    #expect(try savedDocument(at: directory.file("editor.json")).state == Document(body: "fresh"))
  }

  @Test("a store built from the saved value, or a file with no value, is never protected against")
  func restoredStoreIsNotGuarded() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (fresh, freshPersistence, _) = try makeEditor(in: directory, file: "other.json")
    fresh.dispatch(Edit.typed("a"))
    #expect(!freshPersistence.isGuardingSavedValue)
    try saveDocument(in: directory)
    let (store, persistence, _) = try makeEditor(in: directory)
    store.dispatch(Edit.typed("b"))
    #expect(!persistence.isGuardingSavedValue)
    #expect(try persistence.flush())
    #expect(
      try savedDocument(at: directory.file("editor.json")).state
        == Document(title: "Saved", body: "b"))
  }
}
