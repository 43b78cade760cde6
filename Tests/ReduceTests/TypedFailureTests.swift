import Reduce
import Testing

/// `DispatchError.underlying(as:)` and `Result.failure(as:)`: the thrower's own error type at the
/// call site, without a cast.
@Suite struct TypedFailureTests {
  struct Ledger: Equatable, Sendable {
    var balances: [String: Int] = [:]
  }

  enum LedgerAction: Action {
    case deposited(String, Int)
    case withdrew(String, Int)
    case closed(String)
  }

  enum LedgerError: Error, Equatable {
    case insufficientFunds(account: String, missing: Int)
  }

  struct ClosingForbidden: Error, Equatable {
    var account: String
  }

  static let balances = Mutator(
    \Ledger.balances,
    validate: { (balances: [String: Int], action: LedgerAction) throws(LedgerError) in
      if case .withdrew(let account, let amount) = action,
        balances[account, default: 0] < amount
      {
        throw .insufficientFunds(account: account, missing: amount - balances[account, default: 0])
      }
    },
    reduce: { balances, action in
      switch action {
      case .deposited(let account, let amount): balances[account, default: 0] += amount
      case .withdrew(let account, let amount): balances[account, default: 0] -= amount
      case .closed(let account): balances[account] = nil
      }
    })

  /// Refuses to close an account.
  static let keeper = AnyMiddleware<Ledger>(name: "keeper") { action, _, next in
    if case LedgerAction.closed(let account) = action { throw ClosingForbidden(account: account) }
    try next(action)
  }

  func makeLedger() throws -> Store<Ledger> {
    let store = try Store(
      initialState: Ledger(), mutators: [Self.balances], middleware: [Self.keeper])
    store.dispatch(LedgerAction.deposited("ada", 100))
    return store
  }

  @Test("a validate: closure's typed error comes back as its own type")
  func validatorError() throws {
    let store = try makeLedger()
    let result = store.dispatch(LedgerAction.withdrew("ada", 150))
    #expect(result.failure(as: LedgerError.self) == .insufficientFunds(account: "ada", missing: 50))
    let error = try #require(result.failure(as: DispatchError.self))
    #expect(
      error.underlying(as: LedgerError.self) == .insufficientFunds(account: "ada", missing: 50))
    #expect(store.state.balances == ["ada": 100])
  }

  @Test("a middleware's rejection comes back as the middleware's error type")
  func middlewareRejection() throws {
    let store = try makeLedger()
    let result = store.dispatch(LedgerAction.closed("ada"))
    #expect(result.failure(as: ClosingForbidden.self) == ClosingForbidden(account: "ada"))
    guard case .failure(let error) = result, case .rejected(by: "keeper", _, _) = error else {
      Issue.record("expected a rejection by keeper, got \(result)")
      return
    }
    #expect(error.underlying(as: ClosingForbidden.self)?.account == "ada")
  }

  @Test("another error type, or a success, gives nil")
  func nonMatching() throws {
    let store = try makeLedger()
    let refused = store.dispatch(LedgerAction.withdrew("ada", 150))
    #expect(refused.failure(as: ClosingForbidden.self) == nil)
    #expect(store.dispatch(LedgerAction.closed("ada")).failure(as: LedgerError.self) == nil)
    let succeeded = store.dispatch(LedgerAction.withdrew("ada", 10))
    #expect(succeeded.failure(as: LedgerError.self) == nil)
    #expect(succeeded.failure(as: DispatchError.self) == nil)
  }

  @Test("the cause of a nested DispatchError is looked at in turn")
  func nestedCause() {
    let inner = DispatchError.reducerFailed(
      key: "balances", action: LedgerAction.withdrew("ada", 1),
      underlying: LedgerError.insufficientFunds(account: "ada", missing: 1))
    let outer = DispatchError.rejected(
      by: "relay", action: LedgerAction.withdrew("ada", 1), underlying: inner)
    #expect(
      outer.underlying(as: LedgerError.self) == .insufficientFunds(account: "ada", missing: 1))
    #expect(outer.underlying(as: DispatchError.self)?.failedKey == "balances")
    #expect(outer.underlying(as: ClosingForbidden.self) == nil)
  }

  @Test("store.errors consumers get the typed error too", .timeLimit(.minutes(1)))
  func errorsSequence() async throws {
    let store = try makeLedger()
    var iterator = store.errors.makeAsyncIterator()
    store.dispatch(LedgerAction.withdrew("ada", 101))
    store.dispatch(LedgerAction.closed("ada"))
    let first = try #require(await iterator.next())
    let second = try #require(await iterator.next())
    #expect(
      first.underlying(as: LedgerError.self) == .insufficientFunds(account: "ada", missing: 1))
    #expect(first.underlying(as: ClosingForbidden.self) == nil)
    #expect(second.underlying(as: ClosingForbidden.self) == ClosingForbidden(account: "ada"))
  }
}
