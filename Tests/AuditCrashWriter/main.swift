// A process that keeps a durable, chained audit log, for the crash test of
// Tests/ReduceLoggingTests/AuditCrashTests.swift: it rebuilds its state from the log, continues
// the log, and deposits one unit at a time until it is killed.
//
// Usage: AuditCrashWriter LOG
//
// It prints `start BALANCE` once its state is rebuilt, then `ack BALANCE` after each dispatch
// returned, each line flushed at once.
import Foundation
import Reduce
import ReduceLogging

struct Account: Codable, Equatable, Sendable {
  var balance = 0
  var deposits: [Int] = []
}

struct Deposit: Action, Codable {
  var amount: Int
}

let balance = Mutator(\Account.balance) { (balance: inout Int, action: Deposit) in
  balance += action.amount
}
let deposits = Mutator(\Account.deposits) { (deposits: inout [Int], action: Deposit) in
  deposits.append(action.amount)
}

func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

guard CommandLine.arguments.count == 2 else {
  FileHandle.standardError.write(Data("usage: AuditCrashWriter LOG\n".utf8))
  exit(64)
}
let path = CommandLine.arguments[1]
do {
  let store = try Store(initialState: Account(), mutators: [balance, deposits])
  if FileManager.default.fileExists(atPath: path) {
    try AuditLog.replay(
      contentsOf: URL(fileURLWithPath: path), into: store,
      actions: ReplayableActions([Deposit.self]))
  }
  try store.use(AuditTrail<Account>(path: path, durability: .everyEntry))
  say("start \(store.state.balance)")
  while true {
    let account = try store.dispatch(Deposit(amount: 1)).get()
    say("ack \(account.balance)")
  }
} catch {
  FileHandle.standardError.write(Data("AuditCrashWriter: \(error)\n".utf8))
  exit(1)
}
