// A process that keeps a changing state in a file with ReducePersistence, for the tests of
// Tests/ReducePersistenceTests that stop it from outside.
//
// Usage: PersistenceCrashWriter FILE
//
// The crash test's child (PersistenceCrashTests.swift): it restores the file, then changes the
// state and saves it, over and over, until it is killed. It prints `start COUNTER` once the
// file is restored, then `saved COUNTER` after each save returned, each line written at once.
// Every state it ever has satisfies `Ledger.isConsistent`.
//
// Usage: PersistenceCrashWriter --shutdown MODE FILE
//
// The stop signals' child (ShutdownSignalsTests.swift): it handles SIGINT, SIGTERM and SIGHUP
// with `ShutdownSignals`, makes three edits that its debounce of an hour never saves, prints
// `edited 3`, and waits for a signal. Its shutdown work is, by MODE:
// - `save`: flush the persistence and print `flushed SIGNAL COUNTER`;
// - `fail`: print `failing` and throw;
// - `hang`: print `hanging` and wait for a day;
// - `nohup`: ignore SIGHUP first, as `nohup` does, print `handles` and the signals handled,
//   then as `save`;
// then, in every mode, print `closed SIGNAL`.
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

/// Why the `fail` mode's shutdown work throws.
struct ShutdownFailure: Error {}

/// Edits, then waits for a stop signal that runs the shutdown work of `mode`.
func runUntilStopped(mode: String, file: String) throws -> Never {
  let persistence = try PersistenceMiddleware<Ledger, Ledger>(
    file: file, debounce: .seconds(3600), maxWait: nil)
  let store = try Store(
    initialState: persistence.restoring(Ledger()), mutators: [steps], middleware: [persistence])
  if mode == "nohup" { _ = signal(SIGHUP, SIG_IGN) }
  let shutdown = try ShutdownSignals()
  if mode == "nohup" { say("handles " + shutdown.signals.map(\.name).joined(separator: " ")) }
  switch mode {
  case "save", "nohup":
    shutdown.onShutdown { signal in
      try persistence.flush()
      say("flushed \(signal.name) \(store.state.counter)")
    }
  case "fail":
    shutdown.onShutdown { _ in
      say("failing")
      throw ShutdownFailure()
    }
  default:
    shutdown.onShutdown { _ in
      say("hanging")
      try await Task.sleep(for: .seconds(86_400))
    }
  }
  shutdown.onShutdown { signal in say("closed \(signal.name)") }
  for _ in 1...3 { store.dispatch(Step()) }
  say("edited \(store.state.counter)")
  withExtendedLifetime(shutdown) { dispatchMain() }
}

let arguments = Array(CommandLine.arguments.dropFirst())
let modes = ["save", "fail", "hang", "nohup"]
guard
  arguments.count == 1
    || (arguments.count == 3 && arguments[0] == "--shutdown"
      && modes.contains(arguments[1]))
else {
  FileHandle.standardError.write(
    Data("usage: PersistenceCrashWriter [--shutdown save|fail|hang|nohup] FILE\n".utf8))
  exit(64)
}
do {
  if arguments.count == 3 { try runUntilStopped(mode: arguments[1], file: arguments[2]) }
  // Saved by `flush` after each step: the debounce never fires.
  let persistence = try PersistenceMiddleware<Ledger, Ledger>(
    file: arguments[0], debounce: .seconds(3600), maxWait: nil)
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
