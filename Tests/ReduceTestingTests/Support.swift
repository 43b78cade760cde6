import Foundation
import Reduce

struct Counter: Equatable, Sendable {
  var count = 0
  var log: [String] = []
}

enum CounterAction: Action, Equatable {
  case incremented(by: Int)
  case noted(String)
  case reset
}

enum Echo: Action, Equatable {
  case ping
}

let counterMutator = Mutator(\Counter.count) { (count: inout Int, action: CounterAction) in
  switch action {
  case .incremented(let n): count += n
  case .reset: count = 0
  case .noted: break
  }
}

let logMutator = Mutator(\Counter.log) { (log: inout [String], action: CounterAction) in
  if case .noted(let text) = action { log.append(text) }
}

/// A thread-safe list of values, for tests to collect what happened.
final class Collector<Value: Sendable>: Sendable {
  // NSLock rather than Mutex: ThreadSanitizer sees through pthread locks only.
  private let lock = NSLock()
  nonisolated(unsafe) private var storage: [Value] = []

  func append(_ value: Value) {
    lock.withLock { storage.append(value) }
  }

  var values: [Value] {
    lock.withLock { storage }
  }
}
