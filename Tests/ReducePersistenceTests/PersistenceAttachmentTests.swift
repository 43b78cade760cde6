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

  init(path: String, layout: PersistenceFormat.Layout = .envelope) throws {
    let undo = try UndoMiddleware<Editor>(
      scope: \Editor.document,
      label: { action in
        guard case .typed(let text)? = action as? Edit else { return nil }
        return "Type \(text)"
      })
    let history = PersistenceAttachment<Document>(
      key: "undo",
      save: { try? undo.exportHistory(of: Document.self) },
      restore: { (record: UndoHistoryRecord<Document>, document) in
        // Only a history that leads from the restored document.
        guard record.present == document else { return }
        try undo.importHistory(record)
      })
    let persistence = try PersistenceMiddleware(
      file: path, scope: \Editor.document, format: PersistenceFormat(layout: layout),
      clock: ManualClock(), attachments: [history])
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
