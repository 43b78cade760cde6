import Foundation
import Logging
import Reduce
import ReduceLogging
import ReduceSwiftLog

/// One event a ``RecordingLogHandler`` received, with the metadata its handler would write:
/// the handler's own, then the metadata provider's, then the event's.
struct RecordedEvent: Sendable {
  var level: Logger.Level
  var message: String
  var metadata: Logger.Metadata
  /// The event's error, as its description.
  var error: String?

  /// A metadata value as text; nil when the key is absent.
  subscript(_ key: String) -> String? {
    metadata[key].map { "\($0)" }
  }

  /// An array metadata value's elements as text; nil when the key is absent or not an array.
  func array(_ key: String) -> [String]? {
    guard case .array(let values)? = metadata[key] else { return nil }
    return values.map { "\($0)" }
  }
}

/// The events of every copy of one ``RecordingLogHandler``.
final class LogRecorder: Sendable {
  private let storage = Guarded<[RecordedEvent]>([])

  var events: [RecordedEvent] { storage.withLock { $0 } }

  func record(_ event: RecordedEvent) {
    storage.withLock { $0.append(event) }
  }
}

/// A log handler that records every event, merging metadata as swift-log's `StreamLogHandler`
/// does: the provider's metadata overrides the handler's, and the event's overrides both.
struct RecordingLogHandler: LogHandler {
  let recorder: LogRecorder
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level
  var metadataProvider: Logger.MetadataProvider?

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    var merged = metadata
    if let provided = metadataProvider?.get() {
      merged.merge(provided) { _, provided in provided }
    }
    if let explicit = event.metadata {
      merged.merge(explicit) { _, explicit in explicit }
    }
    recorder.record(
      RecordedEvent(
        level: event.level, message: event.message.description, metadata: merged,
        error: event.error.map { "\($0)" }))
  }
}

/// A logger that records what it is given, and its recorder.
func recordingLogger(
  level: Logger.Level = .trace, metadataProvider: Logger.MetadataProvider? = nil
) -> (Logger, LogRecorder) {
  let recorder = LogRecorder()
  let logger = Logger(label: "test") { _ in
    RecordingLogHandler(recorder: recorder, logLevel: level, metadataProvider: metadataProvider)
  }
  return (logger, recorder)
}

/// The request a dispatch is made for, read by a metadata provider.
enum RequestContext {
  @TaskLocal static var id: String?
}

/// A metadata provider that gives the current request's id as `request.id`.
let requestIDProvider = Logger.MetadataProvider {
  RequestContext.id.map { ["request.id": .string($0)] } ?? [:]
}

struct Ledger: Codable, Equatable, Sendable {
  var balances: [String: Int] = [:]
  var owner: Owner?
}

struct Owner: Codable, Equatable, Sendable {
  var name: String
  var apiToken: String
}

struct Deposit: Action, Codable {
  var account: String
  var amount: Int
}

struct Withdraw: Action, Codable {
  var account: String
  var amount: Int
}

/// Sets the ledger's owner, with a secret that must never reach a log.
struct ClaimLedger: Action, Codable {
  var name: String
  var apiToken: String
}

/// Moves money between any number of accounts at once: one action, several changed paths.
struct Spread: Action, Codable {
  var amounts: [String: Int]
}

struct Overdraft: Error, CustomStringConvertible {
  var account: String
  var description: String { "overdraft on \(account)" }
}

let balances = Mutator(\Ledger.balances) { (balances: inout [String: Int], deposit: Deposit) in
  balances[deposit.account, default: 0] += deposit.amount
}
.on(Withdraw.self) { (balances: inout [String: Int], withdraw) throws(Overdraft) in
  guard balances[withdraw.account, default: 0] >= withdraw.amount else {
    throw Overdraft(account: withdraw.account)
  }
  balances[withdraw.account, default: 0] -= withdraw.amount
}
.on(Spread.self) { (balances: inout [String: Int], spread) in
  for (account, amount) in spread.amounts { balances[account, default: 0] += amount }
}

let owner = Mutator(\Ledger.owner) { (owner: inout Owner?, claim: ClaimLedger) in
  owner = Owner(name: claim.name, apiToken: claim.apiToken)
}

/// A clock that moves by a fixed step at each reading, so that every logged duration is one
/// step.
final class SteppingClock: Clock, Sendable {
  struct Instant: InstantProtocol {
    var offset: Duration

    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private let reading = Guarded<Duration>(.zero)
  let step: Duration

  init(step: Duration) {
    self.step = step
  }

  var now: Instant {
    reading.withLock { offset in
      defer { offset += step }
      return Instant(offset: offset)
    }
  }

  var minimumResolution: Duration { .nanoseconds(1) }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
}

/// A sink that refuses every entry, as a full disk would.
struct RefusingSink: LogSink {
  struct DiskFull: Error, CustomStringConvertible {
    var description: String { "disk full" }
  }

  func write(_ record: LogRecord) throws {
    throw DiskFull()
  }
}

/// A fresh path in the temporary directory; the file does not exist yet.
func temporaryLogPath(_ name: String = #function) -> String {
  let safe = name.filter { $0.isLetter || $0.isNumber }
  return FileManager.default.temporaryDirectory
    .appendingPathComponent("reduce-swiftlog-\(safe)-\(UUID().uuidString).log").path
}

/// The sink's metadata keys.
typealias Key = SwiftLogSink.MetadataKey

/// A value guarded by a lock, for the tests' recorders: Reduce's own lock is not public.
///
/// `@unchecked Sendable`: the value is reached only inside `withLock`, holding `lock`.
final class Guarded<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) {
    self.value = value
  }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
