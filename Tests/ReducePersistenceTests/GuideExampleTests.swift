// The examples of Guides/Persistence.md, compiled and run. Keep the two in step.

import Foundation
import Reduce
import ReducePersistence
import ReduceTesting
import ReduceUndo
import Testing

// MARK: Usage

struct NotesApp: Equatable, Sendable {
  var notes = Notebook()
  var selection: Int?
}

struct Notebook: Codable, Equatable, Sendable {
  var notes: [Note] = []
}

struct Note: Codable, Equatable, Sendable {
  var title: String
  var text = ""
}

enum NoteAction: Action {
  case added(title: String)
  case selected(Int?)
}

let notebook = Mutator(\NotesApp.notes) { (book: inout Notebook, action: NoteAction) in
  if case .added(let title) = action { book.notes.append(Note(title: title)) }
}
let selection = Mutator(\NotesApp.selection) { (selection: inout Int?, action: NoteAction) in
  if case .selected(let index) = action { selection = index }
}

/// Version 1 called a note's title "name"; version 2 calls it "title".
let renameName = PersistenceMigration(from: 1) { old in
  guard var book = try JSONSerialization.jsonObject(with: old) as? [String: Any],
    let notes = book["notes"] as? [[String: Any]]
  else { throw CocoaError(.coderReadCorrupt) }
  book["notes"] = notes.map { note in
    var note = note
    note["title"] = note.removeValue(forKey: "name")
    return note
  }
  return try JSONSerialization.data(withJSONObject: book)
}

func makeNotesStore(
  file: String, clock: some Clock<Duration> = ContinuousClock()
) throws -> (Store<NotesApp>, PersistenceMiddleware<NotesApp, Notebook>) {
  let persistence = try PersistenceMiddleware(
    file: file,
    scope: \NotesApp.notes,  // the selection is not kept
    format: PersistenceFormat(version: 2, migrations: [renameName]),
    debounce: .seconds(1),  // save once edits pause for a second,
    maxWait: .seconds(10),  // and at least every 10 s while they go on
    clock: clock)
  let store = try Store(
    initialState: persistence.restoring(NotesApp()),  // the saved notes, before any dispatch
    mutators: [notebook, selection],
    middleware: [persistence])
  return (store, persistence)
}

@Suite struct PersistenceGuideExampleTests {
  @Test("the guide's notebook saves once edits pause and reopens with its notes")
  func usage() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("notes.json")
    let clock = ManualClock()
    do {
      let (store, _) = try makeNotesStore(file: path, clock: clock)
      store.dispatch(NoteAction.added(title: "Groceries"))
      store.dispatch(NoteAction.selected(0))
      await clock.advance(by: .seconds(1))
      #expect(FileManager.default.fileExists(atPath: path))
    }
    let (store, _) = try makeNotesStore(file: path)
    #expect(store.state.notes.notes.map(\.title) == ["Groceries"])
    #expect(store.state.selection == nil)
  }

  @Test("the guide's migration reads a version 1 file")
  func migration() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write(
      #"{"version": 1, "state": {"notes": [{"name": "Old", "text": "kept"}]}}"#, to: "notes.json")
    let (store, _) = try makeNotesStore(file: directory.file("notes.json"))
    #expect(store.state.notes.notes == [Note(title: "Old", text: "kept")])
  }

  @Test("the guide's error handling: a corrupt file stops the app and is left as it is")
  func corruptFile() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("{ not json", to: "notes.json")
    do {
      _ = try makeNotesStore(file: directory.file("notes.json"))
      Issue.record("a corrupt file was restored")
    } catch let error as PersistenceError {
      guard case .unusableFile(_, .noVersion, movedTo: nil) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(try directory.read("notes.json") == "{ not json")
    }
  }
}

// MARK: The other snippets, as written in the guide: compiled, never called

enum PersistenceGuideSnippets {
  /// "Undo history: reopening with the undo steps".
  static func undoHistory(path: String) throws {
    let undo = try UndoMiddleware<Editor>(scope: \Editor.document)
    let history = PersistenceAttachment(
      key: "undo", save: { undo.historyToSave(of: Document.self) }, restore: undo.restoreHistory)
    let persistence = try PersistenceMiddleware(
      file: path, scope: \Editor.document, attachments: [history])
    // Persistence before undo: when the store goes away it saves before undo forgets.
    let store = try Store(
      initialState: persistence.restoring(Editor()), mutators: editorMutators,
      middleware: [persistence, undo])
    _ = store
  }

  /// "Saving at exit and on signals".
  static func signals(
    store: Store<NotesApp>, persistence: PersistenceMiddleware<NotesApp, Notebook>
  ) throws -> ShutdownSignals {
    let shutdown = try ShutdownSignals()  // SIGINT, SIGTERM and SIGHUP
    shutdown.onShutdown { _ in try persistence.flush() }
    shutdown.onShutdown { _ in store.removeMiddleware(named: "audit") }  // closes the trail
    return shutdown
  }
}

/// "Errors": the failures no call site got.
func showUnreturnedFailures(of store: Store<NotesApp>, saving persistence: String) async {
  for await error in store.errors {
    // `dispatch` returned the `.rejected` and `.reducerFailed` cases to their call sites.
    guard case .middlewareFailed(let name, _, let underlying) = error else { continue }
    print(name == persistence ? "not saved: \(underlying)" : "failed: \(underlying)")
  }
}

/// Guides/Thunks.md, "Errors and `store.errors`": the failures a middleware reported.
func showReportedFailures<State>(of store: Store<State>) async {
  for await error in store.errors {
    // `.rejected` and `.reducerFailed`: the call sites got them from `dispatch`.
    guard case .middlewareFailed(let name, let action, let underlying) = error else { continue }
    print("\(name) failed for \(action): \(underlying)")
  }
}
