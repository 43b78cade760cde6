/// What a middleware records of a store's commits: the one contract of plugins that watch
/// changes (undo history, an audit trail, persistence, a logged diff).
///
/// A middleware gives one as its ``Middleware/commitObserver``. The store then shows it
/// every commit it makes, whatever action made it and however it was dispatched, at three
/// moments:
///
/// - **before the commit**, `willCommit`, once the change is decided and before anyone can see
///   it: throw to refuse it (a write-ahead log that could not write). The state then stays as
///   it was, and the action fails with ``DispatchError/middlewareFailed(name:action:underlying:)``.
/// - **after the commit**, `didCommit`, with the watched value before and after, once the
///   store's observers were told.
/// - **after the turn**, `afterTurn`, once the store has released its turn, on the dispatching
///   thread, before `dispatch` returns: for work that should not hold up other dispatches,
///   such as waiting for a log to reach the disk.
///
/// A ``Batch`` is one commit: its observer sees it once, with the mutators of all its actions.
/// An action that reaches no handler is shown to `willCommit` (with no mutators) and not to
/// `didCommit`: nothing changed.
///
/// ```swift
/// struct History: Middleware {
///   let steps = Steps()  // a class of your own, with a lock
///   func handle(_ action: any Action, context: MiddlewareContext<Editor>, next: Next<Editor>)
///     throws
///   { try next(action) }
///   var commitObserver: CommitObserver<Editor>? {
///     CommitObserver(watching: \.document) { commit in
///       if commit.before != commit.after { steps.append(commit.before) }
///     }
///   }
/// }
/// ```
///
/// `willCommit` and `didCommit` run in the store's turn, with no lock held: keep them short,
/// and do not read the store from them (the value handed over is the one to use). A dispatch
/// from them is queued, as one from a middleware is. `watching` runs like a reducer and must
/// not touch the store.
public struct CommitObserver<State: Sendable>: Sendable {
  let makeRecording:
    @Sendable (_ name: String, _ store: ObjectIdentifier, _ state: State) -> CommitRecording<State>

  /// Creates an observer of the commits, watching one value of the state.
  ///
  /// Only the watched value is kept from before a commit: a middleware that watches one
  /// substate keeps no copy of the rest, and the reducers still change that rest in place.
  ///
  /// - Parameters:
  ///   - value: Reads the watched value from a state (`\.document`, or `{ $0 }` for all of it).
  ///   - willCommit: Shown each decided change before it is made; throws to refuse it.
  ///   - didCommit: Told each commit, with the watched value before and after.
  ///   - afterTurn: Called after each dispatch of the store once its turn is released, on the
  ///     dispatching thread, whether or not this observer was shown a commit in it.
  public init<Value: Sendable>(
    watching value: @escaping @Sendable (State) -> Value,
    willCommit: (@Sendable (PendingCommit) throws -> Void)? = nil,
    didCommit: @escaping @Sendable (Commit<Value>) -> Void,
    afterTurn: (@Sendable () throws -> Void)? = nil
  ) {
    makeRecording = { name, store, state in
      WatchingRecording(
        name: name, store: store, value: value, initial: value(state), willCommit: willCommit,
        didCommit: didCommit, afterTurn: afterTurn)
    }
  }

  /// Creates an observer that is shown each change before it commits, and watches no value.
  ///
  /// - Parameters:
  ///   - willCommit: Shown each decided change before it is made; throws to refuse it.
  ///   - afterTurn: Called after each dispatch of the store once its turn is released, on the
  ///     dispatching thread, whether or not this observer was shown a change in it.
  public init(
    willCommit: @escaping @Sendable (PendingCommit) throws -> Void,
    afterTurn: (@Sendable () throws -> Void)? = nil
  ) {
    makeRecording = { name, store, _ in
      CommitRecording(name: name, store: store, willCommit: willCommit, afterTurn: afterTurn)
    }
  }
}

/// A change the store has decided and not yet made: what `willCommit` is shown.
public struct PendingCommit: Sendable {
  /// The action reduced: the one that reached the reducers; for a ``Batch``, the batch.
  public let action: any Action
  /// The keys of the mutators whose handlers make the change, in the order they run.
  ///
  /// For a batch, those of all its actions. Empty when no handler takes the action.
  public let mutators: [MutatorKey]
  /// Whether the change replaces the whole state: a ``ReplaceState``, or a batch holding one.
  public let replacesState: Bool
  /// The identity of the store committing, as given to ``Middleware/willAttach(to:)``.
  public let store: ObjectIdentifier

  /// Creates a pending commit.
  ///
  /// - Parameters:
  ///   - action: The action reduced.
  ///   - mutators: The keys of the mutators that make the change.
  ///   - replacesState: Whether it replaces the whole state.
  ///   - store: The identity of the store.
  public init(
    action: any Action, mutators: [MutatorKey], replacesState: Bool, store: ObjectIdentifier
  ) {
    self.action = action
    self.mutators = mutators
    self.replacesState = replacesState
    self.store = store
  }
}

/// A change the store made: what `didCommit` is told.
public struct Commit<Value: Sendable>: Sendable {
  /// The action reduced: the one that reached the reducers; for a ``Batch``, the batch.
  public let action: any Action
  /// The keys of the mutators that made the change, in the order they ran.
  public let mutators: [MutatorKey]
  /// Whether the change replaced the whole state.
  public let replacesState: Bool
  /// The identity of the store that committed, as given to ``Middleware/willAttach(to:)``.
  public let store: ObjectIdentifier
  /// The watched value right before the change.
  public let before: Value
  /// The watched value right after it.
  public let after: Value

  /// Creates a commit.
  ///
  /// - Parameters:
  ///   - change: The change, as it was shown before it was made.
  ///   - before: The watched value before.
  ///   - after: The watched value after.
  @inline(__always)
  public init(_ change: PendingCommit, before: Value, after: Value) {
    // Always inlined: in the store's commit observer, compiled for any value, one look-up of
    // this type's metadata then serves both the call and the value made.
    action = change.action
    mutators = change.mutators
    replacesState = change.replacesState
    store = change.store
    self.before = before
    self.after = after
  }
}

/// What the store calls of a commit observer without the state: its name, `willCommit` and
/// `afterTurn`.
///
/// Not generic, so that the code that calls them is not either: compiled for any state, each
/// generic type it touched would cost a look-up of its metadata at run time.
@usableFromInline
class CommitHooks: @unchecked Sendable {
  // `@unchecked Sendable`: immutable here; a subclass's value before is touched only by the
  // thread holding the store's turn.
  let name: String
  let store: ObjectIdentifier
  let willCommit: (@Sendable (PendingCommit) throws -> Void)?
  let afterTurn: (@Sendable () throws -> Void)?

  init(
    name: String, store: ObjectIdentifier,
    willCommit: (@Sendable (PendingCommit) throws -> Void)?,
    afterTurn: (@Sendable () throws -> Void)?
  ) {
    self.name = name
    self.store = store
    self.willCommit = willCommit
    self.afterTurn = afterTurn
  }
}

/// Shows a decided change to the commit observers that check it, in order: any may refuse it.
///
/// - Throws: The first refusal, as ``DispatchError/middlewareFailed(name:action:underlying:)``
///   unless it is a `DispatchError` already.
@usableFromInline
func approve(_ commit: PendingCommit, by checks: [CommitHooks]) throws(DispatchError) {
  for hooks in checks {
    guard let willCommit = hooks.willCommit else { continue }
    do {
      try willCommit(commit)
    } catch let error as DispatchError {
      throw error
    } catch {
      throw .middlewareFailed(name: hooks.name, action: commit.action, underlying: error)
    }
  }
}

/// One commit observer in one store: what the store calls.
///
/// Made when the middleware joins the store, so that the watched value before a commit has a
/// place of its own in each store. Touched only in the store's turn, except ``afterTurn``.
@usableFromInline
class CommitRecording<State: Sendable>: CommitHooks, @unchecked Sendable {
  /// Reads the watched value before a change.
  @usableFromInline
  func begin(_ state: State) {}

  /// Tells the observer of a commit, with the value before and `state` after.
  @usableFromInline
  func finish(_ state: State, _ change: PendingCommit) {}
}

private final class WatchingRecording<State: Sendable, Value: Sendable>: CommitRecording<State>,
  @unchecked Sendable
{
  let value: @Sendable (State) -> Value
  let didCommit: @Sendable (Commit<Value>) -> Void
  /// The watched value before the commit being made, read by `begin`, which the store calls
  /// before every commit it shows `finish`; between commits, the value after the last one, so
  /// that no older value is kept alive.
  ///
  /// Not an optional: this class is compiled once for every state and value, and there each use
  /// of an `Optional<Value>` costs a look-up of that type's metadata at run time.
  private var before: Value

  init(
    name: String, store: ObjectIdentifier, value: @escaping @Sendable (State) -> Value,
    initial: Value, willCommit: (@Sendable (PendingCommit) throws -> Void)?,
    didCommit: @escaping @Sendable (Commit<Value>) -> Void,
    afterTurn: (@Sendable () throws -> Void)?
  ) {
    self.value = value
    self.didCommit = didCommit
    before = initial
    super.init(name: name, store: store, willCommit: willCommit, afterTurn: afterTurn)
  }

  override func begin(_ state: State) {
    before = value(state)
  }

  override func finish(_ state: State, _ change: PendingCommit) {
    let after = value(state)
    // One exchange: `before` takes the value after, the value before comes out.
    var before = after
    swap(&self.before, &before)
    didCommit(Commit(change, before: before, after: after))
  }
}
