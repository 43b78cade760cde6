public import Reduce

/// A change of a ``Ledger``: what the journal records, one entry per action.
///
/// Each case names who asked for it (`by`, the request's ``Principal``), so that the audit
/// trail's entry, which records the action's payload exactly, says who made each change:
///
/// ```json
/// {"seq":7,"prev":"…","ts":"…","action":"LedgerAction",
///  "payload":{"deposited":{"account":"ada","amount":80,"by":"teller-1"}},"outcome":"ok",…}
/// ```
public enum LedgerAction: Action, Codable, Equatable {
  /// Money was paid into an account, which it opens if it did not exist.
  case deposited(account: String, amount: Int, by: String)
  /// Money was taken out of an account.
  case withdrew(account: String, amount: Int, by: String)
  /// Money moved from one account to another; `reference` is the client's, if it gave one.
  case transferred(from: String, to: String, amount: Int, reference: String?, by: String)
}
