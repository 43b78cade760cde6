import Dispatch
import Reduce
import ReduceUndo
import Testing

struct Counter: Equatable, Sendable {
  var value = 0
}

enum Count: Action {
  case increment
}

@Suite(.serialized) struct UndoConcurrencyTests {
  @Test("undo while another thread dispatches loses no step")
  func undoWhileDispatching() throws {
    let counter = Mutator(\Counter.value) { (value: inout Int, _: Count) in value += 1 }
    let undo = try UndoMiddleware<Counter>(limit: 10_000)
    let store = try Store(initialState: Counter(), mutators: [counter], middleware: [undo])
    let jumps = Recorder<Counter>(name: "jumps")
    try store.use(jumps)

    DispatchQueue.concurrentPerform(iterations: 3) { worker in
      switch worker {
      case 0:
        for _ in 0..<2_000 { store.dispatch(Count.increment) }
      case 1:
        for _ in 0..<1_000 { store.dispatch(UndoAction.undo) }
      default:
        for _ in 0..<1_000 { _ = undo.status }
      }
    }

    // Every increment was recorded, every undo took back exactly one step.
    let value = store.state.value
    let undone = jumps.actions.count { $0 is ReplaceState<Counter> }
    #expect(value == 2_000 - undone)
    #expect(undo.pastCount == value)
    try store.dispatchAll(UndoAction.jump(-value))
    #expect(store.state.value == 0)
    #expect(!undo.canUndo)
    try store.dispatchAll(UndoAction.jump(value))
    #expect(store.state.value == value)
  }

  @Test("status read on other threads is always a consistent snapshot")
  func statusReaders() throws {
    let counter = Mutator(\Counter.value) { (value: inout Int, _: Count) in value += 1 }
    let undo = try UndoMiddleware<Counter>(limit: 50)
    let store = try Store(initialState: Counter(), mutators: [counter], middleware: [undo])

    DispatchQueue.concurrentPerform(iterations: 3) { worker in
      if worker == 0 {
        for index in 0..<3_000 {
          let action: any Action = index % 3 == 2 ? UndoAction.undo : Count.increment
          store.dispatch(action)
        }
      } else {
        for _ in 0..<3_000 {
          let status = undo.status
          #expect(status.pastCount + status.futureCount <= 50)
          #expect(status.canUndo == (status.pastCount > 0))
        }
      }
    }
    #expect(undo.pastCount + undo.futureCount <= 50)
  }
}
