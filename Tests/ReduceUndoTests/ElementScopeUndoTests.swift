import Reduce
import ReduceUndo
import Synchronization
import Testing

/// A board whose columns are added under undo: the undo of "add column" removes the element a
/// view is scoped to.
private struct UndoBoard: Equatable, Sendable {
  var columns: [UndoColumn] = [UndoColumn(id: 1, title: "To do"), UndoColumn(id: 2, title: "Done")]
}

private struct UndoColumn: Identifiable, Equatable, Sendable {
  var id: Int
  var title: String
}

private struct AddColumn: Action {
  var column: UndoColumn
}

@Suite struct ElementScopeUndoTests {
  @Test("scopes into a column read nil when undo removes it, and the column again on redo")
  func undoRemovesTheElement() throws {
    let undo = try UndoMiddleware<UndoBoard>()
    let store = try Store(
      initialState: UndoBoard(),
      mutators: [
        Mutator(\UndoBoard.columns) { (columns: inout [UndoColumn], action: AddColumn) in
          columns.append(action.column)
        }
      ],
      middleware: [undo])
    store.dispatch(AddColumn(column: UndoColumn(id: 3, title: "Review")))
    let byPosition = store.scope(\.columns, index: 2)
    let byIdentity = store.scope(\.columns, id: 3)
    let seen = Mutex<[String?]>([])
    let subscription = byIdentity.subscribe(to: \.?.title, initial: false) { title in
      seen.withLock { $0.append(title) }
    }

    store.dispatch(UndoAction.undo)
    #expect(byPosition.state == nil)
    #expect(byIdentity.state == nil)
    store.dispatch(UndoAction.redo)
    #expect(byPosition.state?.title == "Review")
    #expect(byIdentity.state?.title == "Review")
    #expect(seen.withLock { $0 } == [nil, "Review"])
    subscription.cancel()
  }
}
