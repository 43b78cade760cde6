import Foundation
public import Reduce

/// A middleware that keeps a `Codable` part of the state (or all of it) in a file: restored
/// when the app starts, saved after changes once they pause, written atomically.
///
/// The middleware reads the file when it is created, so that the saved value is part of the
/// store's initial state: observers never see the state without it, and no action is needed to
/// bring it in (an undo history or an audit log would otherwise record one). Build the store's
/// initial state with ``restoring(_:)``:
///
/// ```swift
/// let persistence = try PersistenceMiddleware(
///   file: url.path, scope: \Editor.document, debounce: .seconds(1), maxWait: .seconds(10))
/// let store = try Store(
///   initialState: persistence.restoring(Editor()), mutators: [edits],
///   middleware: [persistence])
/// ```
///
/// A store not built from the saved value does not overwrite it: see
/// ``isGuardingSavedValue``.
///
/// After a commit changed the value, the middleware saves it once changes paused for
/// `debounce`, and at the latest `maxWait` after the first unsaved change. ``flush()`` saves
/// at once, and returns once the file holds the newest value, whatever save is in flight;
/// leaving the store (`removeMiddleware(named:)` or the store's deinitialisation) saves what is
/// pending in the same way. Call `flush()` at the end of `main`, and give it to
/// ``ShutdownSignals`` for Ctrl-C, SIGTERM and SIGHUP: the debounce would otherwise lose the
/// last changes. A failed save is published on the store's `errors` as
/// ``PersistenceError/writeFailed(path:reason:)``; the state is untouched, and the next save
/// (after the next change, a flush, or leaving the store) writes the value again.
///
/// Each write replaces the file in one step: a temporary file in the same directory is
/// written and flushed to the disk, renamed over the file, and the directory is flushed. A
/// crash leaves the old file or the new one, never a mix; it can lose the changes not yet
/// saved, at most `maxWait` of them.
///
/// The middleware's copies share one state. One middleware serves one store, and one file
/// should be kept by one middleware.
public struct PersistenceMiddleware<State: Sendable, Value: Codable & Equatable & Sendable>:
  Middleware
{
  /// The middleware's name in the chain.
  public let name: String
  /// The file's path.
  public let path: String
  /// The value restored from the file, or nil when there was no file (or it was moved aside).
  public let restoredValue: Value?
  /// Why the file could not be restored, when ``UnreadableFilePolicy/moveAsideAndStartFresh``
  /// moved it aside; nil otherwise.
  public let restoreError: PersistenceError?
  /// The attachments that could not be restored, each as
  /// ``PersistenceError/attachmentFailed(key:underlying:)``; empty when all were (or there were
  /// none in the file).
  public let attachmentErrors: [PersistenceError]
  private let scope: WritableKeyPath<State, Value> & Sendable
  private let engine: PersistenceEngine<State, Value>

  /// Creates the middleware and restores the file.
  ///
  /// - Parameters:
  ///   - path: The file's path. Its directory must exist; the file need not.
  ///   - scope: The part of the state to keep; `\State.self` for the whole state.
  ///   - format: The file's version, layout and migrations.
  ///   - debounce: How long changes must pause before a save; positive.
  ///   - maxWait: The longest a change waits for a save while changes go on; nil for no limit.
  ///   - onUnreadableFile: What to do with a file that exists but cannot be restored.
  ///   - clock: The clock that times the saves; `ContinuousClock` by default.
  ///   - name: The middleware's name, unique in a store's chain.
  ///   - attachments: Data saved beside the value that is not in the state, such as an undo
  ///     history; restored here, when the value is.
  ///   - onSave: Turns the outcome of each save made by the timer or ``flush()`` into an action
  ///     to dispatch, or nil for none. Not called for the final save when the store goes away,
  ///     nor for a save that found its value, or a newer one, written by another save.
  /// - Throws: ``PersistenceError`` for invalid options, or a file that cannot be restored
  ///   (unless `onUnreadableFile` is ``UnreadableFilePolicy/moveAsideAndStartFresh``).
  public init(
    file path: String,
    scope: WritableKeyPath<State, Value> & Sendable,
    format: PersistenceFormat = PersistenceFormat(),
    debounce: Duration = .seconds(1),
    maxWait: Duration? = .seconds(10),
    onUnreadableFile: UnreadableFilePolicy = .fail,
    clock: some Clock<Duration> = ContinuousClock(),
    name: String = "PersistenceMiddleware",
    attachments: [PersistenceAttachment<Value>] = [],
    onSave: (@Sendable (SaveOutcome<Value>) -> (any Action)?)? = nil
  ) throws(PersistenceError) {
    guard debounce > .zero else { throw .nonPositiveDebounce(debounce) }
    if let maxWait, maxWait < debounce {
      throw .maxWaitShorterThanDebounce(maxWait: maxWait, debounce: debounce)
    }
    try format.validate()
    var keys = Set<String>()
    for attachment in attachments where !keys.insert(attachment.key).inserted {
      throw .duplicateAttachment(key: attachment.key)
    }
    let codec = StateFileCodec<Value>(format: format)
    let restored = try Self.restore(path, codec, onUnreadableFile)
    restoredValue = restored.value
    restoreError = restored.error
    attachmentErrors =
      restored.data.map { Self.restore(attachments, from: $0, codec, restored.value) } ?? []
    let engine = PersistenceEngine<State, Value>(
      path: path, codec: codec, debounce: debounce, maxWait: maxWait,
      timing: PersistenceTiming(clock: clock), onSave: onSave, attachments: attachments,
      restored: restored.value)
    self.name = name
    self.path = path
    self.scope = scope
    self.engine = engine
  }

  /// Reads the file: its value and bytes, or nil when there is none; or the error the policy
  /// allows.
  private static func restore(
    _ path: String, _ codec: StateFileCodec<Value>, _ policy: UnreadableFilePolicy
  ) throws(PersistenceError) -> (value: Value?, data: Data?, error: PersistenceError?) {
    let problem: StateFileProblem
    do throws(StateFileProblem) {
      let data: Data?
      do {
        data = try FileSystem.contents(of: path)
      } catch {
        throw .cannotRead(reason: error.reason)
      }
      guard let data else { return (nil, nil, nil) }
      return (try codec.decode(data), data, nil)
    } catch {
      problem = error
    }
    guard policy != .fail else {
      throw .unusableFile(path: path, problem: problem, movedTo: nil)
    }
    let movedTo: String
    do {
      movedTo = try FileSystem.moveAside(path, at: Date())
    } catch {
      throw .moveAsideFailed(path: path, problem: problem, reason: error.reason)
    }
    let error = PersistenceError.unusableFile(path: path, problem: problem, movedTo: movedTo)
    guard policy == .moveAsideAndStartFresh else { throw error }
    return (nil, nil, error)
  }

  /// Gives each attachment its saved data, and returns the failures.
  private static func restore(
    _ attachments: [PersistenceAttachment<Value>], from data: Data, _ codec: StateFileCodec<Value>,
    _ value: Value?
  ) -> [PersistenceError] {
    guard !attachments.isEmpty else { return [] }
    let saved: [String: AttachmentDecoder]
    do {
      saved = try codec.attachments(in: data)
    } catch {
      return [.attachmentFailed(key: "attachments", underlying: error)]
    }
    var failures: [PersistenceError] = []
    for attachment in attachments {
      guard let decoder = saved[attachment.key] else { continue }
      do {
        try attachment.restore(decoder, value)
      } catch {
        failures.append(.attachmentFailed(key: attachment.key, underlying: error))
      }
    }
    return failures
  }

  /// The initial state with the restored value in place of the kept part; the state as it is
  /// when nothing was restored.
  ///
  /// - Parameter initialState: The app's initial state.
  /// - Returns: The state to create the store with.
  public func restoring(_ initialState: State) -> State {
    guard let restoredValue else { return initialState }
    var state = initialState
    state[keyPath: scope] = restoredValue
    return state
  }

  /// Whether the middleware refuses to save because the store was not built from the value
  /// the file holds: it protects that value until the store holds it or the app calls
  /// ``replaceSavedValue()``.
  ///
  /// Decided at the store's first commit: the file's value is protected when the kept value
  /// before that commit is not ``restoredValue`` (the store was not made from
  /// ``restoring(_:)``). Meanwhile every save fails with
  /// ``PersistenceError/savedValueNotRestored(path:)``, reported as a failed save is, and the
  /// changes stay pending. The protection ends when a commit leaves the store holding the
  /// file's value (`ReplaceState(persistence.restoring(store.state))`), or with
  /// ``replaceSavedValue()``.
  public var isGuardingSavedValue: Bool { engine.isGuardingSavedValue }

  /// Lets the next save replace the value the file holds, though the store was not built from
  /// it: the app means to discard it.
  ///
  /// The pending value is saved at the next save: after the next change, at ``flush()``, or when
  /// the store goes away.
  public func replaceSavedValue() {
    engine.replaceSavedValue()
  }

  /// Whether a change is not in the file yet: one waiting for the timer, one a save is
  /// writing, or one whose save failed.
  public var hasPendingChanges: Bool { engine.hasPendingChanges }

  /// The error of the last save, or nil when it succeeded (or none was made).
  ///
  /// The final save when the store goes away has no store to report to: look here.
  public var lastSaveError: PersistenceError? { engine.lastError }

  /// Saves the newest value now, if it is not in the file yet.
  ///
  /// When it returns without throwing, the file holds the value of the newest commit that
  /// changed the kept part before the call, whatever save was in flight: a save the timer
  /// started and has not finished (its value may be older, or this one, still being encoded or
  /// written) does not make the flush return early. The value is written again by the flush in
  /// that case, and the two writes are serialized: the second finds the value in the file and
  /// leaves it. So a flush at the end of `main`, or for a signal, loses nothing that was
  /// committed.
  ///
  /// A failure is also published on the store's `errors`, and the value stays pending. Called
  /// from inside a dispatch, the `onSave` action runs right after the current action; a save
  /// that found its value written by another one dispatches no `onSave` action.
  ///
  /// - Returns: Whether a value was saved: true when a change was not in the file yet and now
  ///   is; false when the file held the newest value already.
  /// - Throws: ``PersistenceError/writeFailed(path:reason:)`` or
  ///   ``PersistenceError/encodingFailed(reason:)``.
  @discardableResult
  public func flush() throws(PersistenceError) -> Bool {
    guard let attempt = engine.saveNow(.newest) else { return false }
    engine.publish(attempt)
    try attempt.result.get()
    return true
  }

  /// Keeps the store's context, to report failed saves and dispatch `onSave` actions later,
  /// and passes the action on.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - context: The store's context.
  ///   - next: Passes the action on.
  /// - Throws: The `DispatchError` of the rest of the chain.
  public func handle(_ action: any Action, context: MiddlewareContext<State>, next: Next<State>)
    throws
  {
    engine.keep(context)
    try next(action)
  }

  /// Notes each commit that changes the kept value, whatever action made it (a `Batch` is one
  /// commit), and saves it once changes pause.
  public var commitObserver: CommitObserver<State>? {
    let engine = engine
    return CommitObserver(
      watching: { [scope] in $0[keyPath: scope] },
      didCommit: { commit in engine.committed(commit) })
  }

  /// Joins a store; refuses a second store while it serves one.
  ///
  /// - Parameter store: The store's identity.
  /// - Throws: An error explaining that the middleware serves another store.
  public func willAttach(to store: ObjectIdentifier) throws {
    try engine.willAttach(to: store)
  }

  /// Leaves a store: stops the timer and saves what is pending.
  ///
  /// - Parameter store: The store's identity.
  public func didDetach(from store: ObjectIdentifier) {
    engine.didDetach(from: store)
  }
}

extension PersistenceMiddleware where Value == State {
  /// Creates a middleware that keeps the whole state, and restores the file.
  ///
  /// - Parameters:
  ///   - path: The file's path. Its directory must exist; the file need not.
  ///   - format: The file's version, layout and migrations.
  ///   - debounce: How long changes must pause before a save; positive.
  ///   - maxWait: The longest a change waits for a save while changes go on; nil for no limit.
  ///   - onUnreadableFile: What to do with a file that exists but cannot be restored.
  ///   - clock: The clock that times the saves; `ContinuousClock` by default.
  ///   - name: The middleware's name, unique in a store's chain.
  ///   - attachments: Data saved beside the value that is not in the state.
  ///   - onSave: Turns the outcome of each save into an action to dispatch, or nil for none.
  /// - Throws: ``PersistenceError`` for invalid options or a file that cannot be restored.
  public init(
    file path: String,
    format: PersistenceFormat = PersistenceFormat(),
    debounce: Duration = .seconds(1),
    maxWait: Duration? = .seconds(10),
    onUnreadableFile: UnreadableFilePolicy = .fail,
    clock: some Clock<Duration> = ContinuousClock(),
    name: String = "PersistenceMiddleware",
    attachments: [PersistenceAttachment<Value>] = [],
    onSave: (@Sendable (SaveOutcome<Value>) -> (any Action)?)? = nil
  ) throws(PersistenceError) {
    try self.init(
      file: path, scope: \State.self, format: format, debounce: debounce, maxWait: maxWait,
      onUnreadableFile: onUnreadableFile, clock: clock, name: name, attachments: attachments,
      onSave: onSave)
  }
}
