import Foundation
import Reduce
import ReduceLogging
import Synchronization

/// A sink that keeps every record it is given.
final class RecordingSink: LogSink {
  private let storage = Mutex<[LogRecord]>([])

  var records: [LogRecord] { storage.withLock { $0 } }
  var entries: [LogEntry] { records.map(\.entry) }
  var lines: [String] { records.map(\.text) }

  func write(_ record: LogRecord) {
    storage.withLock { $0.append(record) }
  }
}

/// A clock whose every reading is a fixed step after the previous one, so that each logged
/// duration is exactly one step.
final class SteppingClock: Clock, Sendable {
  struct Instant: InstantProtocol {
    var offset: Duration

    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private let readings = Mutex<Duration>(.zero)
  let step: Duration

  init(step: Duration = .microseconds(250)) {
    self.step = step
  }

  var now: Instant {
    readings.withLock { offset in
      defer { offset += step }
      return Instant(offset: offset)
    }
  }

  var minimumResolution: Duration { .nanoseconds(1) }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
}

/// 2024-05-01T12:00:00Z.
let fixedDate = Date(timeIntervalSince1970: 1_714_564_800)

/// A fresh path in the temporary directory; the file does not exist yet.
func temporaryLogPath(_ name: String = #function) -> String {
  let safe = name.filter { $0.isLetter || $0.isNumber }
  return FileManager.default.temporaryDirectory
    .appendingPathComponent("reduce-logging-\(safe)-\(UUID().uuidString).log").path
}

/// Removes a log written by a test.
func removeLog(_ path: String) {
  try? FileManager.default.removeItem(atPath: path)
}

func readLines(_ path: String) throws -> [String] {
  let text = try String(contentsOfFile: path, encoding: .utf8)
  return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
}

func writeLines(_ lines: [String], to path: String, finalNewline: Bool = true) throws {
  let text = lines.joined(separator: "\n") + (finalNewline ? "\n" : "")
  try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}

// MARK: A counter app

struct CounterState: Equatable, Sendable {
  var count = 0
  var history: [Int] = []
}

enum CounterAction: Action, Encodable {
  case incremented(by: Int)
  case failed
}

struct CounterFailure: Error, CustomStringConvertible {
  var description: String { "counter overflow" }
}

/// Not `Encodable`: logged by type name, or by description in text formats.
struct Note: Action {
  var text: String
}

let counterMutator = Mutator(\CounterState.count) {
  (count: inout Int, action: CounterAction) throws(CounterFailure) in
  switch action {
  case .incremented(let by): count += by
  case .failed: throw CounterFailure()
  }
}

let historyMutator = Mutator(\CounterState.history) { (history: inout [Int], action: Note) in
  history.append(action.text.count)
}

func makeCounterStore(_ logger: LoggingMiddleware<CounterState>) throws -> Store<CounterState> {
  try Store(
    initialState: CounterState(), mutators: [counterMutator, historyMutator],
    middleware: [logger])
}
