import Foundation
import Reduce

/// Why a persistence refused to join a store.
struct AlreadyAttached: Error, CustomStringConvertible {
  var description: String {
    "this PersistenceMiddleware already serves another store; create one per store and file."
  }
}

/// The shared state of a ``PersistenceMiddleware`` and its copies: what is pending, the timer,
/// and the writes.
///
/// Decisions are made under `book`'s lock; encoding, writing, reporting and dispatching happen
/// after it is released. Writes are serialized by `written`, which also keeps an older value
/// from replacing a newer one that another thread wrote first.
///
/// Two saves may be under way at once: the timer's, and a flush (or the final save) that does
/// not wait for it. A flush saves the newest value not yet on disk, `unsaved`, even when the
/// timer has taken it already and is still encoding it: whichever of the two writes first, the
/// other finds the value written and is superseded, so that the flush returns only once the
/// file holds the newest value, however slow the save in flight is.
final class PersistenceEngine<State: Sendable, Value: Codable & Equatable & Sendable>: Sendable {
  /// A value that changed and is not saved yet.
  struct Pending: Sendable {
    var value: Value
    /// The action whose commit made the change, for error reports.
    var action: any Action
    /// Counts changes: a higher number is a newer value.
    var sequence: UInt64
  }

  /// Whether a save may replace the value the file held when the middleware was made.
  enum Protection: Sendable {
    /// The file held a value, and no commit has shown yet whether the store holds it.
    case unchecked
    /// The store was not built from the file's value: saves are refused.
    case guarding
    /// Nothing to protect: the file held no value, or the store holds it (or held it), or the
    /// app chose to replace it.
    case lifted
  }

  struct Book: Sendable {
    var attachment: ObjectIdentifier?
    var protection: Protection
    /// A context of the store served, to report failures and dispatch outcomes later.
    var context: MiddlewareContext<State>?
    /// The newest change that no save has taken yet (or whose save failed): the timer's work.
    var pending: Pending?
    /// The newest change not known to be in the file: `pending`, or a value a save has taken
    /// and not yet written.
    var unsaved: Pending?
    /// When the first pending change arrived, for `maxWait`.
    var firstChange: Duration?
    /// When the pending value is due to be saved.
    var deadline: Duration?
    /// Whether a timer task runs, and which one may run.
    var driverRunning = false
    var generation: UInt64 = 0
    var driver: Task<Void, Never>?
    var sequence: UInt64 = 0
    var lastError: PersistenceError?

    init(protection: Protection) {
      self.protection = protection
    }
  }

  /// Which change a save takes.
  enum Target {
    /// The change no save has taken yet: the timer's save.
    case pending
    /// The newest change not in the file, though a save in flight has taken it: a flush and
    /// the final save.
    case newest
  }

  /// What one save did.
  struct Attempt {
    var pending: Pending
    var context: MiddlewareContext<State>?
    var result: Result<Void, PersistenceError>
    /// Whether another save wrote this value, or a newer one, first: nothing to report.
    var superseded = false
  }

  let path: String
  let codec: StateFileCodec<Value>
  let debounce: Duration
  let maxWait: Duration?
  let timing: PersistenceTiming
  let onSave: (@Sendable (SaveOutcome<Value>) -> (any Action)?)?
  let attachments: [PersistenceAttachment<Value>]
  /// The value the file held when the middleware was made; nil when there was none.
  let restored: Value?
  let book: Locked<Book>
  /// Held while a file is written: the sequence of the newest value written.
  let written = Locked<UInt64>(0)

  init(
    path: String, codec: StateFileCodec<Value>, debounce: Duration, maxWait: Duration?,
    timing: PersistenceTiming, onSave: (@Sendable (SaveOutcome<Value>) -> (any Action)?)?,
    attachments: [PersistenceAttachment<Value>], restored: Value?
  ) {
    self.attachments = attachments
    self.restored = restored
    self.book = Locked(Book(protection: restored == nil ? .lifted : .unchecked))
    self.path = path
    self.codec = codec
    self.debounce = debounce
    self.maxWait = maxWait
    self.timing = timing
    self.onSave = onSave
  }

  deinit {
    // The last copy went away with a change unsaved (it never joined a store, or its store
    // kept it past `didDetach`): write it, as the store's deinitialisation would have.
    _ = saveNow(.newest)
  }

  var hasPendingChanges: Bool { book.withLock { $0.unsaved != nil } }

  var lastError: PersistenceError? { book.withLock { $0.lastError } }

  // MARK: Changes and the timer

  /// Keeps a context of the store served, for the reports and dispatches of later saves.
  func keep(_ context: MiddlewareContext<State>) {
    book.withLock { book in
      guard book.context == nil, book.attachment == context.storeID else { return }
      book.context = context
    }
  }

  /// Notes a commit of the store served: whether the store holds the file's value, and a
  /// changed value to save.
  func committed(_ commit: Commit<Value>) {
    if let restored { check(commit, against: restored) }
    guard commit.before != commit.after else { return }
    changed(to: commit.after, by: commit.action, in: commit.store)
  }

  /// Decides whether the store was built from the file's value, and lifts the guard once the
  /// store holds that value.
  ///
  /// The store was built from the file's value when the value before its first commit is that
  /// value. The values are compared outside the lock: `==` is user code.
  private func check(_ commit: Commit<Value>, against restored: Value) {
    let protection = book.withLock { book in
      book.attachment == commit.store ? book.protection : .lifted
    }
    guard protection != .lifted else { return }
    var decided = protection
    if decided == .unchecked { decided = commit.before == restored ? .lifted : .guarding }
    if decided == .guarding, commit.after == restored { decided = .lifted }
    guard decided != protection else { return }
    book.withLock { book in
      if book.protection == protection { book.protection = decided }
    }
  }

  /// Whether saves are refused because the store was not built from the file's value.
  var isGuardingSavedValue: Bool { book.withLock { $0.protection == .guarding } }

  /// Lets saves replace the file's value.
  func replaceSavedValue() {
    book.withLock { $0.protection = .lifted }
  }

  /// Notes a changed value of the store served and makes sure a timer will save it.
  func changed(to value: Value, by action: any Action, in store: ObjectIdentifier) {
    let now = timing.now()
    let start: UInt64? = book.withLock { book in
      guard book.attachment == store else { return nil }
      book.sequence += 1
      let change = Pending(value: value, action: action, sequence: book.sequence)
      book.pending = change
      book.unsaved = change
      let first = book.firstChange ?? now
      book.firstChange = first
      var deadline = now + debounce
      if let maxWait { deadline = min(deadline, first + maxWait) }
      book.deadline = deadline
      guard !book.driverRunning else { return nil }
      book.driverRunning = true
      book.generation += 1
      return book.generation
    }
    if let generation = start { startDriver(generation) }
  }

  private func startDriver(_ generation: UInt64) {
    let task = Task(executorPreference: timing.executor) { [weak self] in
      guard let self else { return }
      await self.drive(generation: generation)
    }
    let isCurrent = book.withLock { book in
      guard book.generation == generation, book.driverRunning else { return false }
      book.driver = task
      return true
    }
    if !isCurrent { task.cancel() }
  }

  private enum Step {
    case exit
    case save
    case sleep(until: Duration)
  }

  /// Sleeps until the pending value is due, saves it, and ends when nothing is pending.
  ///
  /// A change while it sleeps moves the deadline: it wakes at the old one, finds the new one,
  /// and sleeps again.
  private func drive(generation: UInt64) async {
    while true {
      let now = timing.now()
      let step: Step = book.withLock { book in
        guard book.generation == generation, book.driverRunning else { return .exit }
        guard let deadline = book.deadline else {
          book.driverRunning = false
          book.driver = nil
          return .exit
        }
        return now >= deadline ? .save : .sleep(until: deadline)
      }
      switch step {
      case .exit:
        return
      case .save:
        if let attempt = saveNow(.pending) { publish(attempt) }
      case .sleep(let deadline):
        do {
          try await timing.sleep(deadline)
        } catch {
          // Cancelled by `didDetach`; a clock that fails otherwise leaves the pending value to
          // the timer the next change starts, or to a flush.
          book.withLock { book in
            guard book.generation == generation else { return }
            book.driverRunning = false
            book.driver = nil
          }
          return
        }
      }
    }
  }

  // MARK: Saving

  /// Writes a change now, if there is one.
  ///
  /// - Parameter target: The change no save has taken yet, or the newest change not in the
  ///   file (saved again when a save in flight has taken it: the two writes are serialized, and
  ///   the second finds the value written).
  /// - Returns: What was saved and how it went, or nil when there was nothing to save.
  func saveNow(_ target: Target) -> Attempt? {
    let taken: (Pending, MiddlewareContext<State>?, refused: Bool)? = book.withLock { book in
      let change: Pending?
      switch target {
      case .pending: change = book.pending
      case .newest: change = book.unsaved
      }
      guard let change else { return nil }
      book.deadline = nil
      book.firstChange = nil
      // Refused: the value stays pending, and the timer stops until the next change.
      if book.protection == .guarding {
        book.lastError = .savedValueNotRestored(path: path)
        return (change, book.context, true)
      }
      // Taken: a `.newest` change that is also `pending` needs no second save by the timer.
      book.pending = nil
      return (change, book.context, false)
    }
    guard let (pending, context, refused) = taken else { return nil }
    if refused {
      return Attempt(
        pending: pending, context: context, result: .failure(.savedValueNotRestored(path: path)))
    }
    var saved: [String: AnyEncodable] = [:]
    for attachment in attachments {
      if let payload = attachment.save() { saved[attachment.key] = AnyEncodable(base: payload) }
    }
    var superseded = false
    let result = Result { () throws(PersistenceError) in
      let data = try codec.encode(pending.value, attachments: saved)
      try written.withLock { (newest: inout UInt64) throws(PersistenceError) in
        // This value or a newer one was written meanwhile: this one must not replace it.
        guard pending.sequence > newest else {
          superseded = true
          return
        }
        do throws(FileSystem.Failure) {
          try FileSystem.replace(path, with: data)
        } catch {
          throw .writeFailed(path: path, reason: error.reason)
        }
        newest = pending.sequence
      }
    }
    book.withLock { book in
      switch result {
      case .success:
        if !superseded { book.lastError = nil }
        if let unsaved = book.unsaved, unsaved.sequence <= pending.sequence { book.unsaved = nil }
      case .failure(let error):
        // Kept for the next save, unless a newer change is pending, or taken by a save in
        // flight, already.
        if book.pending == nil, let unsaved = book.unsaved, unsaved.sequence == pending.sequence {
          book.pending = unsaved
        }
        book.lastError = error
      }
    }
    return Attempt(pending: pending, context: context, result: result, superseded: superseded)
  }

  /// Reports a failed save on the store's `errors` and dispatches the app's outcome action.
  func publish(_ attempt: Attempt) {
    guard !attempt.superseded, let context = attempt.context else { return }
    let outcome: SaveOutcome<Value>
    switch attempt.result {
    case .success: outcome = .saved(attempt.pending.value)
    case .failure(let error):
      outcome = .failed(error)
      context.report(error, for: attempt.pending.action)
    }
    if let action = onSave?(outcome) { context.dispatch(action) }
  }

  // MARK: Attaching

  func willAttach(to store: ObjectIdentifier) throws {
    let joined = book.withLock { book in
      guard book.attachment == nil || book.attachment == store else { return false }
      book.attachment = store
      return true
    }
    if !joined { throw AlreadyAttached() }
  }

  /// Stops the timer and writes what is pending: the final save when the store goes away.
  func didDetach(from store: ObjectIdentifier) {
    let task: Task<Void, Never>? = book.withLock { book in
      guard book.attachment == store else { return nil }
      book.attachment = nil
      book.context = nil
      book.driverRunning = false
      book.generation += 1
      defer { book.driver = nil }
      return book.driver
    }
    task?.cancel()
    // A failure stays in `lastError`, and the value pending for a flush or the deinit.
    _ = saveNow(.newest)
  }
}
