import Foundation
import Reduce
import Testing

/// An action's middleware and reducers run with its dispatcher's task-local values, under
/// contention too: a middleware that records who dispatched (an audit principal, a log's request
/// id, a tracing span) records the right one.
@Suite(.serialized) struct TaskLocalAttributionTests {
  enum Principal {
    @TaskLocal static var id = -1
  }

  struct Tagged: Action {
    let principal: Int
  }

  struct Counts: Equatable, Sendable {
    var total = 0
    var misattributedInReducers = 0
  }

  /// A store whose middleware and reducer each count the actions that run with another
  /// dispatcher's task-local value.
  func makeStore(misattributed: Probe<Int>) throws -> Store<Counts> {
    let check = AnyMiddleware<Counts>(name: "principal") { action, _, next in
      if let tagged = action as? Tagged, tagged.principal != Principal.id {
        misattributed.append(tagged.principal)
      }
      try next(action)
    }
    let counter = Mutator(\Counts.self, key: "counts") { (counts: inout Counts, action: Tagged) in
      counts.total += 1
      if action.principal != Principal.id { counts.misattributedInReducers += 1 }
    }
    return try Store(initialState: Counts(), mutators: [counter], middleware: [check])
  }

  @Test("8 threads, each with its own value, dispatching at once", .timeLimit(.minutes(2)))
  func threads() throws {
    let misattributed = Probe<Int>()
    let store = try makeStore(misattributed: misattributed)
    let threads = 8
    let perThread = 5_000
    let done = DispatchGroup()
    for principal in 0..<threads {
      done.enter()
      let thread = Thread {
        Principal.$id.withValue(principal) {
          for _ in 0..<perThread { store.dispatch(Tagged(principal: principal)) }
        }
        done.leave()
      }
      thread.start()
    }
    done.wait()
    #expect(store.state.total == threads * perThread)
    #expect(misattributed.count == 0, "in middleware")
    #expect(store.state.misattributedInReducers == 0, "in reducers")
  }

  @Test("1,000 tasks, each with its own value, sending at once", .timeLimit(.minutes(2)))
  func tasks() async throws {
    let misattributed = Probe<Int>()
    let store = try makeStore(misattributed: misattributed)
    let tasks = 1_000
    let perTask = 20
    await withTaskGroup(of: Void.self) { group in
      for principal in 0..<tasks {
        group.addTask {
          await Principal.$id.withValue(principal) {
            for _ in 0..<perTask { _ = await store.send(Tagged(principal: principal)) }
          }
        }
      }
    }
    #expect(store.state.total == tasks * perTask)
    #expect(misattributed.count == 0, "in middleware")
    #expect(store.state.misattributedInReducers == 0, "in reducers")
  }
}
