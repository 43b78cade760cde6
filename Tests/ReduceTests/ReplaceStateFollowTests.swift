import Reduce
import Testing

/// A drawing: shapes, and a selection that points at some of them.
struct Drawing: Equatable, Sendable {
  var shapes: [Int] = []
  var selection: Set<Int> = []
  var followed = 0
}

enum ShapeAction: Action {
  case added(Int)
  case removed(Int)
}

enum SelectAction: Action {
  case selected(Int)
}

let shapesMutator = Mutator(\Drawing.shapes) { (shapes: inout [Int], action: ShapeAction) in
  switch action {
  case .added(let id): shapes.append(id)
  case .removed(let id): shapes.removeAll { $0 == id }
  }
}

let selectionMutator = Mutator(\Drawing.selection) {
  (selection: inout Set<Int>, action: SelectAction) in
  if case .selected(let id) = action { selection.insert(id) }
}
.onReplaceState { (selection: inout Set<Int>, drawing) in
  selection.formIntersection(drawing.shapes)
}

@Suite struct ReplaceStateFollowTests {
  @Test("a selection follows a ReplaceState that removed its shape, in the same step")
  func selectionFollows() throws {
    let store = try Store(initialState: Drawing(), mutators: [shapesMutator, selectionMutator])
    _ = try store.dispatch([ShapeAction.added(1), ShapeAction.added(2), SelectAction.selected(2)])
      .get()
    let seen = Collected<Set<Int>>()
    let subscription = store.subscribe(to: \.selection, initial: false) { seen.append($0) }
    var restored = store.state
    restored.shapes = [1]
    let state = try store.dispatch(ReplaceState(restored)).get()
    #expect(state.shapes == [1])
    #expect(state.selection.isEmpty)
    #expect(seen.values == [[]], "observers see the followed state only")
    subscription.cancel()
  }

  @Test("followers run in registration order, each seeing the changes of the ones before")
  func order() throws {
    let counting = Mutator(\Drawing.followed) { (followed: inout Int, _: SelectAction) in }
      .onReplaceState { (followed: inout Int, drawing: Drawing) in
        followed = drawing.selection.count * 10 + drawing.shapes.count
      }
    let store = try Store(
      initialState: Drawing(shapes: [1, 2], selection: [2]),
      mutators: [shapesMutator, selectionMutator, counting])
    let state = try store.dispatch(ReplaceState(Drawing(shapes: [2, 3, 4], selection: [1, 2])))
      .get()
    #expect(state.selection == [2])
    // The follower of `followed` runs after the selection's and sees the selection it left.
    #expect(state.followed == 13)
  }

  @Test("a ReplaceState inside a batch is followed too")
  func insideBatch() throws {
    let store = try Store(
      initialState: Drawing(shapes: [1], selection: [1]),
      mutators: [shapesMutator, selectionMutator])
    let state = try store.dispatch(
      Batch([ReplaceState(Drawing(shapes: [5], selection: [1])), ShapeAction.added(1)])
    ).get()
    #expect(state == Drawing(shapes: [5, 1], selection: []))
  }

  @Test("a second follower is a duplicate handler; a mistyped one a substate mismatch")
  func registrationProblems() throws {
    let store = try Store(initialState: Drawing())
    let twice = selectionMutator.onReplaceState { (selection: inout Set<Int>, _) in }
    #expect(
      throws: RegistrationError.duplicateHandler(
        key: "\\Drawing.selection", action: "ReplaceState (onReplaceState)")
    ) { try store.register(twice) }
    let mistyped = Mutator(\Drawing.shapes) { (shapes: inout [Int], _: ShapeAction) in }
      .onReplaceState { (shapes: inout Set<Int>, _) in }
    #expect(throws: RegistrationError.self) { try store.register(mistyped) }
  }
}
