import Reduce
import ReduceUndo
import Testing

// The Usage example of Guides/Undo.md, kept here so that it keeps compiling and doing what the
// guide says. Keep the two in step.

enum GuideExample {
  struct TextEditor: Equatable, Sendable {
    var document = Page()
    var cursor = 0
  }

  struct Page: Equatable, Sendable {
    var title = "Untitled"
    var text = ""
  }

  enum EditAction: Action {
    case typed(String)
    case deletedBackward
    case renamed(String)
  }

  enum CursorAction: Action {
    case moved(to: Int)
  }

  static func makeEditor() throws -> (Store<TextEditor>, UndoMiddleware<TextEditor>) {
    let page = Mutator(\TextEditor.document) { (page: inout Page, action: EditAction) in
      switch action {
      case .typed(let text): page.text += text
      case .deletedBackward: if !page.text.isEmpty { page.text.removeLast() }
      case .renamed(let title): page.title = title
      }
    }
    let cursor = Mutator(\TextEditor.cursor) { (cursor: inout Int, action: CursorAction) in
      if case .moved(let position) = action { cursor = position }
    }
    let undo = try UndoMiddleware<TextEditor>(
      scope: \.document,
      limit: 500,
      groupBy: { action in
        guard case .typed? = action as? EditAction else { return nil }
        return "typing"
      },
      label: { action in
        switch action as? EditAction {
        case .typed: "Typing"
        case .deletedBackward: "Delete"
        case .renamed: "Rename"
        case nil: nil
        }
      })
    let store = try Store(
      initialState: TextEditor(), mutators: [page, cursor], middleware: [undo])
    return (store, undo)
  }
}

@Suite struct UndoGuideExampleTests {
  @Test("the guide's text editor behaves as the guide says")
  func textEditor() throws {
    typealias EditAction = GuideExample.EditAction
    typealias CursorAction = GuideExample.CursorAction
    let (store, undo) = try GuideExample.makeEditor()

    store.dispatch(EditAction.typed("Hel"))
    store.dispatch(EditAction.typed("lo"))  // same group key: still one step
    store.dispatch(CursorAction.moved(to: 2))  // outside the scope: not recorded
    store.dispatch(EditAction.renamed("Greeting"))
    #expect(undo.undoLabel == "Rename")
    #expect(undo.pastCount == 2)

    store.dispatch(UndoAction.undo)  // the title is "Untitled" again
    #expect(store.state.document == GuideExample.Page(title: "Untitled", text: "Hello"))
    store.dispatch(UndoAction.undo)  // the text is empty again; the cursor stays at 2
    #expect(store.state == GuideExample.TextEditor(document: GuideExample.Page(), cursor: 2))
    #expect(undo.redoLabel == "Typing")
    #expect(undo.futureCount == 2)

    store.dispatch(UndoAction.beginGroup(label: "Replace"))
    store.dispatch(EditAction.deletedBackward)
    store.dispatch(EditAction.typed("Hi"))
    store.dispatch(UndoAction.endGroup)
    #expect(undo.undoLabel == "Replace")
    #expect(!undo.canRedo)
  }
}

extension UndoGuideExampleTests {
  typealias TextEditor = GuideExample.TextEditor
  typealias EditAction = GuideExample.EditAction
  typealias CursorAction = GuideExample.CursorAction

  @Test("the guide's option snippets compile and do what the guide says")
  func optionSnippets() throws {
    let everything = try UndoMiddleware<TextEditor>()
    let titleOnly = try UndoMiddleware<TextEditor>(
      scope: Lens(get: { $0.document.title }, set: { $0.document.title = $1 }))
    let long = try UndoMiddleware<TextEditor>(scope: \.document, limit: 10_000)
    let noCursorSteps = try UndoMiddleware<TextEditor>(filter: { !($0 is CursorAction) })
    let perField = try UndoMiddleware<TextEditor>(
      scope: \.document,
      groupBy: { action in
        switch action as? EditAction {
        case .typed: "text"
        case .renamed: "title"
        default: nil
        }
      })
    let byPause = try UndoMiddleware<TextEditor>(
      scope: \.document, groupWithin: .milliseconds(500))
    #expect(everything.limit == 100 && long.limit == 10_000 && byPause.limit == 100)

    let actions: [any Action] = [
      EditAction.typed("a"), EditAction.typed("b"), CursorAction.moved(to: 1),
      EditAction.renamed("T"), EditAction.renamed("Ti"), EditAction.typed("c"),
    ]
    let expected: [(UndoMiddleware<TextEditor>, Int)] = [
      (everything, 6), (titleOnly, 2), (long, 5), (noCursorSteps, 5), (perField, 3),
    ]
    for (undo, steps) in expected {
      let (store, _) = try GuideExample.makeEditor()
      #expect(store.removeMiddleware(named: "UndoMiddleware"))
      try store.use(undo)
      try store.dispatchAll(contentsOf: actions)
      #expect(undo.pastCount == steps)
    }
  }

  @Test(
    "the guide's status loop sees the current status, then each change", .timeLimit(.minutes(1)))
  func statusLoop() async throws {
    let (store, undo) = try GuideExample.makeEditor()
    store.dispatch(EditAction.typed("a"))
    let lines = Task {
      var lines: [String] = []
      for await status in undo.statuses {
        lines.append(status.canUndo ? "Undo \(status.undoLabel ?? "")" : "Nothing to undo")
        if lines.count == 1 { store.dispatch(UndoAction.undo) }
        if lines.count == 2 { break }
      }
      return lines
    }
    #expect(await lines.value == ["Undo Typing", "Nothing to undo"])
  }
}

/// The types of Guides/Undo.md, "Following a restore".
enum FollowingExample {
  struct Canvas: Equatable, Sendable {
    var document = Drawing()
    var selection: Set<Int> = []
  }

  struct Drawing: Equatable, Sendable {
    var shapes: [Int] = []
  }

  enum DrawAction: Action {
    case added(Int)
  }

  enum SelectAction: Action {
    case selected(Int)
  }
}

@Suite struct UndoFollowingGuideExampleTests {
  @Test("Undo guide, Following a restore: undo removes the selected shape and its selection")
  func selectionFollowsUndo() throws {
    typealias Canvas = FollowingExample.Canvas
    typealias Drawing = FollowingExample.Drawing
    typealias DrawAction = FollowingExample.DrawAction
    typealias SelectAction = FollowingExample.SelectAction

    let drawing = Mutator(\Canvas.document) { (drawing: inout Drawing, action: DrawAction) in
      if case .added(let id) = action { drawing.shapes.append(id) }
    }
    let selection = Mutator(\Canvas.selection) {
      (selection: inout Set<Int>, action: SelectAction) in
      if case .selected(let id) = action { selection = [id] }
    }
    .onReplaceState { (selection: inout Set<Int>, canvas) in
      selection.formIntersection(canvas.document.shapes)
    }

    let undo = try UndoMiddleware<Canvas>(scope: \.document)
    let store = try Store(
      initialState: Canvas(), mutators: [drawing, selection], middleware: [undo])
    let selections = Locked<[Set<Int>]>([])
    let subscription = store.subscribe(to: \.selection) { value in
      selections.withLock { $0.append(value) }
    }
    store.dispatch(DrawAction.added(1))
    store.dispatch(DrawAction.added(2))
    store.dispatch(SelectAction.selected(2))
    store.dispatch(UndoAction.undo)  // shape 2 is gone, and so is its selection
    #expect(store.state == Canvas(document: Drawing(shapes: [1]), selection: []))
    #expect(selections.withLock { $0 } == [[], [2], []])
    // Redo brings the shape back; the selection, rightly, stays empty.
    store.dispatch(UndoAction.redo)
    #expect(store.state == Canvas(document: Drawing(shapes: [1, 2]), selection: []))
    subscription.cancel()
  }
}
