import Reduce
import ReduceUndo
import Synchronization

/// The tracked part of ``Editor``.
struct Document: Equatable, Sendable {
  var text = ""
  var title = ""
}

/// A small editor: a document (tracked by scoped undo) and a selection (never undone).
struct Editor: Equatable, Sendable {
  var document = Document()
  var selection = 0
}

enum Edit: Action, Equatable {
  case type(String)
  case deleteLast
  case rename(String)
  /// Reaches the reducer and leaves the document equal.
  case touch
}

enum Select: Action {
  case at(Int)
}

func apply(_ edit: Edit, to document: inout Document) {
  switch edit {
  case .type(let text): document.text += text
  case .deleteLast: if !document.text.isEmpty { document.text.removeLast() }
  case .rename(let title): document.title = title
  case .touch: break
  }
}

let documentMutator = Mutator(\Editor.document) { (document: inout Document, edit: Edit) in
  apply(edit, to: &document)
}

let selectionMutator = Mutator(\Editor.selection) { (selection: inout Int, action: Select) in
  if case .at(let position) = action { selection = position }
}

/// Builds a store of an ``Editor`` with the undo middleware after `before` and before `after`.
func makeStore(
  _ undo: UndoMiddleware<Editor>,
  before: [any Middleware<Editor>] = [],
  after: [any Middleware<Editor>] = [],
  initialState: Editor = Editor()
) throws -> Store<Editor> {
  try Store(
    initialState: initialState, mutators: [documentMutator, selectionMutator],
    middleware: before + [undo] + after)
}

extension Store {
  /// Dispatches actions one by one; throws the first failure.
  func dispatchAll(_ actions: any Action...) throws {
    for action in actions { _ = try dispatch(action).get() }
  }

  /// Dispatches the actions of an array one by one; throws the first failure.
  func dispatchAll(contentsOf actions: [any Action]) throws {
    for action in actions { _ = try dispatch(action).get() }
  }

  /// Dispatches an action `count` times.
  func dispatchAll(_ action: some Action, times count: Int) throws {
    for _ in 0..<count { _ = try dispatch(action).get() }
  }
}

/// A middleware that keeps every action it sees and passes it on.
final class Recorder<State: Sendable>: Middleware {
  let name: String
  private let seen = Mutex<[any Action]>([])

  init(name: String) {
    self.name = name
  }

  var actions: [any Action] { seen.withLock { $0 } }

  func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>) throws {
    seen.withLock { $0.append(action) }
    try next(action)
  }
}

/// Tasks started by test middleware, for the test to await.
final class TaskList: Sendable {
  private let tasks = Mutex<[Task<Void, any Error>]>([])

  func add(_ task: Task<Void, any Error>) {
    tasks.withLock { $0.append(task) }
  }

  /// Waits for every task added so far; rethrows the first error.
  func waitForAll() async throws {
    for task in tasks.withLock({ $0 }) { try await task.value }
  }
}

/// A seeded pseudo-random generator (SplitMix64): the same seed gives the same sequence.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// A flag set from any thread.
final class Flag: Sendable {
  private let value = Mutex(false)

  var isSet: Bool { value.withLock { $0 } }

  func set() {
    value.withLock { $0 = true }
  }
}

/// A gate that tasks wait at until it is opened.
actor AsyncGate {
  private var isOpen = false
  private var waiters: [CheckedContinuation<Void, Never>] = []

  /// Returns once the gate is open.
  func wait() async {
    guard !isOpen else { return }
    await withCheckedContinuation { waiters.append($0) }
  }

  /// Opens the gate and lets every waiting task go on.
  func open() {
    isOpen = true
    for waiter in waiters { waiter.resume() }
    waiters = []
  }
}
