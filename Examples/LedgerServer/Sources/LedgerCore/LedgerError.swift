/// Why the ledger refused a request: the typed error a ``LedgerBook`` throws and the HTTP API
/// answers with, as a JSON body whose `error` member names the case.
///
/// ```json
/// {"error":"overdraft","message":"account ada has 20, 50 was asked for","account":"ada","balance":20,"requested":50}
/// ```
public enum LedgerError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The request body is not the JSON the endpoint takes; `reason` says what is wrong.
  case badRequest(reason: String)
  /// The request body is larger than the endpoint takes.
  case payloadTooLarge(limit: Int)
  /// An amount is zero, negative, or above ``LedgerBook/maximumAmount``.
  case invalidAmount(Int)
  /// An account identifier is empty, too long, or has characters other than letters, digits,
  /// `-`, `_` and `.`.
  case invalidAccountID(String)
  /// A transfer names the same account twice.
  case sameAccount(String)
  /// A transfer's reference is empty or longer than 128 characters.
  case invalidReference(String)
  /// A change was asked for with no principal (the `X-Principal` header).
  case missingPrincipal
  /// The principal is empty, too long, or has control characters.
  case invalidPrincipal(String)
  /// No account has this identifier.
  case unknownAccount(String)
  /// The account holds less than was asked for.
  case overdraft(account: String, balance: Int, requested: Int)
  /// The change would take the account's balance past `Int.max`.
  case balanceLimit(account: String)
  /// The journal could not record the change, so it was not made (or, when its disk flush
  /// failed, made but not known to be on disk); `reason` is the journal's error.
  case journalFailed(reason: String)

  /// The name of the case, as the `error` member of the JSON body.
  public var code: String {
    switch self {
    case .badRequest: "badRequest"
    case .payloadTooLarge: "payloadTooLarge"
    case .invalidAmount: "invalidAmount"
    case .invalidAccountID: "invalidAccountID"
    case .sameAccount: "sameAccount"
    case .invalidReference: "invalidReference"
    case .missingPrincipal: "missingPrincipal"
    case .invalidPrincipal: "invalidPrincipal"
    case .unknownAccount: "unknownAccount"
    case .overdraft: "overdraft"
    case .balanceLimit: "balanceLimit"
    case .journalFailed: "journalFailed"
    }
  }

  /// The HTTP status the API answers with.
  public var status: Int {
    switch self {
    case .badRequest, .invalidAmount, .invalidAccountID, .sameAccount, .invalidReference,
      .invalidPrincipal:
      400
    case .missingPrincipal: 401
    case .unknownAccount: 404
    case .overdraft, .balanceLimit: 409
    case .payloadTooLarge: 413
    case .journalFailed: 503
    }
  }

  /// A sentence saying what went wrong.
  public var description: String {
    switch self {
    case .badRequest(let reason): "the request body is not valid: \(reason)"
    case .payloadTooLarge(let limit): "the request body is larger than \(limit) bytes"
    case .invalidAmount(let amount):
      "the amount \(amount) is not between 1 and \(LedgerBook.maximumAmount)"
    case .invalidAccountID(let id):
      "\(Self.quoted(id)) is not an account identifier (1 to 64 letters, digits, '-', '_' or '.')"
    case .sameAccount(let id): "a transfer from account \(id) to itself"
    case .invalidReference(let reference):
      "\(Self.quoted(reference)) is not a reference (1 to 128 characters, no control characters)"
    case .missingPrincipal: "a change needs a principal: send the X-Principal header"
    case .invalidPrincipal(let principal):
      "\(Self.quoted(principal)) is not a principal (1 to 64 characters, no control characters)"
    case .unknownAccount(let id): "there is no account \(id)"
    case .overdraft(let account, let balance, let requested):
      "account \(account) has \(balance), \(requested) was asked for"
    case .balanceLimit(let account): "the balance of account \(account) would overflow"
    case .journalFailed(let reason): "the journal could not record the change: \(reason)"
    }
  }

  private static func quoted(_ text: String) -> String {
    text.count > 80 ? "\"\(text.prefix(80))…\"" : "\"\(text)\""
  }
}

extension LedgerError: Encodable {
  private enum CodingKeys: String, CodingKey {
    case error, message, account, balance, requested, amount, limit
  }

  /// Encodes the error as the API's error body: `error` (the ``code``), `message` (the
  /// ``description``), and the case's values.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: The encoder's error.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(code, forKey: .error)
    try container.encode(description, forKey: .message)
    switch self {
    case .overdraft(let account, let balance, let requested):
      try container.encode(account, forKey: .account)
      try container.encode(balance, forKey: .balance)
      try container.encode(requested, forKey: .requested)
    case .unknownAccount(let account), .sameAccount(let account),
      .balanceLimit(let account):
      try container.encode(account, forKey: .account)
    case .invalidAmount(let amount):
      try container.encode(amount, forKey: .amount)
    case .payloadTooLarge(let limit):
      try container.encode(limit, forKey: .limit)
    case .badRequest, .invalidAccountID, .invalidReference, .missingPrincipal, .invalidPrincipal,
      .journalFailed:
      break
    }
  }
}
