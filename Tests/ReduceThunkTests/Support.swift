import Reduce
import ReduceThunk
import Synchronization

struct AppState: Equatable, Sendable {
  var count = 0
  var seen: [String] = []
}

enum CountAction: Action, Equatable {
  case incremented(by: Int)
}

/// Recorded by the `any Action` mutator, to prove what reaches the reducers.
enum NoteAction: Action, Equatable {
  case noted(String)
}

struct Failure: Error, Equatable {
  let code: Int
}

/// A counter mutator, and one that records the type of every action reaching the reducers.
func makeMutators() -> [Mutator<AppState>] {
  let count = Mutator(\AppState.count) { (count: inout Int, action: CountAction) in
    if case .incremented(let amount) = action { count += amount }
  }
  let seen = Mutator(\AppState.seen) { (seen: inout [String], action: any Action) in
    seen.append(String(describing: type(of: action)))
  }
  return [count, seen]
}

func makeStore<Dependencies: Sendable>(
  dependencies: Dependencies,
  before: [any Middleware<AppState>] = [],
  after: [any Middleware<AppState>] = []
) throws -> Store<AppState> {
  try Store(
    initialState: AppState(), mutators: makeMutators(),
    middleware: before + [ThunkMiddleware(dependencies: dependencies)] + after)
}

func makeStore() throws -> Store<AppState> {
  try makeStore(dependencies: ())
}

/// Keeps every action a middleware saw, as text.
final class ActionLog: Sendable {
  private let entries = Mutex<[String]>([])

  var all: [String] { entries.withLock { $0 } }

  func middleware(named name: String) -> AnyMiddleware<AppState> {
    AnyMiddleware(name: name) { action, _, next in
      self.entries.withLock { $0.append(String(describing: action)) }
      try next(action)
    }
  }
}

/// Suspends until the current task is cancelled, then throws `CancellationError`.
func suspendUntilCancelled() async throws {
  let (stream, continuation) = AsyncStream<Never>.makeStream()
  for await _ in stream {}
  withExtendedLifetime(continuation) {}
  throw CancellationError()
}

/// A gate that ignores cancellation: only `open()` lets waiters through.
final class Gate: Sendable {
  private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>(
    (false, []))

  func wait() async {
    await withCheckedContinuation { continuation in
      let isOpen = state.withLock { state in
        if !state.isOpen { state.waiters.append(continuation) }
        return state.isOpen
      }
      if isOpen { continuation.resume() }
    }
  }

  func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}
