/// What the thread holding a store's turn keeps track of: the dispatch it is carrying out, the
/// work queued behind it, and whether the store has closed.
///
/// It is not generic and its fields are private, so the compiler sees every access to them and
/// checks their exclusivity when it compiles. The same fields in the generic engine were
/// checked at run time, on every dispatch (measured on `counter`: Guides/Performance.md).
///
/// Touched only by the thread holding the turn.
@usableFromInline
final class Agenda: @unchecked Sendable {
  // `@unchecked Sendable`: touched only by the thread holding the store's turn.
  private var followUps: [Work] = []
  private var nextFollowUp = 0
  /// How many of `followUps` wait: read by every dispatch, where `followUps.count` would be an
  /// access the compiler checks at run time (its elements' deinitialisers may run any code).
  private var waiting = 0
  private var dispatch: UInt64 = 0
  private var closed = false

  /// The dispatch being carried out: a `next` of another one is queued, not run in it.
  @usableFromInline var currentDispatch: UInt64 { dispatch }

  /// Whether the store has closed: nothing more is run.
  @usableFromInline var isClosed: Bool { closed }

  /// Whether work is queued behind the current action.
  @usableFromInline var hasFollowUps: Bool { waiting > 0 }

  /// Starts a dispatch of its own: an action from the top of the chain, or a late `next`.
  @usableFromInline
  func beginDispatch() {
    dispatch &+= 1
  }

  func close() {
    closed = true
  }

  /// Queues work to run after the current action.
  @usableFromInline
  func append(_ work: Work) {
    followUps.append(work)
    waiting += 1
  }

  /// The next queued work, in the order it was queued; nil once every one was taken.
  @usableFromInline
  func takeFollowUp() -> Work? {
    guard nextFollowUp < followUps.count else {
      followUps.removeAll(keepingCapacity: true)
      nextFollowUp = 0
      return nil
    }
    let work = followUps[nextFollowUp]
    nextFollowUp += 1
    waiting -= 1
    return work
  }
}

/// Whether a store's reducers are at work: a handler running, or a batch being reduced.
///
/// Not generic, for the reason ``Agenda`` is not. Touched only by the thread holding the turn.
@usableFromInline
final class ReducerStatus: @unchecked Sendable {
  // `@unchecked Sendable`: touched only by the thread holding the store's turn.
  private var reducing = false
  private var staging = false

  /// Whether a handler or a check is running: the store stops a reducer that reads, dispatches
  /// or subscribes.
  var isReducing: Bool { reducing }

  /// Whether a batch is being reduced.
  @usableFromInline var isStaging: Bool { staging }

  @usableFromInline
  func setReducing(_ value: Bool) {
    reducing = value
  }

  func setStaging(_ value: Bool) {
    staging = value
  }
}
