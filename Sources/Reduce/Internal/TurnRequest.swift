public import Synchronization

/// The work of a thread or task that found a store's turn taken, queued for the turn holder.
///
/// The turn holder carries the work out and hands back its result; or, for a request with no
/// work (the requester needs the turn itself) and when it has served its share, hands the turn
/// over. Either way the requester is woken once.
///
/// `@unchecked Sendable`: `outcome` is read and written only with the store's lock held; `ended`
/// is an atomic; the other properties are constants.
@usableFromInline
final class TurnRequest<State: Sendable>: @unchecked Sendable {
  /// How a request ended.
  @usableFromInline
  enum Outcome: Sendable {
    /// The turn holder carried the work out: its result, and what to run before returning it.
    case done(Result<State, DispatchError>, [ReturnWait])
    /// The turn holder carried out the work of a request with a reader (``read``), and gave the
    /// reader the state if the work succeeded: the work's failure, and what to run before
    /// returning.
    case read(DispatchError?, [ReturnWait])
    /// The requester holds the turn now, and carries its work out itself.
    case turn
  }

  /// How the requester waits.
  @usableFromInline
  enum Waiter: Sendable {
    /// A thread blocked on its own condition.
    case thread(Condition)
    /// A suspended task.
    case task(CheckedContinuation<Outcome, Never>)
  }

  /// What to carry out; nil when the requester needs the turn itself.
  @usableFromInline let work: PendingWork<State>?
  /// Reads what the requester wants from the state the work produced, in the turn, before any
  /// other work runs (`Store.dispatch(_:returning:)`); nil when the requester wants the state.
  ///
  /// User code: the turn holder calls it outside the lock.
  @usableFromInline let read: (@Sendable (State) -> Void)?
  @usableFromInline let waiter: Waiter
  /// Set once, with the store's lock held.
  @usableFromInline var outcome: Outcome?
  /// Set, after `outcome`, once the request ended: read without the lock by a waiting thread
  /// that looks before it sleeps.
  @usableFromInline let ended = Atomic<Bool>(false)

  /// Whether a task waits for this request (rather than a blocked thread).
  @inlinable var isTask: Bool {
    if case .task = waiter { true } else { false }
  }

  @usableFromInline
  init(work: PendingWork<State>?, waiter: Waiter, read: (@Sendable (State) -> Void)? = nil) {
    self.work = work
    self.waiter = waiter
    self.read = read
  }

  /// Releases what a request that was never queued holds: a thread's condition.
  @inlinable
  func dropUnqueued() {
    if case .thread(let condition) = waiter { condition.destroy() }
  }
}

/// Work a middleware asked to run on the dispatcher's thread or task, once the store has
/// released its turn and before the dispatch returns (`MiddlewareContext.beforeReturning(_:)`).
@usableFromInline
struct ReturnWait: Sendable {
  /// The middleware that asked, and the action it was handling: for the error if `body` throws.
  @usableFromInline let name: String
  @usableFromInline let action: any Action
  @usableFromInline let body: @Sendable () throws -> Void

  @inlinable
  init(name: String, action: any Action, body: @escaping @Sendable () throws -> Void) {
    self.name = name
    self.action = action
    self.body = body
  }
}
