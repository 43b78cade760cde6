// Writes an audit log with the real AuditTrail, for Scripts/inspector-check.sh: a ledger with
// three action types (one of which touches two substates), refused withdrawals, and, when asked,
// a rotation whose new file starts with a snapshot.
//
// Usage: InspectorLogWriter LOG COUNT [--rotate-after N]
//
// COUNT actions are dispatched. With --rotate-after N, the log is rotated after the Nth: the
// first N entries go to LOG.1 and LOG starts with a snapshot. Each run starts a new log.
import Foundation
import Reduce
import ReduceLogging

struct Ledger: Codable, Equatable, Sendable {
  var accounts: [String: Int] = [:]
  var transfers = 0
}

struct Deposit: Action, Codable {
  var account: String
  var amount: Int
}

struct Withdrawal: Action, Codable {
  var account: String
  var amount: Int
}

struct Transfer: Action, Codable {
  var from: String
  var to: String
  var amount: Int
}

struct InsufficientFunds: Error, CustomStringConvertible {
  var account: String
  var description: String { "insufficient funds in \(account)" }
}

let accounts = Mutator(\Ledger.accounts) { (accounts: inout [String: Int], action: Deposit) in
  accounts[action.account, default: 0] += action.amount
}
.on(
  Withdrawal.self,
  validate: { (accounts: [String: Int], action: Withdrawal) throws(InsufficientFunds) in
    if accounts[action.account, default: 0] < action.amount {
      throw InsufficientFunds(account: action.account)
    }
  },
  reduce: { accounts, action in accounts[action.account, default: 0] -= action.amount }
)
.on(
  Transfer.self,
  validate: { (accounts: [String: Int], action: Transfer) throws(InsufficientFunds) in
    if accounts[action.from, default: 0] < action.amount {
      throw InsufficientFunds(account: action.from)
    }
  },
  reduce: { accounts, action in
    accounts[action.from, default: 0] -= action.amount
    accounts[action.to, default: 0] += action.amount
  })
let transfers = Mutator(\Ledger.transfers) { (count: inout Int, _: Transfer) in count += 1 }

/// The action dispatched at position `index` (from 0): the same for every run.
func action(at index: Int) -> any Action {
  let account = "acct-\(index % 7)"
  switch index % 10 {
  case 0..<5: return Deposit(account: account, amount: 10 + index % 50)
  case 5, 6: return Withdrawal(account: account, amount: 5 + index % 40)
  case 7: return Withdrawal(account: account, amount: 1_000_000)  // always refused
  default: return Transfer(from: account, to: "acct-\((index + 3) % 7)", amount: 1 + index % 20)
  }
}

func fail(_ message: String, status: Int32) -> Never {
  FileHandle.standardError.write(Data("InspectorLogWriter: \(message)\n".utf8))
  exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2 || arguments.count == 4, let count = Int(arguments[1]), count >= 0
else { fail("usage: InspectorLogWriter LOG COUNT [--rotate-after N]", status: 64) }
var rotateAfter: Int?
if arguments.count == 4 {
  guard arguments[2] == "--rotate-after", let after = Int(arguments[3]), after > 0 else {
    fail("usage: InspectorLogWriter LOG COUNT [--rotate-after N]", status: 64)
  }
  rotateAfter = after
}
let path = arguments[0]
for old in [path, path + ".1"] where FileManager.default.fileExists(atPath: old) {
  do {
    try FileManager.default.removeItem(atPath: old)
  } catch {
    fail("cannot remove the old \(old): \(error)", status: 73)
  }
}
do {
  let store = try Store(initialState: Ledger(), mutators: [accounts, transfers])
  try store.use(AuditTrail<Ledger>(name: "audit", path: path, durability: .buffered))
  for index in 0..<count {
    // A refused withdrawal or transfer is recorded as failed: that is part of the log.
    _ = store.dispatch(action(at: index))
    if index + 1 == rotateAfter {
      _ = try store.dispatch(RotateAuditLog(archivingTo: path + ".1")).get()
    }
  }
  store.removeMiddleware(named: "audit")  // flushes and closes the log
} catch {
  fail("\(error)", status: 1)
}
