public import Observation
public import Synchronization

extension StoreCore {
  /// Changes the observers; the lock must be held.
  private func updateObservers<R>(
    _ fields: inout CoreFields<State>, _ body: (inout Observers<State>) -> R
  ) -> R {
    var observers = fields.setup.observers?.observers ?? Observers()
    let result = body(&observers)
    observers.reindex()
    changeSetup(&fields) { $0.observers = observers.isEmpty ? nil : ObserverSnapshot(observers) }
    return result
  }

  /// Adds a whole-state observer and calls it with the current state, holding the turn so that
  /// it sees every later change exactly once.
  func subscribe(
    initial: Bool = true, _ observer: @escaping @Sendable (State) -> Void,
    finish: (@Sendable () -> Void)? = nil
  ) -> Subscription {
    withTurn {
      let flag = CancellationFlag()
      // Holding the turn, this thread alone changes the state.
      let (id, isOpen) = fields.withLock { fields in
        let id = makeID(&fields)
        if !fields.setup.closed {
          updateObservers(&fields) {
            $0.whole.append(Sink(id: id, flag: flag, delivery: .state(observer), finish: finish))
          }
        }
        return (id, !fields.setup.closed)
      }
      if initial { observer(local.pointee.state) }
      if !isOpen { finish?() }
      return makeSubscription(id: id, flag: flag)
    }
  }

  /// Adds an observer of every change, with the action that made it.
  func subscribeToChanges(_ observer: @escaping @Sendable (StateChange<State>) -> Void)
    -> Subscription
  {
    let flag = CancellationFlag()
    let id = fields.withLock { fields in
      let id = makeID(&fields)
      if !fields.setup.closed {
        updateObservers(&fields) {
          $0.changes.append(Sink(id: id, flag: flag, delivery: .change(observer), finish: nil))
        }
      }
      return id
    }
    return makeSubscription(id: id, flag: flag)
  }

  /// Adds an observer of the value at a key path and calls it with the current value.
  ///
  /// The path is `Sendable`, or appended from `Sendable` paths (a scoped store's).
  ///
  /// Inlinable so that the comparison and the delivery are specialised for `Value`.
  @inlinable
  func subscribe<Value: Equatable & Sendable>(
    to path: KeyPath<State, Value>,
    initial: Bool = true,
    finish: (@Sendable () -> Void)? = nil,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    withTurn {
      // Holding the turn, the committed state cannot change under us.
      let shareKey = ShareKey.path(path)
      let existing = fields.withLock {
        $0.setup.observers?.observers.groups.first { $0.shareKey == shareKey }?.value
          as? KeyPathValue<State, Value>
      }
      let offset = MemoryLayout<State>.offset(of: path)
      let value = existing ?? KeyPathValue(path: path, initial: local.pointee.state[keyPath: path])
      let group = ScopedGroup<State>(
        value: value, shareKey: shareKey,
        range: offset.map { $0..<($0 + MemoryLayout<Value>.size) },
        refresh: { value.refresh(from: $0) }, makeDelivery: { value.delivery(to: $0) })
      let subscription = join(group, finish: finish) { id, flag in
        ValueSink(id: id, flag: flag, value: value, observer: observer, finish: finish)
      }
      if initial { observer(value.last) }
      return subscription
    }
  }

  /// Adds an observer of a selected value and calls it with the current value (unless not
  /// `initial`).
  ///
  /// - Parameters:
  ///   - select: Reads the value from a state and, when it changed since the last one, keeps it
  ///     and returns true; a selector's `select` evaluates it once for all its observers.
  ///   - current: Reads the value now, when no observer of `shareKey` keeps one.
  ///   - shareKey: What observers of the same value share one evaluation by; nil: none.
  ///   - range: The bytes of `State` the value depends on, when known.
  ///   - initial: Whether the observer is called at once with the current value.
  ///   - finish: Ends an async sequence fed by the observer when the store goes away.
  ///   - observer: Called with each new value.
  /// - Returns: The subscription.
  @inlinable
  func subscribe<Value: Sendable>(
    selecting select: @escaping @Sendable (UnsafePointer<State>, inout Value) -> Bool,
    current: (State) -> Value, shareKey: ShareKey?, range: Range<Int>?,
    initial: Bool, finish: (@Sendable () -> Void)? = nil,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    withTurn {
      let existing = shareKey.flatMap { key in
        fields.withLock {
          $0.setup.observers?.observers.groups.first { $0.shareKey == key }?.value
            as? SelectedValue<State, Value>
        }
      }
      let value =
        existing ?? SelectedValue(select: select, initial: current(local.pointee.state))
      let group = ScopedGroup<State>(
        value: value, shareKey: shareKey, range: range,
        refresh: { value.refresh(from: $0) }, makeDelivery: { value.delivery(to: $0) })
      let subscription = join(group, finish: finish) { id, flag in
        ValueSink(id: id, flag: flag, selected: value, observer: observer, finish: finish)
      }
      if initial { observer(value.last) }
      return subscription
    }
  }

  /// Adds a key-path sink to its group (made if new), holding the turn.
  @usableFromInline
  func join(
    _ group: ScopedGroup<State>, finish: (@Sendable () -> Void)?,
    sink makeSink: (UInt64, CancellationFlag) -> Sink<State>
  ) -> Subscription {
    let flag = CancellationFlag()
    let (id, isOpen) = fields.withLock { fields in
      let id = makeID(&fields)
      guard !fields.setup.closed else { return (id, false) }
      let sink = makeSink(id, flag)
      updateObservers(&fields) { observers in
        if let index = observers.groups.firstIndex(where: { $0.value === group.value }) {
          observers.groups[index].append(sink)
        } else {
          var group = group
          group.append(sink)
          observers.groups.append(group)
        }
      }
      return (id, true)
    }
    if !isOpen { finish?() }
    return makeSubscription(id: id, flag: flag)
  }

  private func makeSubscription(id: UInt64, flag: CancellationFlag) -> Subscription {
    Subscription(flag: flag) { [weak self] in
      guard let self else { return }
      let removed: Sink<State>? = self.fields.withLock { fields in
        self.updateObservers(&fields) { observers in
          let sink = observers.allSinks.first { $0.id == id }
          _ = observers.remove(id)
          return sink
        }
      }
      removed?.finish?()
    }
  }

  // MARK: Errors

  func makeErrorStream() -> AsyncStream<DispatchError> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: DispatchError.self, bufferingPolicy: .bufferingNewest(ErrorSequence.bufferLimit))
    let id: UInt64? = fields.withLock { fields in
      guard !fields.setup.closed else { return nil }
      let id = makeID(&fields)
      fields.errorSinks[id] = continuation
      return id
    }
    guard let id else {
      continuation.finish()
      return stream
    }
    continuation.onTermination = { [weak self] _ in
      guard let self else { return }
      _ = self.fields.withLock { $0.errorSinks.removeValue(forKey: id) }
    }
    return stream
  }
}

extension StoreCore {
  // MARK: Notifying

  /// Tells the observers of a committed action, holding the turn, in subscription order.
  ///
  /// Key-path groups outside `touched`, the bytes of the state the action's mutators may have
  /// changed (nil: unknown), are not even compared.
  @inlinable
  func notify(
    _ snapshot: ObserverSnapshot<State>?, action: any Action, old: UnsafePointer<State>?,
    touched: [Range<Int>]?
  ) {
    // Decided before the call that tells them, which copies its arguments first.
    let tracked = observationEnabled.load(ordering: .relaxed)
    guard tracked || snapshot != nil else { return }
    tell(snapshot, tracked: tracked, action: action, old: old, touched: touched)
  }

  /// Tells Observation (when `tracked`), then the observers, of a committed action.
  @inlinable
  func tell(
    _ snapshot: ObserverSnapshot<State>?, tracked: Bool, action: any Action,
    old: UnsafePointer<State>?, touched: [Range<Int>]?
  ) {
    // Holding the turn, this thread alone changes the state: it reads it without the lock, in
    // place (a copy of a large state costs more than telling its observers of one path).
    if let old, let isEqual, isEqual(old.pointee, local.pointee.state) { return }
    if tracked, let store {
      registrar.withMutation(of: store, keyPath: \.state) {}
    }
    guard let observers = snapshot?.observers, !observers.isEmpty else { return }
    var due: [[Sink<State>]] = []
    if !observers.whole.isEmpty { due.append(observers.whole) }
    if old != nil, !observers.changes.isEmpty { due.append(observers.changes) }
    // The one group that changed while no other observer is due, whose sinks are then not
    // gathered in `due`: making that array of lists cost about 350 instructions per action.
    var onlyGroup: Int?
    // Only the groups whose bytes the action's mutators touched, found by a binary search of
    // the groups by their bytes, and by index: a copy of each group would retain its closures
    // and sinks.
    observers.forEachCandidate(touched) { index in
      // By address: holding the turn, this thread alone changes the state, and no reducer runs
      // while observers are told.
      let changed = withUnsafePointer(to: &local.pointee.state) { state -> Bool in
        let snapshot = observers.groups[index].snapshot
        if let snapshot, snapshot.matches(state) { return false }
        let changed = observers.groups[index].refresh(state)
        // Only when the group kept the value it read: then its last value holds the references
        // among the recorded bytes (see `ByteSnapshot`).
        if changed { snapshot?.record(state) }
        return changed
      }
      guard changed else { return }
      if due.isEmpty, onlyGroup == nil {
        onlyGroup = index
        return
      }
      if let only = onlyGroup {
        due.append(observers.groups[only].sinks)
        onlyGroup = nil
      }
      due.append(observers.groups[index].sinks)
    }
    if let onlyGroup {
      // One value changed and nobody else is due: its group calls its observers with the value
      // it read once, each closure typed for it.
      observers.groups[onlyGroup].members.deliver()
      return
    }
    guard !due.isEmpty else { return }
    tell(due, action: action, old: old)
  }

  /// Tells the observers of several lists, in subscription order, of a committed action.
  @inlinable
  func tell(_ due: [[Sink<State>]], action: any Action, old: UnsafePointer<State>?) {
    let current = local.pointee.state
    var change: StateChange<State>?
    Self.inSubscriptionOrder(due) { sink in
      guard !sink.flag.isCancelled else { return }
      switch sink.delivery {
      case .state(let observer):
        observer(current)
      case .change(let observer):
        guard let old else { return }
        let value =
          change ?? StateChange(action: action, oldState: old.pointee, newState: current)
        change = value
        observer(value)
      case .value(let observer):
        observer()
      }
    }
  }

  /// Visits the sinks of several lists, each sorted by id, in increasing id order.
  @inlinable
  static func inSubscriptionOrder(_ lists: [[Sink<State>]], _ body: (Sink<State>) -> Void) {
    if lists.count == 1 {
      for sink in lists[0] { body(sink) }
      return
    }
    var positions = [Int](repeating: 0, count: lists.count)
    while true {
      var best: Int?
      for index in lists.indices where positions[index] < lists[index].count {
        let candidate = lists[index][positions[index]].id
        if let current = best, lists[current][positions[current]].id <= candidate { continue }
        best = index
      }
      guard let index = best else { return }
      body(lists[index][positions[index]])
      positions[index] += 1
    }
  }
}
