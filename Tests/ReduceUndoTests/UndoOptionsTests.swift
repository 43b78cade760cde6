import Reduce
import ReduceUndo
import Testing

/// Rename actions are filtered out: they change the title but make no step.
let skipRenames: @Sendable (any Action) -> Bool = { action in
  guard case .rename? = action as? Edit else { return true }
  return false
}

/// Typing groups by the key "typing"; other actions have no key.
let groupTyping: @Sendable (any Action) -> (any Hashable & Sendable)? = { action in
  guard case .type? = action as? Edit else { return nil }
  return "typing"
}

@Suite struct UndoLimitTests {
  @Test("the oldest steps are dropped beyond the limit", arguments: [1, 2, 5])
  func trimming(limit: Int) throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document, limit: limit)
    let store = try makeStore(undo)
    for letter in "abcdefgh" { try store.dispatchAll(Edit.type(String(letter))) }
    #expect(undo.pastCount == limit)

    try store.dispatchAll(UndoAction.jump(-100))
    #expect(store.state.document.text == String("abcdefgh".dropLast(limit)))
    #expect(!undo.canUndo)
    #expect(undo.futureCount == limit)
    try store.dispatchAll(UndoAction.jump(100))
    #expect(store.state.document.text == "abcdefgh")
  }

  @Test("with limit 1 only the newest step can be undone, and then redone")
  func limitOne() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document, limit: 1)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.type("b"), UndoAction.undo, UndoAction.undo)
    #expect(store.state.document.text == "a")
    #expect(undo.pastCount == 0 && undo.futureCount == 1)
    try store.dispatchAll(UndoAction.redo, UndoAction.redo)
    #expect(store.state.document.text == "ab")
    #expect(undo.pastCount == 1 && undo.futureCount == 0)
  }

  @Test("100,000 edits with limit 100 keep 100 steps")
  func manyEdits() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document, limit: 100)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("x"), times: 100_000)
    #expect(undo.pastCount == 100)
    try store.dispatchAll(UndoAction.jump(-1_000))
    #expect(store.state.document.text.count == 100_000 - 100)
  }
}

@Suite struct UndoFilterTests {
  @Test("an action filtered out changes the state but makes no step")
  func filteredChangesState() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document, filter: skipRenames)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.rename("T"))
    #expect(store.state.document.title == "T")
    #expect(undo.pastCount == 0)
  }

  @Test("undo after a filtered action returns to the recorded state before the newest step")
  func filterThenUndo() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document, filter: skipRenames)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.type("b"), Edit.rename("T"))
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document == Document(text: "a"))
  }

  @Test("redo never lands on a state that only a filtered action produced")
  func filterThenRedo() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document, filter: skipRenames)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.rename("T"), UndoAction.undo)
    #expect(store.state.document == Document())
    try store.dispatchAll(UndoAction.redo)
    #expect(store.state.document == Document(text: "a"))
    #expect(!undo.canRedo)
  }

  @Test("a step recorded after a filtered action undoes to the last recorded state")
  func filteredBetweenSteps() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document, filter: skipRenames)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.rename("T"), Edit.type("b"))
    #expect(undo.pastCount == 2)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document == Document(text: "a"))
    try store.dispatchAll(UndoAction.redo)
    #expect(store.state.document == Document(text: "ab", title: "T"))
  }
}

@Suite struct UndoGroupByTests {
  @Test("consecutive actions with the same key make one step")
  func sameKeyMerges() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document, groupBy: groupTyping)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.type("b"), Edit.type("c"))
    #expect(undo.pastCount == 1)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "")
  }

  @Test("an action with another key or none ends the group")
  func onlyConsecutive() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document, groupBy: groupTyping)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.type("b"), Edit.deleteLast, Edit.type("c"))
    #expect(undo.pastCount == 3)
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "a")
  }

  @Test("a nil key never merges")
  func nilNeverMerges() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document, groupBy: { _ in nil })
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.type("b"))
    #expect(undo.pastCount == 2)
  }

  @Test("keys are compared by value, whatever their type")
  func keysByValue() throws {
    let undo = try UndoMiddleware<Editor>(
      scope: \.document,
      groupBy: { action in
        guard case .type(let text)? = action as? Edit else { return nil }
        return text.count
      })
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.type("b"), Edit.type("cd"), Edit.type("ef"))
    #expect(undo.pastCount == 2)
  }

  @Test("actions that make no step do not interrupt a group")
  func quietActionsKeepGroup() throws {
    let undo = try UndoMiddleware<Editor>(
      scope: \.document, filter: skipRenames, groupBy: groupTyping)
    let store = try makeStore(undo)
    try store.dispatchAll(
      Edit.type("a"), Select.at(1), Edit.touch, Edit.rename("T"), Edit.type("b"))
    #expect(undo.pastCount == 1)
  }

  @Test("undo and redo end the current group", arguments: [UndoAction.undo, .redo])
  func commandEndsGroup(command: UndoAction) throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document, groupBy: groupTyping)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), command, Edit.type("b"))
    if command == .undo {
      #expect(store.state.document.text == "b")
      #expect(undo.pastCount == 1)
    } else {
      #expect(store.state.document.text == "ab")
      #expect(undo.pastCount == 2)
      try store.dispatchAll(UndoAction.undo)
      #expect(store.state.document.text == "a")
    }
  }

  @Test("a merged step keeps the label of the action that started it")
  func groupLabel() throws {
    let undo = try UndoMiddleware<Editor>(
      scope: \.document, groupBy: groupTyping,
      label: { action in
        guard case .type(let text)? = action as? Edit else { return nil }
        return "Typing \(text)"
      })
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("a"), Edit.type("b"))
    #expect(undo.undoLabel == "Typing a")
  }
}

@Suite struct UndoGroupTests {
  @Test("every change between beginGroup and endGroup is one step")
  func explicitGroup() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    try store.dispatchAll(Edit.type("0"))
    try store.dispatchAll(
      UndoAction.beginGroup(label: "Paste"), Edit.type("a"), Edit.rename("T"), Edit.type("b"),
      UndoAction.endGroup)
    #expect(undo.pastCount == 2)
    #expect(undo.undoLabel == "Paste")
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document == Document(text: "0"))
    try store.dispatchAll(UndoAction.redo)
    #expect(store.state.document == Document(text: "0ab", title: "T"))
  }

  @Test("nested groups fold into the outermost, named by the first label given")
  func nestedGroups() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    try store.dispatchAll(
      UndoAction.beginGroup(), Edit.type("a"), UndoAction.beginGroup(label: "Inner"),
      Edit.type("b"), UndoAction.endGroup, Edit.type("c"), UndoAction.endGroup, Edit.type("d"))
    #expect(undo.pastCount == 2)
    try store.dispatchAll(UndoAction.undo)
    #expect(undo.undoLabel == "Inner")
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "")
  }

  @Test("a group overrides groupBy keys and ends the groupBy group")
  func groupAndGroupBy() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document, groupBy: groupTyping)
    let store = try makeStore(undo)
    try store.dispatchAll(
      Edit.type("a"), UndoAction.beginGroup(), Edit.type("b"), Edit.deleteLast, Edit.type("c"),
      UndoAction.endGroup, Edit.type("d"))
    #expect(undo.pastCount == 3)
  }

  @Test("a group without changes makes no step")
  func emptyGroup() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    try store.dispatchAll(
      UndoAction.beginGroup(label: "Nothing"), Select.at(2), UndoAction.endGroup)
    #expect(undo.status == UndoStatus())
  }

  @Test("undo inside a group ends its step; later changes in the group make a new one")
  func undoInsideGroup() throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    try store.dispatchAll(
      UndoAction.beginGroup(label: "G"), Edit.type("a"), Edit.type("b"), UndoAction.undo,
      Edit.type("c"), Edit.type("d"), UndoAction.endGroup)
    #expect(store.state.document.text == "cd")
    #expect(undo.pastCount == 1 && undo.futureCount == 0 && undo.undoLabel == "G")
    try store.dispatchAll(UndoAction.undo)
    #expect(store.state.document.text == "")
  }

  @Test("an unmatched endGroup is ignored and reported on errors", .timeLimit(.minutes(1)))
  func unmatchedEndGroup() async throws {
    let undo = try UndoMiddleware<Editor>(scope: \.document)
    let store = try makeStore(undo)
    var errors = store.errors.makeAsyncIterator()
    try store.dispatchAll(Edit.type("a"), UndoAction.endGroup, Edit.type("b"))
    #expect(undo.pastCount == 2)

    let error = try #require(await errors.next())
    guard case .middlewareFailed(let name, let action, let underlying) = error else {
      Issue.record("expected middlewareFailed, got \(error)")
      return
    }
    #expect(name == "UndoMiddleware")
    #expect(action as? UndoAction == .endGroup)
    #expect(underlying as? UndoError == .unmatchedEndGroup)
  }
}
