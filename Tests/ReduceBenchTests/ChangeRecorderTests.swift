import Reduce
import Testing

@testable import reduce_bench

/// The third-party recorder of Guides/WritingMiddleware.md.
@Suite struct ChangeRecorderTests {
  struct Editor: Equatable, Sendable {
    var title = ""
    var cursor = 0
  }

  enum EditorAction: Action {
    case typed(String)
    case moved(to: Int)
  }

  let title = Mutator(\Editor.title) { (title: inout String, action: EditorAction) in
    if case .typed(let text) = action { title += text }
  }
  let cursor = Mutator(\Editor.cursor) { (cursor: inout Int, action: EditorAction) in
    if case .moved(let position) = action { cursor = position }
  }

  @Test("the recorder keeps each change of its value with the action, a batch as one change")
  func recordsChanges() throws {
    let recorder = ChangeRecorder<Editor, String>(limit: 2) { $0.title }
    let store = try Store(
      initialState: Editor(), mutators: [title, cursor], middleware: [recorder])
    store.dispatch(EditorAction.typed("a"))
    store.dispatch(EditorAction.moved(to: 3))  // the title stays: no change recorded
    store.dispatch(Batch([EditorAction.typed("b"), EditorAction.typed("c")]))
    #expect(recorder.recorded.map { "\(type(of: $0.action))" } == ["EditorAction", "Batch"])
    #expect(recorder.recorded.map(\.before) == ["", "a"])
    #expect(recorder.recorded.map(\.after) == ["a", "abc"])
    store.dispatch(EditorAction.typed("d"))
    #expect(recorder.recorded.map(\.after) == ["abc", "abcd"], "bounded by its limit")
  }
}
