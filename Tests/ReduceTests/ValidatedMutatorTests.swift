import Reduce
import Testing

/// Withdrawals from a balance, refused when they would overdraw it.
struct Withdraw: Action {
  var amount: Int
}

struct Overdraft: Error, Equatable {}

/// `validate:` and `reduce:`: a handler that checks before it changes, with nothing to roll back.
@Suite struct ValidatedMutatorTests {
  let balance = Mutator(
    \TestState.counter,
    validate: { (balance: Int, action: Withdraw) throws(Overdraft) in
      if action.amount > balance { throw Overdraft() }
    },
    reduce: { balance, action in balance -= action.amount })

  @Test("a check that passes lets the change through; one that throws refuses it")
  func checkThenChange() throws {
    let ledger = try makeStore(mutators: [balance.on(Increment.self) { $0 += $1.by }])
    ledger.dispatch(Increment(by: 100))
    #expect(try ledger.dispatch(Withdraw(amount: 60)).get().counter == 40)
    let refused = ledger.dispatch(Withdraw(amount: 60))
    guard case .failure(.reducerFailed(let key, _, let underlying)) = refused else {
      Issue.record("expected reducerFailed, got \(refused)")
      return
    }
    #expect(key == balance.key)
    #expect(underlying as? Overdraft == Overdraft())
    #expect(ledger.state.counter == 40)
  }

  @Test("every check of an action runs before any handler changes the state")
  func checksBeforeChanges() throws {
    let appendChecked = Mutator(
      \TestState.items,
      validate: { (items: [Int], action: Withdraw) throws(Overdraft) in
        if items.count >= 1 { throw Overdraft() }
      },
      reduce: { items, action in items.append(action.amount) })
    let store = try makeStore(
      mutators: [balance.on(Increment.self) { $0 += $1.by }, appendChecked])
    store.dispatch(Increment(by: 10))
    store.dispatch(Withdraw(amount: 1))
    #expect(store.state.counter == 9 && store.state.items == [1])
    // The balance's check passes, the items' check refuses: neither changes.
    #expect(throws: DispatchError.self) { try store.dispatch(Withdraw(amount: 2)).get() }
    #expect(store.state.counter == 9 && store.state.items == [1])
  }

  @Test("a batch with a refused action changes nothing")
  func batchRollsBack() throws {
    let store = try makeStore(mutators: [balance.on(Increment.self) { $0 += $1.by }])
    store.dispatch(Increment(by: 100))
    #expect(throws: DispatchError.self) {
      try store.dispatch(Batch([Withdraw(amount: 60), Withdraw(amount: 60)])).get()
    }
    #expect(store.state.counter == 100)
  }
}
