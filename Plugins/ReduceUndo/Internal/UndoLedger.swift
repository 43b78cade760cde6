import Reduce

/// The bookkeeping of an undo middleware, whatever the tracked type: the history under its
/// lock, the store served, the decisions of recording, the status and its streams.
///
/// Why it is not generic: this module is compiled apart from its users, so generic code in it
/// runs unspecialised, and every generic type it makes (an `Optional<Value>`, an
/// `Array<UndoStep<Value>>`, a tuple) costs a metadata look-up in the runtime, several on each
/// commit; together they cost more than all the rest of recording. The ledger holds the tracked
/// values boxed as `any Sendable` instead, and ``UndoRecorder`` converts to and from the tracked
/// type at its edges.
///
/// Recording happens in the store's turn, so it never overlaps for the store served; the lock
/// guards the history against readers on other threads (`status`, `statuses`), against leaving
/// the store, and against a store the middleware left that still runs a dispatch with it. Under
/// the lock run no user code (no `==`, no option closure, no lens, no deinitialiser of a tracked
/// value) and no `next`.
final class UndoLedger: Sendable {
  /// The middleware's name, for errors.
  let name: String
  let options: UndoOptions
  /// The tracked type's `==` on two boxed values of it: user code, never under the lock.
  let isEqual: @Sendable (any Sendable, any Sendable) -> Bool
  /// Whether only explicit groups decide how changes make steps: no `filter`, `groupBy` or
  /// `groupWithin` option.
  let plain: Bool
  /// How changes merge into steps outside an explicit group.
  let rule: GroupingRule
  /// Whether the middleware has a `label` option.
  let labelled: Bool
  let book: Locked<UndoBook>

  /// Creates a ledger with an empty history.
  ///
  /// - Parameters:
  ///   - name: The middleware's name, for errors.
  ///   - options: The limit and the option closures.
  ///   - isEqual: The tracked type's `==` on two boxed values of it.
  /// - Throws: ``UndoError/invalidLimit(_:)`` when the limit is below 1, and
  ///   ``UndoError/invalidGroupingWindow(_:)`` when `groupWithin` is not positive.
  init(
    name: String, options: UndoOptions,
    isEqual: @escaping @Sendable (any Sendable, any Sendable) -> Bool
  ) throws(UndoError) {
    guard options.limit >= 1 else { throw .invalidLimit(options.limit) }
    if let window = options.groupWithin, window <= .zero {
      throw .invalidGroupingWindow(window)
    }
    self.name = name
    self.options = options
    self.isEqual = isEqual
    self.plain = options.filter == nil && options.groupBy == nil && options.groupWithin == nil
    self.rule = options.rule
    self.labelled = options.label != nil
    self.book = Locked(UndoBook(history: UndoHistory(limit: options.limit)))
  }

  deinit {
    let sinks = book.withLock { book in
      defer { book.sinks = [:] }
      return book.sinks
    }
    for sink in sinks.values { sink.finish() }
  }

  /// The status last published.
  var status: UndoStatus { book.withLock { $0.published } }

  // MARK: Store membership

  /// Joins a store; throws when already serving one.
  ///
  /// - Parameters:
  ///   - store: The store's identity.
  ///   - statusDidChange: Tells the middleware's observers that the status changed.
  /// - Throws: ``UndoError/alreadyAttached(name:)`` when already serving a store.
  func attach(
    to store: ObjectIdentifier, notifying statusDidChange: @escaping @Sendable () -> Void
  ) throws(UndoError) {
    let stay = UndoStay(store: store, statusDidChange: statusDidChange)
    try book.withLock { book throws(UndoError) in
      guard book.stay == nil else { throw UndoError.alreadyAttached(name: name) }
      book.stay = stay
    }
  }

  /// Leaves a store and forgets its history.
  ///
  /// - Parameter store: The store's identity.
  /// - Returns: Whether the status changed.
  func detach(from store: ObjectIdentifier) -> Bool {
    let (changed, released) = book.withLock { book in
      guard book.stay?.store == store else { return (false, UndoHistory?.none) }
      book.stay = nil
      var old = UndoHistory(limit: options.limit)
      swap(&old, &book.history)
      return (Self.publishLocked(&book), old)
    }
    _ = consume released
    return changed
  }

  /// The stay in `store`, nil when the middleware serves another store or none.
  func stay(in store: ObjectIdentifier) -> UndoStay? {
    book.withLock { $0.stay?.store == store ? $0.stay : nil }
  }

  // MARK: Recording

  /// Records what a commit did to the tracked value, if the store that committed is the one
  /// served and the commit is not a restore of this middleware's, and tells the middleware's
  /// observers when the status changed.
  ///
  /// One hold of the lock does all that needs no user code: it tells a restore apart, notes a
  /// commit that changed nothing, and records a change when no option closure (nor the clock)
  /// has a say. Any other change goes on to ``recordWithOptions(_:in:before:after:)``.
  /// The two stay apart: a change recorded there takes two or three holds of the lock, and
  /// every commit would pay for the second.
  ///
  /// The tracked values are boxed only when kept: most commits keep one or none, and boxing a
  /// value of more than three words allocates.
  ///
  /// - Parameters:
  ///   - action: The action the store reduced.
  ///   - store: The store that committed.
  ///   - changed: Whether the tracked value after the commit differs from the value before, by
  ///     its `==`.
  ///   - before: The tracked value before the commit, boxed.
  ///   - after: The tracked value after it, boxed.
  func record(
    _ action: any Action, of store: ObjectIdentifier, changed: Bool,
    before: () -> any Sendable, after: () -> any Sendable
  ) {
    let first = book.withLock { book -> FirstPass in
      if book.restoring?.store == store {
        book.restoring?.committed = true
        return .ignored
      }
      guard book.stay?.store == store else { return .ignored }
      guard changed else {
        // No step, but the first value seen is the history's starting point. The status
        // counts steps and names them: it stays as it is.
        book.history.noteBaseline(before)
        return .ignored
      }
      // Decided and recorded as in recordWithOptions, written out: one helper for both, which
      // returned `Released?`, cost 21 instructions a commit.
      guard plain,
        let (merging, label) = book.history.decision(
          key: nil, at: nil, rule: rule, labelled: labelled)
      else {
        // The stay (it serves `store`) is copied only here: a copy is a retain and a release,
        // which cost the fast path 50 instructions when made before it.
        return book.stay.map(FirstPass.needsOptions) ?? .ignored
      }
      let released = book.history.record(
        after(), from: before, merging: merging, label: label, key: nil, at: nil)
      // The stay only when there is news for it: a copy of it is a retain and a release.
      return .recorded(notify: Self.publishLocked(&book) ? book.stay : nil, released: released)
    }
    switch consume first {
    case .ignored:
      return
    case .recorded(let stay, let released):
      // What the change dropped is released here, after the lock.
      _ = consume released
      stay?.statusDidChange()
    case .needsOptions(let stay):
      recordWithOptions(action, in: stay, before: before, after: after())
    }
  }

  /// What the first hold of the lock in ``record(_:of:changed:before:after:)`` made of a commit.
  enum FirstPass {
    /// Not a step: a restore, a commit of another store, or one that changed nothing.
    case ignored
    /// Recorded: the stay when the status changed, and what the change dropped.
    case recorded(notify: UndoStay?, released: Released)
    /// A change for the option closures to decide, outside the lock, in the stay that saw it.
    case needsOptions(UndoStay)
  }

  /// Records a change that the `filter`, `groupBy`, `groupWithin` or `label` options decide:
  /// they run outside the lock, between the holds that read and change the history.
  ///
  /// The holds change the history only while the middleware stays in the store that committed:
  /// a detach meanwhile changes the stay, and the change is then dropped.
  ///
  /// - Parameters:
  ///   - action: The action the store reduced.
  ///   - stay: The stay in the store that committed, when the first hold saw the commit.
  ///   - before: The tracked value before the commit, boxed.
  ///   - after: The tracked value after it, which differs from `before`.
  func recordWithOptions(
    _ action: any Action, in stay: UndoStay, before: () -> any Sendable, after: any Sendable
  ) {
    guard options.filter?(action) ?? true else {
      // No step, but the first value seen is the history's starting point.
      let changed = change(in: stay) { history in
        history.noteBaseline(before)
        return Released()
      }
      if changed { stay.statusDidChange() }
      return
    }
    // With a filter, actions filtered out may have moved the value away from the newest recorded
    // step, and this one may bring it back: a step from a value to the same value would undo
    // nothing and drop the redo future. (Without a filter the newest recorded value is the value
    // before the action, already compared.) The copy is compared, and released, outside the lock.
    if options.filter != nil,
      let last = book.withLock({ $0.stay === stay ? $0.history.recorded : nil }),
      isEqual(last, after)
    {
      return
    }
    let key = options.groupBy?(action).map(GroupKey.init)
    let time = options.groupWithin == nil ? nil : options.now()
    // Decided under the lock when that needs no user code (no `groupBy` keys to compare, no
    // `label` to run); otherwise the open group is read first, to decide outside the lock. Only
    // this store's dispatches change it, and they wait for this one.
    var undecided: Grouping?
    let changed = change(in: stay) { history in
      guard
        let (merging, label) = history.decision(
          key: key, at: time, rule: rule, labelled: labelled)
      else {
        history.noteBaseline(before)
        undecided = history.grouping(at: time, rule: rule)
        return Released()
      }
      return history.record(
        after, from: before, merging: merging, label: label, key: key, at: time)
    }
    var decided = false
    if let grouping = undecided {
      let (merging, label) = decide(grouping, key: key, action: action)
      decided = change(in: stay) { history in
        history.record(after, from: before, merging: merging, label: label, key: key, at: time)
      }
    }
    if changed || decided { stay.statusDidChange() }
  }

  /// Whether a change merges into the newest step, and the label of the step it starts; runs
  /// the `groupBy` keys' `==` and the `label` option, so never under the lock.
  func decide(_ grouping: Grouping, key: GroupKey?, action: any Action) -> (
    merging: Bool, label: String?
  ) {
    let merging: Bool
    if grouping.depth > 0 {
      merging = grouping.groupHasStep
    } else if grouping.windowOpen == false {
      merging = false
    } else if grouping.rule.keyed {
      if let key, let open = grouping.openKey { merging = key == open } else { merging = false }
    } else {
      merging = grouping.windowOpen == true
    }
    guard !merging else { return (true, nil) }
    return (false, (grouping.depth > 0 ? grouping.groupLabel : nil) ?? options.label?(action))
  }

  // MARK: Restoring

  /// Seals the newest step and reads where a jump lands, unless the middleware left the store
  /// of `stay`.
  ///
  /// - Parameters:
  ///   - offset: Negative into the past, positive into the future.
  ///   - stay: The stay the command started in.
  /// - Returns: The tracked value the jump restores; nil when it moves no step.
  func destination(ofJump offset: Int, in stay: UndoStay) -> (any Sendable)? {
    book.withLock { book in
      guard book.stay === stay else { return nil }
      book.history.seal()
      return book.history.destination(ofJump: offset)?.snapshot
    }
  }

  /// Runs `restore`, which passes a command's `ReplaceState` down the chain, marked as a restore:
  /// the commit it makes is not recorded as a step.
  ///
  /// - Parameters:
  ///   - stay: The stay the command runs in.
  ///   - restore: Passes the `ReplaceState` on; runs outside the lock.
  /// - Returns: Whether the restore committed while `restore` ran.
  /// - Throws: What `restore` throws.
  func restoring(in stay: UndoStay, _ restore: () throws -> Void) throws -> Bool {
    book.withLock { $0.restoring = PendingRestore(store: stay.store) }
    defer { book.withLock { $0.restoring = nil } }
    try restore()
    return book.withLock { $0.restoring?.committed ?? false }
  }

  // MARK: Changing the history

  /// Changes the history unless the middleware left the store of `stay`, publishes the
  /// new status, and releases what the change dropped after the lock.
  ///
  /// - Returns: Whether the status changed.
  func change(
    in stay: UndoStay,
    _ change: (inout UndoHistory) -> Released
  ) -> Bool {
    let (changed, released) = book.withLock { book in
      guard book.stay === stay else { return (false, Released()) }
      let released = change(&book.history)
      return (Self.publishLocked(&book), released)
    }
    _ = consume released
    return changed
  }

  /// Replaces the whole history (an imported one), publishes the new status, and releases the
  /// history replaced after the lock.
  ///
  /// - Returns: Whether the status changed.
  func replaceHistory(with history: UndoHistory) -> Bool {
    var history = history
    let changed = book.withLock { book in
      swap(&history, &book.history)
      return Self.publishLocked(&book)
    }
    // `history` now holds the replaced one; its values are released here, after the lock.
    _ = consume history
    return changed
  }

  /// Sends the status to every stream when it changed; the lock must be held.
  ///
  /// Yielding runs no user code, and doing it under the lock keeps every stream in publication
  /// order.
  static func publishLocked(_ book: inout UndoBook) -> Bool {
    guard book.history.status(differsFrom: book.published) else { return false }
    let status = book.history.status
    book.published = status
    if !book.sinks.isEmpty { yieldLocked(status, to: book.sinks) }
    return true
  }

  /// Sends a status to streams; the lock must be held.
  ///
  /// Apart from ``publishLocked(_:)``: a stream's continuation has a size known only at run
  /// time, and making room for one on every commit cost about 40 instructions.
  @inline(never)
  static func yieldLocked(
    _ status: UndoStatus, to sinks: [UInt64: AsyncStream<UndoStatus>.Continuation]
  ) {
    for sink in sinks.values { sink.yield(status) }
  }

  // MARK: Status streams

  /// A stream of the status, starting with the current one.
  func makeStatusStream() -> AsyncStream<UndoStatus> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: UndoStatus.self, bufferingPolicy: .bufferingNewest(1))
    let id = book.withLock { book in
      book.lastSinkID &+= 1
      return book.lastSinkID
    }
    continuation.onTermination = { [weak self] _ in
      let removed = self?.book.withLock { $0.sinks.removeValue(forKey: id) }
      _ = removed
    }
    book.withLock { book in
      // A stream already terminated (its task was cancelled) is not kept.
      if case .terminated = continuation.yield(book.published) { return }
      book.sinks[id] = continuation
    }
    return stream
  }
}
