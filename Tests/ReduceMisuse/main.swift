// Makes one of the mistakes a store cannot report as an error, so that a test can check that the
// program stops with a message saying how to fix it, in a debug build and (`.ci/run`) in a
// release one.
//
// Usage: ReduceMisuse reducer-dispatches | reducer-reads-state | reducer-subscribes
//
// Each ends the process with the store's message on standard error; a mistake that went
// unnoticed exits with status 1 and says so.
import Foundation
import Reduce

struct Counter: Sendable {
  var count = 0
}

struct Misuse: Action {}

/// The store, for a reducer that should not reach it.
let reference = Locked<Store<Counter>?>(nil)

let mistakes: [String: @Sendable () -> Void] = [
  "reducer-dispatches": {
    _ = reference.withLock { $0 }?.dispatch(Misuse())
  },
  "reducer-reads-state": {
    _ = reference.withLock { $0 }?.state
  },
  "reducer-subscribes": {
    _ = reference.withLock { $0 }?.subscribe { _ in }
  },
]

guard CommandLine.arguments.count == 2, let mistake = mistakes[CommandLine.arguments[1]] else {
  let names = mistakes.keys.sorted().joined(separator: " | ")
  FileHandle.standardError.write(Data("usage: ReduceMisuse \(names)\n".utf8))
  exit(64)
}
let counter = Mutator(\Counter.count) { (count: inout Int, _: Misuse) in
  mistake()
  count += 1
}
do {
  let store = try Store(initialState: Counter(), mutators: [counter])
  reference.withLock { $0 = store }
  store.dispatch(Misuse())
  reference.withLock { $0 = nil }
} catch {
  FileHandle.standardError.write(Data("ReduceMisuse: \(error)\n".utf8))
  exit(2)
}
FileHandle.standardError.write(Data("ReduceMisuse: the mistake was not noticed\n".utf8))
exit(1)
