public import Reduce

/// The ledger's operations, over a Reduce store: what the HTTP API calls, and what tests call
/// without HTTP.
///
/// Each change is one ``LedgerAction`` sent to the store with `send(_:returning:)`, which
/// answers with what the request needs (a balance), read in the store's turn right after the
/// action: the handler keeps no copy of the ledger, so the next change of another request does
/// not copy the accounts dictionary. When the store's journal is durable, a change returns once
/// its entry is on disk.
///
/// A change needs a principal: the book reads ``Principal/current`` in the caller's task and
/// records it in the action (`by`).
public final class LedgerBook: Sendable {
  /// The largest amount one request may move.
  public static let maximumAmount = 1_000_000_000_000
  /// The longest account identifier, in characters.
  public static let maximumAccountIDLength = 64

  /// The store holding the ledger.
  public let store: Store<Ledger>

  /// Creates a book over a store whose mutators include ``Ledger/mutator(historyLimit:)``.
  ///
  /// - Parameter store: The store, usually from ``LedgerJournal/open(historyLimit:)``.
  public init(store: Store<Ledger>) {
    self.store = store
  }

  /// Pays money into an account, opening it if it does not exist.
  ///
  /// - Parameters:
  ///   - amount: The amount, from 1 to ``maximumAmount``.
  ///   - account: The account.
  /// - Returns: The account's balance after the deposit.
  /// - Throws: A ``LedgerError``: the input is invalid, there is no principal, the balance
  ///   would overflow, or the journal failed.
  public func deposit(_ amount: Int, into account: String) async throws(LedgerError)
    -> AccountBalance
  {
    let account = try Self.validated(account: account)
    let action = LedgerAction.deposited(
      account: account, amount: try Self.validated(amount: amount), by: try Self.principal())
    return try await send(action) { $0.balance(of: account) }
  }

  /// Takes money out of an account.
  ///
  /// - Parameters:
  ///   - amount: The amount, from 1 to ``maximumAmount``.
  ///   - account: The account.
  /// - Returns: The account's balance after the withdrawal.
  /// - Throws: ``LedgerError/overdraft(account:balance:requested:)`` when the account holds
  ///   less, ``LedgerError/unknownAccount(_:)``, or another ``LedgerError``.
  public func withdraw(_ amount: Int, from account: String) async throws(LedgerError)
    -> AccountBalance
  {
    let account = try Self.validated(account: account)
    let action = LedgerAction.withdrew(
      account: account, amount: try Self.validated(amount: amount), by: try Self.principal())
    return try await send(action) { $0.balance(of: account) }
  }

  /// Moves money from one account to another, both of which must exist.
  ///
  /// - Parameters:
  ///   - amount: The amount, from 1 to ``maximumAmount``.
  ///   - source: The account the money leaves.
  ///   - destination: The account the money reaches.
  ///   - reference: The client's reference for the transfer, recorded with it (1 to 128
  ///     characters), if it gives one.
  /// - Returns: Both balances after the transfer.
  /// - Throws: ``LedgerError/overdraft(account:balance:requested:)`` when `source` holds
  ///   less, ``LedgerError/unknownAccount(_:)``, ``LedgerError/sameAccount(_:)``, or another
  ///   ``LedgerError``.
  public func transfer(
    _ amount: Int, from source: String, to destination: String, reference: String? = nil
  ) async throws(LedgerError) -> TransferReceipt {
    let source = try Self.validated(account: source)
    let destination = try Self.validated(account: destination)
    if source == destination { throw .sameAccount(source) }
    if let reference {
      guard !reference.isEmpty, reference.count <= 128,
        !reference.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
      else { throw .invalidReference(reference) }
    }
    let action = LedgerAction.transferred(
      from: source, to: destination, amount: try Self.validated(amount: amount),
      reference: reference, by: try Self.principal())
    return try await send(action) { ledger in
      TransferReceipt(
        from: ledger.balance(of: source), to: ledger.balance(of: destination), amount: amount,
        reference: reference)
    }
  }

  /// The balance of an account.
  ///
  /// - Parameter account: The account.
  /// - Returns: Its balance.
  /// - Throws: ``LedgerError/unknownAccount(_:)`` or ``LedgerError/invalidAccountID(_:)``.
  public func balance(of account: String) throws(LedgerError) -> AccountBalance {
    let account = try Self.validated(account: account)
    guard let found = store.state.accounts[account] else { throw .unknownAccount(account) }
    return AccountBalance(account: account, balance: found.balance)
  }

  /// The latest changes of an account, oldest first: at most the history limit the store's
  /// mutator keeps (the whole record is the journal).
  ///
  /// - Parameter account: The account.
  /// - Returns: Its history.
  /// - Throws: ``LedgerError/unknownAccount(_:)`` or ``LedgerError/invalidAccountID(_:)``.
  public func history(of account: String) throws(LedgerError) -> AccountHistory {
    let account = try Self.validated(account: account)
    guard let found = store.state.accounts[account] else { throw .unknownAccount(account) }
    return AccountHistory(
      account: account, balance: found.balance, changes: found.changes, entries: found.history)
  }

  /// Sends an action and reads the answer in the store's turn, or throws the ledger's error.
  private func send<Value: Sendable>(
    _ action: LedgerAction, returning read: @escaping @Sendable (Ledger) -> Value
  ) async throws(LedgerError) -> Value {
    switch await store.send(action, returning: read) {
    case .success(let value): return value
    case .failure(let error): throw Self.ledgerError(error)
    }
  }

  /// The ledger's error for a failed dispatch: a refusal of the mutator's checks, or the
  /// journal's failure.
  static func ledgerError(_ error: DispatchError) -> LedgerError {
    switch error {
    case .reducerFailed(_, _, let underlying as LedgerError):
      return underlying
    case .reducerFailed(_, _, let underlying), .rejected(_, _, let underlying),
      .middlewareFailed(_, _, let underlying):
      return .journalFailed(reason: "\(underlying)")
    }
  }

  private static func principal() throws(LedgerError) -> String {
    guard let principal = Principal.current else { throw .missingPrincipal }
    return try Principal.validated(principal)
  }

  /// Checks an account identifier: 1 to 64 ASCII letters, digits, `-`, `_` or `.`.
  static func validated(account: String) throws(LedgerError) -> String {
    guard !account.isEmpty, account.utf8.count <= maximumAccountIDLength,
      account.utf8.allSatisfy({ byte in
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
          UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
          UInt8(ascii: "."):
          true
        default: false
        }
      })
    else { throw .invalidAccountID(account) }
    return account
  }

  private static func validated(amount: Int) throws(LedgerError) -> Int {
    guard amount >= 1, amount <= maximumAmount else { throw .invalidAmount(amount) }
    return amount
  }
}

/// An account's balance: the answer to a deposit, a withdrawal or a balance request.
public struct AccountBalance: Codable, Equatable, Sendable {
  /// The account.
  public var account: String
  /// Its balance.
  public var balance: Int

  /// Creates an account balance.
  ///
  /// - Parameters:
  ///   - account: The account.
  ///   - balance: Its balance.
  public init(account: String, balance: Int) {
    self.account = account
    self.balance = balance
  }
}

/// The answer to a transfer: both balances after it.
public struct TransferReceipt: Codable, Equatable, Sendable {
  /// The account the money left, and its balance.
  public var from: AccountBalance
  /// The account the money reached, and its balance.
  public var to: AccountBalance
  /// The amount moved.
  public var amount: Int
  /// The client's reference, if it gave one.
  public var reference: String?
}

/// An account's latest changes: the answer to a history request.
public struct AccountHistory: Codable, Equatable, Sendable {
  /// The account.
  public var account: String
  /// Its balance.
  public var balance: Int
  /// How many changes it has had in all; `entries` holds the latest of them.
  public var changes: Int
  /// The latest changes, oldest first.
  public var entries: [HistoryEntry]
}

extension Ledger {
  /// The balance of an account that exists (zero for one that does not).
  fileprivate func balance(of account: String) -> AccountBalance {
    AccountBalance(account: account, balance: accounts[account]?.balance ?? 0)
  }
}
