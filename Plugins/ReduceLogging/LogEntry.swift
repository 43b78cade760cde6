public import Foundation
public import Reduce

/// One logged action: what a ``LogSink`` receives inside a ``LogRecord``.
///
/// Values in it are already redacted and transformed: the `actionTransformer`, the
/// `stateTransformer` and the redacted field names of the ``LoggingMiddleware`` have been
/// applied.
public struct LogEntry: Sendable {
  /// The entry's number: 1 for the first entry the middleware made, then counting up.
  ///
  /// A chained log file numbers its own entries instead, continuing after a reopen.
  public var sequence: Int
  /// When the middleware started handling the action.
  public var timestamp: Date
  /// The action's type name, without module or generic arguments' modules (`TodoAction`).
  public var action: String
  /// The action's payload: JSON when the action is `Encodable`, otherwise (in text formats) a
  /// reflected description; nil when there is none to show.
  public var payload: Payload? {
    get {
      switch payloadStorage {
      case .given(let payload)?: payload
      case .value(let value)?: .json(value.serialized)
      case .encoded(let bytes)?: .json(String(decoding: bytes, as: UTF8.self))
      case nil: nil
      }
    }
    set { payloadStorage = newValue.map(PayloadStorage.given) }
  }
  /// How the dispatch of the action ended downstream of the middleware.
  public var outcome: Outcome
  /// How long the rest of the chain and the reducers took.
  public var duration: Duration
  /// The changed paths of the state, in order; nil when the middleware does not diff.
  public var changes: [Change]?
  /// The keys of the mutators that made the change, in the order they ran: what an
  /// ``AuditTrail`` records of a change (bounded by what the action touched, whatever the size
  /// of the state); nil in a ``LoggingMiddleware``'s entries.
  public var mutators: [String]? {
    get {
      switch mutatorStorage {
      case .names(let names)?: names
      case .keys(let keys)?: keys.map { $0.rawValue }
      case nil: nil
      }
    }
    set { mutatorStorage = newValue.map(MutatorStorage.names) }
  }
  /// The mutators as given, or as the store named them: those are written into a JSON line
  /// as they are, and made into an array of names only when `mutators` is read (an array made
  /// for every entry cost about 570 instructions on an audited ledger).
  var mutatorStorage: MutatorStorage?
  /// The payload as given, or as the JSON value the middleware made of the action: that one is
  /// written into a JSON line as it is, and made into text only when `payload` is read (a sink
  /// of JSON lines never reads it).
  var payloadStorage: PayloadStorage?
  /// The state, for the entry of a snapshot (``WriteAuditSnapshot``): its JSON line then
  /// records the state in `snapshot` instead of an action.
  var snapshot: JSONValue?

  /// Whether the entry is a snapshot of the state rather than an action's: a chained JSON line
  /// then records `snapshot` after its `ts`, and nothing else.
  public var isSnapshot: Bool { snapshot != nil }

  /// Creates an entry.
  ///
  /// - Parameters:
  ///   - sequence: The entry's number.
  ///   - timestamp: When the action was handled.
  ///   - action: The action's type name.
  ///   - payload: The action's payload, if shown.
  ///   - outcome: How the dispatch ended.
  ///   - duration: How long the dispatch took downstream.
  ///   - changes: The changed paths, or nil when not computed.
  ///   - mutators: The keys of the mutators that made the change, or nil when not recorded.
  public init(
    sequence: Int, timestamp: Date, action: String, payload: Payload?, outcome: Outcome,
    duration: Duration, changes: [Change]?, mutators: [String]? = nil
  ) {
    self.mutatorStorage = mutators.map(MutatorStorage.names)
    self.sequence = sequence
    self.timestamp = timestamp
    self.action = action
    self.payloadStorage = payload.map(PayloadStorage.given)
    self.outcome = outcome
    self.duration = duration
    self.changes = changes
  }

  /// Creates an entry whose payload and mutators are stored as the middleware has them, with
  /// no changes.
  init(
    sequence: Int, timestamp: Date, action: String, payloadStorage: PayloadStorage?,
    outcome: Outcome, duration: Duration, mutators: [MutatorKey]?
  ) {
    self.sequence = sequence
    self.timestamp = timestamp
    self.action = action
    self.payloadStorage = payloadStorage
    self.outcome = outcome
    self.duration = duration
    self.changes = nil
    self.mutatorStorage = mutators.map(MutatorStorage.keys)
  }

  /// Creates the entry of a snapshot of the state.
  init(sequence: Int, timestamp: Date, snapshot: JSONValue) {
    self.sequence = sequence
    self.timestamp = timestamp
    self.action = "snapshot"
    self.payloadStorage = nil
    self.outcome = .ok
    self.duration = .zero
    self.changes = nil
    self.mutatorStorage = nil
    self.snapshot = snapshot
  }

  /// An action's payload as logged.
  public enum Payload: Sendable, Hashable {
    /// Compact JSON text of an `Encodable` action (redacted), with sorted keys.
    case json(String)
    /// The action written in Swift literal syntax through `Mirror` (redacted), for an action
    /// that is not `Encodable`. Only text formats carry it.
    case description(String)

    /// The payload's text.
    public var text: String {
      switch self {
      case .json(let text), .description(let text): text
      }
    }
  }

  /// How a dispatch ended.
  public enum Outcome: Sendable {
    /// The rest of the chain and the reducers succeeded.
    case ok
    /// The rest of the chain or a reducer failed.
    case failed(DispatchError)

    /// Whether the dispatch succeeded.
    public var isSuccess: Bool {
      if case .ok = self { true } else { false }
    }
  }

  /// One changed path of the state.
  public struct Change: Sendable, Hashable, CustomStringConvertible {
    /// Where the change is: `todos[2].title`, `scores["ada"]`, `phase.loading`, or `self`
    /// when the whole state changed.
    public var path: String
    /// The old value, rendered; nil when the path was added (an array element, a key).
    public var old: String?
    /// The new value, rendered; nil when the path was removed.
    public var new: String?

    /// Creates a change.
    ///
    /// - Parameters:
    ///   - path: Where the change is.
    ///   - old: The old value, or nil when added.
    ///   - new: The new value, or nil when removed.
    public init(path: String, old: String?, new: String?) {
      self.path = path
      self.old = old
      self.new = new
    }

    /// `path: old -> new`, `path: + new` for an addition, `path: - old` for a removal.
    public var description: String {
      switch (old, new) {
      case (let old?, let new?): "\(path): \(old) -> \(new)"
      case (nil, let new?): "\(path): + \(new)"
      case (let old?, nil): "\(path): - \(old)"
      case (nil, nil): "\(path)"
      }
    }
  }
}

/// A ``LogEntry``'s mutators: names as given, or the keys the store gave.
enum MutatorStorage: Sendable {
  case names([String])
  case keys([MutatorKey])
}

/// A ``LogEntry``'s payload: as given, or the JSON made of the action, as a value or as its
/// compact UTF-8 text.
enum PayloadStorage: Sendable {
  case given(LogEntry.Payload)
  case value(JSONValue)
  case encoded([UInt8])
}
