/// Adding and removing observers: in the store's turn, as every change of what a dispatch reads.
extension StoreCore {
  // MARK: Observers

  /// Adds an observer of a value: to the group that shares it, or a new group.
  ///
  /// - Returns: The subscription, and the value now.
  func observe<Value: Sendable>(
    _ select: @escaping @Sendable (State) -> Value,
    isDuplicate: (@Sendable (Value, Value) -> Bool)?,
    range: Range<Int>?, shareKey: AnyHashable?, initial: Bool,
    finish: (@Sendable () -> Void)? = nil,
    _ observer: @escaping @Sendable (Value) -> Void
  ) -> Subscription {
    withTurn {
      stopIfReducing("A reducer subscribed to the store.")
      let flag = CancellationFlag()
      let id = observers.makeID()
      let group: ValueGroup<State, Value>
      if let shareKey, let shared = observers.group(sharing: shareKey) as? ValueGroup<State, Value>
      {
        group = shared
      } else {
        group = ValueGroup(
          select: select, isDuplicate: isDuplicate, initial: select(reducer.state), range: range,
          shareKey: shareKey)
        if !agenda.isClosed { observers.add(group) }
      }
      if agenda.isClosed {
        finish?()
      } else {
        group.add(.init(id: id, flag: flag, observer: observer, finish: finish))
      }
      if initial { observer(group.last) }
      return makeSubscription(id: id, flag: flag)
    }
  }

  /// Adds an observer of every change, with the state before and after.
  func observeChanges(_ observer: @escaping @Sendable (StateChange<State>) -> Void)
    -> Subscription
  {
    withTurn {
      stopIfReducing("A reducer subscribed to the store.")
      let flag = CancellationFlag()
      let id = observers.makeID()
      if !agenda.isClosed {
        observers.add(ChangeGroup(id: id, flag: flag, isEqual: isEqual, observer: observer))
      }
      return makeSubscription(id: id, flag: flag)
    }
  }

  func makeSubscription(id: UInt64, flag: CancellationFlag) -> Subscription {
    Subscription(flag: flag) { [weak self] in
      guard let self else { return }
      let finish = self.withTurn { self.observers.remove(id) }
      finish?()
    }
  }
}
