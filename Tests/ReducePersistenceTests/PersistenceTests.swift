import Foundation
import Reduce
import ReducePersistence
import ReduceTesting
import Testing

@Suite struct PersistenceTests {
  @Test("a saved value is restored into the initial state, before any dispatch")
  func restoresBeforeFirstDispatch() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    do {
      let (store, persistence, _) = try makeEditor(in: directory)
      store.dispatch(Edit.titled("Notes"))
      store.dispatch(Edit.moved(to: 4))
      #expect(try persistence.flush())
    }
    let (store, persistence, _) = try makeEditor(in: directory)
    #expect(persistence.restoredValue == Document(title: "Notes"))
    // The kept part is restored; the rest starts as the app's initial state says.
    #expect(store.state == Editor(document: Document(title: "Notes"), cursor: 0))
    #expect(persistence.restoreError == nil)
  }

  @Test("without a file the initial state is kept and nothing is written until a change")
  func noFile() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (store, persistence, _) = try makeEditor(in: directory)
    #expect(persistence.restoredValue == nil)
    #expect(store.state == Editor())
    store.dispatch(Edit.moved(to: 3))  // not the kept part
    #expect(!persistence.hasPendingChanges)
    #expect(try !persistence.flush())
    #expect(try directory.names().isEmpty)
  }

  @Test("the whole state can be kept")
  func wholeState() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("all.json")
    do {
      let persistence = try PersistenceMiddleware<Editor, Editor>(file: path, clock: ManualClock())
      let store = try Store(
        initialState: persistence.restoring(Editor()), mutators: editorMutators,
        middleware: [persistence])
      store.dispatch([Edit.typed("a"), Edit.moved(to: 1)])
      try persistence.flush()
    }
    let persistence = try PersistenceMiddleware<Editor, Editor>(file: path, clock: ManualClock())
    #expect(persistence.restoring(Editor()) == Editor(document: Document(body: "a"), cursor: 1))
  }

  @Test("flush writes the file with its version, and writes nothing when nothing is pending")
  func flush() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (store, persistence, _) = try makeEditor(in: directory)
    store.dispatch(Edit.typed("Hello"))
    #expect(persistence.hasPendingChanges)
    #expect(try persistence.flush())
    #expect(!persistence.hasPendingChanges)
    let saved = try savedDocument(at: directory.file("editor.json"))
    #expect(saved == SavedDocument(state: Document(body: "Hello"), version: 1))
    #expect(try !persistence.flush())
    // Nothing but the file: the temporary file was renamed over it.
    #expect(try directory.names() == ["editor.json"])
  }

  @Test("a batch is one change, saved with the state after the whole batch")
  func batch() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (store, persistence, _) = try makeEditor(in: directory)
    store.dispatch(Batch([Edit.typed("a"), Edit.typed("b")]))
    try persistence.flush()
    #expect(try savedDocument(at: directory.file("editor.json")).state.body == "ab")
  }

  @Test("the store's deinitialisation saves what is pending, without waiting for the timer")
  func finalSaveOnDeinit() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    var persistence: PersistenceMiddleware<Editor, Document>?
    do {
      let (store, kept, _) = try makeEditor(in: directory)
      persistence = kept
      store.dispatch(Edit.typed("last words"))
      #expect(!FileManager.default.fileExists(atPath: directory.file("editor.json")))
    }
    #expect(try savedDocument(at: directory.file("editor.json")).state.body == "last words")
    #expect(persistence?.hasPendingChanges == false)
    #expect(persistence?.lastSaveError == nil)
  }

  @Test("removing the middleware saves what is pending")
  func finalSaveOnRemoval() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (store, persistence, _) = try makeEditor(in: directory)
    store.dispatch(Edit.titled("Removed"))
    #expect(store.removeMiddleware(named: persistence.name))
    #expect(try savedDocument(at: directory.file("editor.json")).state.title == "Removed")
  }

  @Test("a middleware serves one store")
  func oneStore() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (store, persistence, _) = try makeEditor(in: directory)
    #expect(throws: RegistrationError.self) {
      _ = try Store(initialState: Editor(), mutators: editorMutators, middleware: [persistence])
    }
    withExtendedLifetime(store) {}
  }

  @Test("invalid options are refused with a typed error")
  func invalidOptions() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("editor.json")
    #expect(throws: PersistenceError.self) {
      _ = try PersistenceMiddleware<Editor, Editor>(file: path, debounce: .zero)
    }
    do {
      _ = try PersistenceMiddleware<Editor, Editor>(
        file: path, debounce: .seconds(2), maxWait: .seconds(1))
      Issue.record("a maxWait shorter than the debounce was accepted")
    } catch {
      guard case .maxWaitShorterThanDebounce(.seconds(1), .seconds(2)) = error else {
        Issue.record("unexpected \(error)")
        return
      }
    }
    for format in [
      PersistenceFormat(version: 0),
      PersistenceFormat(version: 2, migrations: [.init(from: 2) { $0 }]),
      PersistenceFormat(version: 3, migrations: [.init(from: 1) { $0 }, .init(from: 1) { $0 }]),
    ] {
      #expect(throws: PersistenceError.self) {
        _ = try PersistenceMiddleware<Editor, Editor>(file: path, format: format)
      }
    }
  }
}

@Suite struct PersistenceFileModeTests {
  @Test("a save keeps the permissions of the file it replaces")
  func keepsPermissions() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("editor.json")
    try directory.write(#"{"version": 1, "state": {"title": "", "body": ""}}"#, to: "editor.json")
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    let (store, persistence, _) = try makeEditor(in: directory)
    store.dispatch(Edit.typed("private"))
    try persistence.flush()
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect(attributes[.posixPermissions] as? Int == 0o600)
    #expect(try savedDocument(at: path).state.body == "private")
  }
}
