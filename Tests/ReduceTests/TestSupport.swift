import Foundation
import Reduce
import Testing

// Shared fixtures of the core tests. Names are specific (`TestState`, `Increment`) so that they
// do not collide with the types of the guide examples compiled into the same test module.

/// A nested value, for overlap and coverage checks.
struct TestDoc: Equatable, Sendable {
  var title = ""
  var body = ""
}

/// The state most tests use: `Equatable`, so an action that changes nothing notifies no one.
struct TestState: Equatable, Sendable {
  var counter = 0
  var items: [Int] = []
  var doc = TestDoc()
  var name = ""
}

/// A state that is not `Equatable`: every action that runs a handler notifies.
struct PlainState: Sendable {
  var counter = 0
}

/// Adds `by` to the counter.
struct Increment: Action {
  var by = 1
}

/// Appends a value to the items.
struct Append: Action {
  var value: Int
}

/// Sets the name.
struct Rename: Action {
  var name: String
}

/// An action no mutator of the fixtures handles.
struct Unhandled: Action {}

/// The error the tests' reducers and middleware throw.
struct TestError: Error, Equatable {
  var reason = "boom"
}

/// A store of `TestState` with the counter mutator, plus whatever else a test needs.
func makeStore(
  mutators: [Mutator<TestState>] = [counterMutator],
  middleware: [any Middleware<TestState>] = [],
  fallback: (@Sendable (DispatchError) -> (any Action)?)? = nil
) throws -> Store<TestState> {
  try Store(
    initialState: TestState(), mutators: mutators, middleware: middleware, fallback: fallback)
}

/// Adds `Increment.by` to `counter`; cannot throw.
let counterMutator = Mutator(\TestState.counter) { (counter: inout Int, action: Increment) in
  counter += action.by
}

/// Appends `Append.value` to `items`; cannot throw.
let itemsMutator = Mutator(\TestState.items) { (items: inout [Int], action: Append) in
  items.append(action.value)
}

/// Sets `name` from `Rename`; cannot throw.
let nameMutator = Mutator(\TestState.name) { (name: inout String, action: Rename) in
  name = action.name
}

/// Appends `Append.value` to `items` and throws `TestError` for a negative value, after
/// changing the substate (so a rollback is visible).
let throwingItemsMutator = Mutator(\TestState.items) {
  (items: inout [Int], action: Append) throws(TestError) in
  items.append(action.value)
  if action.value < 0 { throw TestError() }
}

/// A thread-safe list of what a test saw, in order.
///
/// `@unchecked Sendable`: `storage` is only read and written while `lock` is held. `NSLock` is a
/// pthread mutex, which ThreadSanitizer understands.
final class Probe<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [Value] = []

  init() {}

  func append(_ value: Value) {
    lock.lock()
    storage.append(value)
    lock.unlock()
  }

  var values: [Value] {
    lock.lock()
    defer { lock.unlock() }
    return storage
  }

  var count: Int { values.count }

  var last: Value? { values.last }

  func removeAll() {
    lock.lock()
    storage.removeAll()
    lock.unlock()
  }
}

/// A value that a closure sets and a test reads, thread-safely.
///
/// `@unchecked Sendable`: `storage` is only read and written while `lock` is held.
final class Box<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: Value

  init(_ value: Value) {
    storage = value
  }

  var value: Value {
    get {
      lock.lock()
      defer { lock.unlock() }
      return storage
    }
    set {
      lock.lock()
      storage = newValue
      lock.unlock()
    }
  }

  /// Changes the value under the lock and returns what `body` returns.
  func update<Result>(_ body: (inout Value) -> Result) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return body(&storage)
  }
}

/// Runs `body(index)` on `count` new threads at once and returns when all have finished.
///
/// Real threads, not tasks: the cooperative pool has as many threads as cores (2 here), too few
/// to make dispatches contend, and blocking it would starve the other suites.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    let remaining = Box(count)
    for index in 0..<count {
      let thread = Thread {
        body(index)
        let isLast = remaining.update { value -> Bool in
          value -= 1
          return value == 0
        }
        if isLast { continuation.resume() }
      }
      thread.start()
    }
  }
}

extension DispatchError {
  /// The mutator key of a `.reducerFailed`, else nil.
  var failedKey: MutatorKey? {
    if case .reducerFailed(let key, _, _) = self { return key }
    return nil
  }

  /// The middleware name of a `.rejected`, else nil.
  var rejectingMiddleware: String? {
    if case .rejected(let name, _, _) = self { return name }
    return nil
  }

  /// The middleware name of a `.middlewareFailed`, else nil.
  var reportingMiddleware: String? {
    if case .middlewareFailed(let name, _, _) = self { return name }
    return nil
  }
}

extension Result {
  /// The failure, or nil for a success.
  var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }

  /// The success value, or nil for a failure.
  var success: Success? {
    if case .success(let value) = self { return value }
    return nil
  }
}

/// A middleware that only watches the counter's commits.
struct CommitSpy: Middleware {
  let name: String
  let didCommit: @Sendable (Commit<Int>) -> Void

  var commitObserver: CommitObserver<TestState>? {
    CommitObserver(watching: \.counter, didCommit: didCommit)
  }
}

/// A store a middleware reaches without keeping it alive.
///
/// `@unchecked Sendable`: set once by the test before any dispatch.
final class StoreBox: @unchecked Sendable {
  weak var store: Store<TestState>?
}

/// A middleware whose commit observer runs `body` after each turn, with the last action it saw
/// committed (or reach the reducers) in that turn.
func returnWaiter(
  name: String = "waiter", _ body: @escaping @Sendable (any Action) throws -> Void
) -> AnyRecorder {
  let last = Probe<any Action>()
  return AnyRecorder(
    name: name,
    observer: CommitObserver(
      willCommit: { last.append($0.action) },
      afterTurn: {
        guard let action = last.last else { return }
        last.removeAll()
        try body(action)
      }))
}

/// Returns once `condition` holds, yielding in between.
///
/// For a test's own threads or tasks to reach a point that no gate marks; the test's time
/// limit ends a wait that never ends.
func waitUntil(_ condition: () -> Bool) async {
  while !condition() { await Task.yield() }
}
