// A process that keeps a changing state in a file with ReducePersistence, for the crash test
// of Tests/ReducePersistenceTests/PersistenceCrashTests.swift: it restores the file, then
// changes the state and saves it, over and over, until it is killed.
//
// Usage: PersistenceCrashWriter FILE
//
// It prints `start COUNTER` once the file is restored, then `saved COUNTER` after each save
// returned, each line written at once. Every state it ever has satisfies `Ledger.isConsistent`.
import Foundation
import Reduce
import ReducePersistence

struct Ledger: Codable, Equatable, Sendable {
  var counter = 0
  /// `counter`, 2,000 times: a file of about 20 kB, so that a kill often falls inside a write.
  var copies: [Int] = Array(repeating: 0, count: 2_000)
}

struct Step: Action {}

let steps = Mutator(\Ledger.self, key: "ledger") { (ledger: inout Ledger, _: Step) in
  ledger.counter += 1
  ledger.copies = Array(repeating: ledger.counter, count: 2_000)
}

func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

guard CommandLine.arguments.count == 2 else {
  FileHandle.standardError.write(Data("usage: PersistenceCrashWriter FILE\n".utf8))
  exit(64)
}
do {
  // Saved by `flush` after each step: the debounce never fires.
  let persistence = try PersistenceMiddleware<Ledger, Ledger>(
    file: CommandLine.arguments[1], debounce: .seconds(3600), maxWait: nil)
  let store = try Store(
    initialState: persistence.restoring(Ledger()), mutators: [steps], middleware: [persistence])
  say("start \(store.state.counter)")
  while true {
    let ledger = try store.dispatch(Step()).get()
    try persistence.flush()
    say("saved \(ledger.counter)")
  }
} catch {
  FileHandle.standardError.write(Data("PersistenceCrashWriter: \(error)\n".utf8))
  exit(1)
}
