public import Reduce

/// The ledger a ``LedgerBook`` keeps: every account's balance and its latest changes.
///
/// It is the state of the book's store, and what a replay of the journal rebuilds: the history
/// is part of it, so that it too comes back after a restart.
public struct Ledger: Codable, Sendable {
  /// The accounts, by identifier.
  public var accounts: [String: Account] = [:]

  /// Creates an empty ledger.
  public init() {}
}

/// One account of a ``Ledger``.
public struct Account: Codable, Equatable, Sendable {
  /// The balance.
  public var balance: Int = 0
  /// How many changes the account has had; the `number` of its latest ``HistoryEntry``.
  public var changes: Int = 0
  /// The latest changes, oldest first: at most the ``Ledger`` mutator's `historyLimit`.
  public var history: [HistoryEntry] = []

  /// Creates an account with no balance and no history.
  public init() {}
}

/// One change of an account, as its history lists it.
public struct HistoryEntry: Codable, Equatable, Sendable {
  /// What changed an account's balance.
  public enum Kind: String, Codable, Sendable {
    /// Money paid in.
    case deposit
    /// Money taken out.
    case withdrawal
    /// Money received from another account.
    case transferIn
    /// Money sent to another account.
    case transferOut
  }

  /// The change's number in the account's history: 1 for its first change.
  public var number: Int
  /// What the change was.
  public var kind: Kind
  /// The amount, always positive.
  public var amount: Int
  /// The other account of a transfer.
  public var counterparty: String?
  /// The client's reference of a transfer, when it gave one.
  public var reference: String?
  /// Who asked for the change.
  public var principal: String
  /// The balance after the change.
  public var balance: Int

  /// Creates a history entry.
  ///
  /// - Parameters:
  ///   - number: The change's number in the account's history.
  ///   - kind: What the change was.
  ///   - amount: The amount.
  ///   - counterparty: The other account of a transfer.
  ///   - reference: The client's reference of a transfer.
  ///   - principal: Who asked for the change.
  ///   - balance: The balance after the change.
  public init(
    number: Int, kind: Kind, amount: Int, counterparty: String? = nil, reference: String? = nil,
    principal: String, balance: Int
  ) {
    self.number = number
    self.kind = kind
    self.amount = amount
    self.counterparty = counterparty
    self.reference = reference
    self.principal = principal
    self.balance = balance
  }
}

extension Ledger {
  /// How many history entries an account keeps unless told otherwise.
  public static let defaultHistoryLimit = 100

  /// The mutator of a ledger's accounts: checks each ``LedgerAction`` against the balances,
  /// then applies it in place.
  ///
  /// `validate` refuses an action that names an unknown account (a deposit opens its account),
  /// would overdraw one, or would take a balance past `Int.max`; a refused action changes
  /// nothing. `reduce` cannot fail, so the store keeps no copy of the accounts to roll back to:
  /// a dispatch costs the same with ten accounts or a million.
  ///
  /// - Parameter historyLimit: How many entries each account's history keeps (at least 1).
  /// - Returns: The mutator, keyed `\Ledger.accounts`.
  public static func mutator(historyLimit: Int = defaultHistoryLimit) -> Mutator<Ledger> {
    let limit = max(1, historyLimit)
    return Mutator(
      \Ledger.accounts,
      validate: { (accounts: [String: Account], action: LedgerAction) throws(LedgerError) in
        try check(action, against: accounts)
      },
      reduce: { accounts, action in
        apply(action, to: &accounts, historyLimit: limit)
      })
  }

  /// Throws the reason `action` cannot be applied to `accounts`, if there is one.
  static func check(_ action: LedgerAction, against accounts: [String: Account])
    throws(LedgerError)
  {
    switch action {
    case .deposited(let account, let amount, _):
      let balance = accounts[account]?.balance ?? 0
      if balance.addingReportingOverflow(amount).overflow {
        throw .balanceLimit(account: account)
      }
    case .withdrew(let account, let amount, _):
      guard let balance = accounts[account]?.balance else {
        throw .unknownAccount(account)
      }
      if balance < amount {
        throw .overdraft(account: account, balance: balance, requested: amount)
      }
    case .transferred(let from, let to, let amount, _, _):
      guard let source = accounts[from]?.balance else { throw .unknownAccount(from) }
      guard let destination = accounts[to]?.balance else { throw .unknownAccount(to) }
      if from == to { throw .sameAccount(from) }
      if source < amount {
        throw .overdraft(account: from, balance: source, requested: amount)
      }
      if destination.addingReportingOverflow(amount).overflow {
        throw .balanceLimit(account: to)
      }
    }
  }

  /// Applies an action that ``check(_:against:)`` accepted.
  static func apply(_ action: LedgerAction, to accounts: inout [String: Account], historyLimit: Int)
  {
    switch action {
    case .deposited(let account, let amount, let principal):
      accounts[account, default: Account()].record(
        .deposit, amount: amount, change: amount, principal: principal, limit: historyLimit)
    case .withdrew(let account, let amount, let principal):
      accounts[account, default: Account()].record(
        .withdrawal, amount: amount, change: -amount, principal: principal, limit: historyLimit)
    case .transferred(let from, let to, let amount, let reference, let principal):
      accounts[from, default: Account()].record(
        .transferOut, amount: amount, change: -amount, counterparty: to, reference: reference,
        principal: principal, limit: historyLimit)
      accounts[to, default: Account()].record(
        .transferIn, amount: amount, change: amount, counterparty: from, reference: reference,
        principal: principal, limit: historyLimit)
    }
  }
}

extension Account {
  /// Changes the balance by `change` and appends the change to the history, dropping the oldest
  /// entry past `limit`.
  fileprivate mutating func record(
    _ kind: HistoryEntry.Kind, amount: Int, change: Int, counterparty: String? = nil,
    reference: String? = nil, principal: String, limit: Int
  ) {
    balance += change
    changes += 1
    if history.count >= limit { history.removeFirst(history.count - limit + 1) }
    history.append(
      HistoryEntry(
        number: changes, kind: kind, amount: amount, counterparty: counterparty,
        reference: reference, principal: principal, balance: balance))
  }
}
