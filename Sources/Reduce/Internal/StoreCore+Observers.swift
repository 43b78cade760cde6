extension StoreCore {
  /// Changes the observers; the lock must be held.
  private func updateObserversLocked<R>(_ body: (inout Observers<State>) -> R) -> R {
    var observers = fields.pointee.observers?.observers ?? Observers()
    let result = body(&observers)
    fields.pointee.observers = observers.isEmpty ? nil : ObserverSnapshot(observers)
    return result
  }

  /// Adds a whole-state observer and calls it with the current state, holding the turn so that
  /// it sees every later change exactly once.
  func subscribe(
    _ observer: @escaping @Sendable (State) -> Void, finish: (@Sendable () -> Void)? = nil
  ) -> Subscription {
    withTurn {
      let flag = CancellationFlag()
      let (id, state, isOpen) = lock.withLock {
        let id = makeIDLocked()
        let closed = fields.pointee.closed
        if !closed {
          updateObserversLocked {
            $0.whole.append(Sink(id: id, flag: flag, delivery: .state(observer), finish: finish))
          }
        }
        return (id, committedStateLocked(), !closed)
      }
      observer(state)
      if !isOpen { finish?() }
      return makeSubscription(id: id, flag: flag)
    }
  }

  /// Adds an observer of every change, with the action that made it.
  func subscribeToChanges(_ observer: @escaping @Sendable (StateChange<State>) -> Void)
    -> Subscription
  {
    let flag = CancellationFlag()
    let id = lock.withLock {
      let id = makeIDLocked()
      if !fields.pointee.closed {
        updateObserversLocked {
          $0.changes.append(Sink(id: id, flag: flag, delivery: .change(observer), finish: nil))
        }
      }
      return id
    }
    return makeSubscription(id: id, flag: flag)
  }

  /// Adds an observer of the value at a key path and calls it with the current value.
  ///
  /// Inlinable so that the comparison and the delivery are specialised for `Value`.
  @inlinable
  func subscribe<Value: Equatable & Sendable>(
    to path: KeyPath<State, Value> & Sendable,
    finish: (@Sendable () -> Void)? = nil,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    withTurn {
      // Holding the turn, the committed state cannot change under us.
      let existing = lock.withLock {
        fields.pointee.observers?.observers.groups.first { $0.keyPath == path }?.value
          as? KeyPathValue<State, Value>
      }
      let offset = MemoryLayout<State>.offset(of: path)
      let value =
        existing
        ?? KeyPathValue(path: path, offset: offset, initial: readState()[keyPath: path])
      let group = ScopedGroup<State>(
        value: value, keyPath: path,
        range: offset.map { $0..<($0 + MemoryLayout<Value>.size) },
        refresh: { value.refresh(from: $0) }, deliver: { value.deliver(to: $0) }, sinks: [])
      let subscription = join(group, finish: finish) { id, flag in
        ValueSink(id: id, flag: flag, value: value, observer: observer, finish: finish)
      }
      observer(value.last)
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
    let (id, isOpen) = lock.withLock {
      let id = makeIDLocked()
      guard !fields.pointee.closed else { return (id, false) }
      let sink = makeSink(id, flag)
      updateObserversLocked { observers in
        if let index = observers.groups.firstIndex(where: { $0.value === group.value }) {
          observers.groups[index].sinks.append(sink)
        } else {
          var group = group
          group.sinks = [sink]
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
      let removed: Sink<State>? = self.lock.withLock {
        self.updateObserversLocked { observers in
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
    let id: UInt64? = lock.withLock {
      guard !fields.pointee.closed else { return nil }
      let id = makeIDLocked()
      fields.pointee.errorSinks[id] = continuation
      return id
    }
    guard let id else {
      continuation.finish()
      return stream
    }
    continuation.onTermination = { [weak self] _ in
      guard let self else { return }
      _ = self.lock.withLock { self.fields.pointee.errorSinks.removeValue(forKey: id) }
    }
    return stream
  }
}
