import Reduce
import ReduceUndo
import Testing

/// A page whose whole state is tracked, `Codable` so that its history can be exported.
struct Page: Codable, Equatable, Sendable {
  var text = ""
}

enum Typing: Action {
  case typed(String)
}

let pageMutator = Mutator(\Page.text, key: "text") { (text: inout String, action: Typing) in
  if case .typed(let more) = action { text += more }
}

func makePageStore(_ undo: UndoMiddleware<Page>, text: String = "") throws -> Store<Page> {
  try Store(initialState: Page(text: text), mutators: [pageMutator], middleware: [undo])
}

@Suite struct UndoHistoryExportTests {
  func makeUndo(limit: Int = 100) throws -> UndoMiddleware<Page> {
    try UndoMiddleware<Page>(
      limit: limit,
      label: { action in
        guard case .typed(let text)? = action as? Typing else { return nil }
        return "Type \(text)"
      })
  }

  @Test("an exported history, imported into a new store, undoes and redoes the same steps")
  func roundTrip() throws {
    let undo = try makeUndo()
    let store = try makePageStore(undo)
    try store.dispatchAll(Typing.typed("a"), Typing.typed("b"), Typing.typed("c"), UndoAction.undo)
    let record = try undo.exportHistory(of: Page.self)
    #expect(record.past.map(\.value.text) == ["", "a"])
    #expect(record.past.map(\.label) == ["Type a", "Type b"])
    #expect(record.future == [.init(value: Page(text: "abc"), label: "Type c")])
    #expect(record.present == Page(text: "ab"))

    // The app restarts: a new store from the saved page, and the saved history.
    let reopened = try makeUndo()
    let restored = try makePageStore(reopened, text: "ab")
    try reopened.importHistory(record)
    #expect(reopened.status == undo.status)
    #expect(reopened.undoLabel == "Type b")
    #expect(reopened.redoLabel == "Type c")
    try restored.dispatchAll(UndoAction.undo, UndoAction.undo)
    #expect(restored.state.text == "")
    #expect(!reopened.canUndo)
    try restored.dispatchAll(UndoAction.redo, UndoAction.redo, UndoAction.redo)
    #expect(restored.state.text == "abc")
    #expect(try reopened.exportHistory(of: Page.self).past.count == 3)
  }

  @Test("an empty history exports with no present and imports as nothing")
  func emptyHistory() throws {
    let undo = try makeUndo()
    let store = try makePageStore(undo)
    let record = try undo.exportHistory(of: Page.self)
    #expect(record == UndoHistoryRecord(present: nil))
    try undo.importHistory(record)
    #expect(!undo.canUndo)
    withExtendedLifetime(store) {}
  }

  @Test("a history longer than the limit keeps the newest steps to undo and the nearest to redo")
  func trimmedToLimit() throws {
    let steps = (0..<5).map { UndoHistoryRecord<Page>.Step(value: Page(text: "\($0)")) }
    let undo = try makeUndo(limit: 3)
    let store = try makePageStore(undo, text: "now")
    try undo.importHistory(
      UndoHistoryRecord(
        past: steps, future: [.init(value: Page(text: "next"))], present: Page(text: "now")))
    let record = try undo.exportHistory(of: Page.self)
    #expect(record.past.map(\.value.text) == ["3", "4"])
    #expect(record.future.map(\.value.text) == ["next"])
    withExtendedLifetime(store) {}
  }

  @Test("a history of another type, without a present, or from another present is refused")
  func refused() throws {
    let undo = try makeUndo()
    let store = try makePageStore(undo)
    #expect(throws: UndoHistoryError.valueTypeMismatch(requested: "String")) {
      _ = try undo.exportHistory(of: String.self)
    }
    #expect(throws: UndoHistoryError.missingPresent) {
      try undo.importHistory(UndoHistoryRecord(past: [.init(value: Page())], present: nil))
    }
    try store.dispatchAll(Typing.typed("x"))
    #expect(throws: UndoHistoryError.presentMismatch) {
      try undo.importHistory(
        UndoHistoryRecord(past: [.init(value: Page())], present: Page(text: "elsewhere")))
    }
    // Refused imports leave the history as it was.
    #expect(try undo.exportHistory(of: Page.self).past == [.init(value: Page(), label: "Type x")])
  }
}
