extension StoreCore {
  // MARK: Mutators

  @usableFromInline
  func register(_ mutator: Mutator<State>) throws(RegistrationError) {
    while true {
      let snapshot = fields.withLock { $0.setup.registry }
      // Validation reads the state through `Mirror`, which may run user code: not under the lock.
      let entry = try snapshot.validate(mutator, state: readState())
      let swapped = fields.withLock { fields in
        guard fields.setup.registry === snapshot else { return false }
        changeSetup(&fields) { $0.changeMutators(to: snapshot.adding(entry)) }
        return true
      }
      if swapped { return }
    }
  }

  func unregister(_ key: MutatorKey) -> Bool {
    fields.withLock { fields in
      guard let smaller = fields.setup.registry.removing(key) else { return false }
      changeSetup(&fields) { $0.changeMutators(to: smaller) }
      return true
    }
  }

  var mutatorKeys: [MutatorKey] { fields.withLock { $0.setup.registry.keys } }

  func validateCoverage() throws(RegistrationError) {
    let state = readState()
    let covered = Set(
      fields.withLock { $0.setup.registry.entries }.flatMap(\.topLevelProperties))
    let missing = Mirror(reflecting: state).children.compactMap { child -> String? in
      guard let label = child.label, !covered.contains(label) else { return nil }
      return PropertyPath.isZeroSized(child.value) ? nil : label
    }
    if !missing.isEmpty { throw .missingMutators(missing) }
  }

  // MARK: Middleware

  @usableFromInline
  func use(_ middleware: any Middleware<State>) throws(RegistrationError) {
    let name = middleware.name
    let taken = fields.withLock { $0.setup.plans.chain.contains { $0.name == name } }
    if taken { throw .duplicateMiddleware(name) }
    do {
      try middleware.willAttach(to: identifier)
    } catch {
      throw .middlewareRefused(name: name, reason: String(describing: error))
    }
    let added = fields.withLock { fields in
      let chain = fields.setup.plans.chain
      guard !chain.contains(where: { $0.name == name }) else { return false }
      // A new chain: every action type is planned again.
      changeSetup(&fields) {
        $0.plans = ChainPlans(chain: chain + [MiddlewareEntry(name: name, middleware: middleware)])
      }
      return true
    }
    if !added {
      middleware.didDetach(from: identifier)
      throw .duplicateMiddleware(name)
    }
  }

  func removeMiddleware(named name: String) -> Bool {
    let removed: MiddlewareEntry<State>? = fields.withLock { fields in
      var chain = fields.setup.plans.chain
      guard let index = chain.firstIndex(where: { $0.name == name }) else { return nil }
      let removed = chain.remove(at: index)
      changeSetup(&fields) { $0.plans = ChainPlans(chain: chain) }
      return removed
    }
    removed?.middleware.didDetach(from: identifier)
    return removed != nil
  }

  var middlewareNames: [String] { fields.withLock { $0.setup.plans.chain.map(\.name) } }
}
