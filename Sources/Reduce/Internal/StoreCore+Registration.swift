extension StoreCore {
  // MARK: Mutators

  func register(_ mutator: Mutator<State>) throws(RegistrationError) {
    while true {
      let snapshot = lock.withLock { fields.pointee.registry }
      // Validation reads the state through `Mirror`, which may run user code: not under the lock.
      let entry = try snapshot.validate(mutator, state: readState())
      let swapped = lock.withLock {
        guard fields.pointee.registry === snapshot else { return false }
        fields.pointee.registry = snapshot.adding(entry)
        return true
      }
      if swapped { return }
    }
  }

  func unregister(_ key: MutatorKey) -> Bool {
    lock.withLock {
      guard let smaller = fields.pointee.registry.removing(key) else { return false }
      fields.pointee.registry = smaller
      return true
    }
  }

  var mutatorKeys: [MutatorKey] { lock.withLock { fields.pointee.registry.keys } }

  func validateCoverage() throws(RegistrationError) {
    let state = readState()
    let covered = Set(
      lock.withLock { fields.pointee.registry.entries }.compactMap(\.topLevelProperty))
    let missing = Mirror(reflecting: state).children.compactMap { child -> String? in
      guard let label = child.label, !covered.contains(label) else { return nil }
      return PropertyPath.isZeroSized(child.value) ? nil : label
    }
    if !missing.isEmpty { throw .missingMutators(missing) }
  }

  // MARK: Middleware

  func use(_ middleware: any Middleware<State>) throws(RegistrationError) {
    let name = middleware.name
    let taken = lock.withLock { fields.pointee.plans.chain.contains { $0.name == name } }
    if taken { throw .duplicateMiddleware(name) }
    do {
      try middleware.willAttach(to: identifier)
    } catch {
      throw .middlewareRefused(name: name, reason: String(describing: error))
    }
    let added = lock.withLock {
      let chain = fields.pointee.plans.chain
      guard !chain.contains(where: { $0.name == name }) else { return false }
      // A new chain: every action type is planned again.
      fields.pointee.plans = ChainPlans(
        chain: chain + [MiddlewareEntry(name: name, middleware: middleware)])
      return true
    }
    if !added {
      middleware.didDetach(from: identifier)
      throw .duplicateMiddleware(name)
    }
  }

  func removeMiddleware(named name: String) -> Bool {
    let removed: MiddlewareEntry<State>? = lock.withLock {
      var chain = fields.pointee.plans.chain
      guard let index = chain.firstIndex(where: { $0.name == name }) else { return nil }
      let removed = chain.remove(at: index)
      fields.pointee.plans = ChainPlans(chain: chain)
      return removed
    }
    removed?.middleware.didDetach(from: identifier)
    return removed != nil
  }

  var middlewareNames: [String] { lock.withLock { fields.pointee.plans.chain.map(\.name) } }
}
