import Foundation
import Reduce
import ReducePersistence
import ReduceTesting
import ReduceUndo
import Testing

/// An editor whose document is kept with its undo history: it reopens with its undo steps.
struct UndoableEditor {
  let store: Store<Editor>
  let undo: UndoMiddleware<Editor>
  let persistence: PersistenceMiddleware<Editor, Document>

  init(
    path: String, layout: PersistenceFormat.Layout = .envelope, limit: Int = 100,
    groupWithin: Duration? = nil, clock: ManualClock = ManualClock()
  ) throws {
    let undo = try UndoMiddleware<Editor>(
      scope: \Editor.document, limit: limit, groupWithin: groupWithin,
      label: { action in
        guard case .typed(let text)? = action as? Edit else { return nil }
        return "Type \(text)"
      }, clock: clock)
    let history = PersistenceAttachment(
      key: "undo", save: { undo.historyToSave(of: Document.self) }, restore: undo.restoreHistory)
    let persistence = try PersistenceMiddleware(
      file: path, scope: \Editor.document, format: PersistenceFormat(layout: layout),
      clock: clock, attachments: [history])
    // Persistence before undo: when the store goes away it saves before undo forgets.
    store = try Store(
      initialState: persistence.restoring(Editor()), mutators: editorMutators,
      middleware: [persistence, undo])
    self.undo = undo
    self.persistence = persistence
  }
}

@Suite struct PersistenceAttachmentTests {
  @Test(
    "an editor reopens with its undo steps, saved with the document",
    arguments: [PersistenceFormat.Layout.envelope, .flat])
  func undoHistoryRoundTrip(layout: PersistenceFormat.Layout) throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("editor.json")
    do {
      let editor = try UndoableEditor(path: path, layout: layout)
      for text in ["a", "b", "c"] { editor.store.dispatch(Edit.typed(text)) }
      editor.store.dispatch(UndoAction.undo)
      #expect(editor.store.state.document.body == "ab")
      // No flush: the store's deinitialisation saves the document and the history.
    }
    let editor = try UndoableEditor(path: path, layout: layout)
    #expect(editor.persistence.attachmentErrors.isEmpty)
    #expect(editor.store.state.document.body == "ab")
    #expect(editor.undo.pastCount == 2)
    #expect(editor.undo.futureCount == 1)
    #expect(editor.undo.undoLabel == "Type b")
    editor.store.dispatch(UndoAction.redo)
    #expect(editor.store.state.document.body == "abc")
    editor.store.dispatch(UndoAction.jump(-3))
    #expect(editor.store.state.document.body == "")
  }

  @Test("an attachment that does not decode is left out; the value is restored")
  func badAttachment() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write(
      #"{"version": 1, "state": {"title": "T", "body": "x"}, "attachments": {"undo": [1, 2]}}"#,
      to: "editor.json")
    let editor = try UndoableEditor(path: directory.file("editor.json"))
    #expect(editor.store.state.document == Document(title: "T", body: "x"))
    #expect(!editor.undo.canUndo)
    guard case .attachmentFailed("undo", _)? = editor.persistence.attachmentErrors.first else {
      Issue.record("unexpected \(editor.persistence.attachmentErrors)")
      return
    }
    #expect(editor.persistence.attachmentErrors.count == 1)
  }

  @Test(
    "a history that leads from another document is left out and reported; the document is restored")
  func historyOfAnotherDocument() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write(
      #"""
      {"version": 1, "state": {"title": "T", "body": "x"}, "attachments": {"undo": {"past": [{"value": {"title": "", "body": ""}}], "future": [], "present": {"title": "Other", "body": ""}}}}
      """#,
      to: "editor.json")
    let editor = try UndoableEditor(path: directory.file("editor.json"))
    #expect(editor.store.state.document == Document(title: "T", body: "x"))
    #expect(!editor.undo.canUndo)
    guard
      case .attachmentFailed("undo", let underlying)? = editor.persistence.attachmentErrors.first
    else {
      Issue.record("unexpected \(editor.persistence.attachmentErrors)")
      return
    }
    #expect(underlying as? UndoHistoryError == .presentMismatch)
  }

  @Test(
    "an editor that groups typing by pause reopens with its grouped steps", .timeLimit(.minutes(1)))
  func groupedByPauseRoundTrip() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("editor.json")
    do {
      let clock = ManualClock()
      let editor = try UndoableEditor(path: path, groupWithin: .milliseconds(300), clock: clock)
      editor.store.dispatch(Edit.typed("a"))
      await clock.advance(by: .milliseconds(100))
      editor.store.dispatch(Edit.typed("b"))
      await clock.advance(by: .seconds(1))  // a pause: the next change starts a step
      editor.store.dispatch(Edit.typed("c"))
      #expect(editor.undo.pastCount == 2)
    }
    let editor = try UndoableEditor(path: path, groupWithin: .milliseconds(300))
    #expect(editor.store.state.document.body == "abc")
    #expect(editor.undo.status == UndoStatus(pastCount: 2, undoLabel: "Type c"))
    editor.store.dispatch(UndoAction.undo)
    #expect(editor.store.state.document.body == "ab")
    editor.store.dispatch(UndoAction.undo)
    #expect(editor.store.state.document.body == "")
  }

  @Test("a saved history grows by about one document per step, and limit bounds it")
  func historySize() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    /// The file's size after one step and after 51, with a 1,000-character body.
    func sizes(limit: Int) throws -> (one: Int, fiftyOne: Int) {
      let path = directory.file("size-\(limit).json")
      let editor = try UndoableEditor(path: path, limit: limit)
      editor.store.dispatch(Edit.typed(String(repeating: "x", count: 1_000)))
      try editor.persistence.flush()
      let one = try Data(contentsOf: URL(fileURLWithPath: path)).count
      for step in 1...50 { editor.store.dispatch(Edit.titled("Title \(step)")) }
      try editor.persistence.flush()
      return (one, try Data(contentsOf: URL(fileURLWithPath: path)).count)
    }
    let document = try JSONEncoder().encode(
      Document(title: "Title 25", body: String(repeating: "x", count: 1_000))
    ).count
    let unbounded = try sizes(limit: 100)
    let perStep = (unbounded.fiftyOne - unbounded.one) / 50
    // Measured: a 1,030-byte document; 3,377 bytes after one step, 59,026 after 51: 1,112 a step.
    // The document's JSON, and its pretty-printed layout in the step.
    #expect(perStep >= document && perStep <= document + 128)
    // With `limit: 10` the file keeps 10 steps, however many are made.
    let bounded = try sizes(limit: 10)
    // Measured: 13,389 bytes after 51 steps.
    #expect(bounded.fiftyOne <= unbounded.one + 10 * (document + 128))
  }

  @Test("two attachments with one key are refused")
  func duplicateKeys() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let attachment = PersistenceAttachment<Editor>(
      key: "same", save: { 1 }, restore: { (_: Int, _) in })
    #expect(throws: PersistenceError.self) {
      _ = try PersistenceMiddleware<Editor, Editor>(
        file: directory.file("editor.json"), attachments: [attachment, attachment])
    }
  }
}
