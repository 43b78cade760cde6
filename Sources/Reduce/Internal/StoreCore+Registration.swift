/// Mutators and middleware joining and leaving, and the store's end: in the store's turn, so that
/// a dispatch sees the old or the new set, never half.
extension StoreCore {
  // MARK: Registration

  @usableFromInline
  func register(_ mutator: Mutator<State>) throws(RegistrationError) {
    try withTurn { () throws(RegistrationError) in
      // Validation reads the state through `Mirror`, which may run user code: in the turn.
      let entry = try registry.validate(mutator, state: reducer.state)
      plan = Plan(chain: chain, registry: registry.adding(entry))
    }
  }

  func unregister(_ key: MutatorKey) -> Bool {
    withTurn {
      guard let smaller = registry.removing(key) else { return false }
      plan = Plan(chain: chain, registry: smaller)
      return true
    }
  }

  @usableFromInline
  func use(_ middleware: any Middleware<State>) throws(RegistrationError) {
    let name = middleware.name
    if withTurn({ chain.names.contains(name) }) { throw .duplicateMiddleware(name) }
    do {
      try middleware.willAttach(to: storeID)
    } catch {
      throw .middlewareRefused(name: name, reason: String(describing: error))
    }
    let recording = middleware.commitObserver?.makeRecording(name, storeID, readState())
    let added = withTurn {
      guard !chain.names.contains(name) else { return false }
      let entry = Chain.Entry(name: name, middleware: middleware, recording: recording)
      plan = Plan(chain: Chain(chain.entries + [entry]), registry: registry)
      return true
    }
    if !added {
      middleware.didDetach(from: storeID)
      throw .duplicateMiddleware(name)
    }
  }

  func removeMiddleware(named name: String) -> Bool {
    let removed: (any Middleware<State>)? = withTurn {
      guard let index = chain.entries.firstIndex(where: { $0.name == name }) else { return nil }
      var entries = chain.entries
      let removed = entries.remove(at: index)
      plan = Plan(chain: Chain(entries), registry: registry)
      return removed.middleware
    }
    removed?.didDetach(from: storeID)
    return removed != nil
  }

  // MARK: Closing

  /// Ends the store: its middleware leave, its observers and error sequences finish, and a
  /// kept `next` or context from now on does nothing.
  ///
  /// The engine lets go of everything but its state: a kept `next` or context keeps the engine,
  /// and through it no middleware, mutator, observer or fallback.
  func close() {
    let (entries, finishes) = withTurn {
      agenda.close()
      let entries = chain.entries
      plan = Plan()
      fallback = nil
      return (entries, observers.removeAll())
    }
    for entry in entries { entry.middleware.didDetach(from: storeID) }
    for finish in finishes { finish() }
    errors.close()
  }
}
