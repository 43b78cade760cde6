import Foundation
import Reduce

/// Makes and writes the entries of an ``AuditTrail``, without knowing its `State`.
///
/// The trail's own code is generic over the state and runs unspecialized (the store calls it
/// through `Middleware`): each generic type it names there, its own included, is a look-up of
/// the type's metadata, about 330 instructions each. Measured on an audited ledger, the entry's
/// closure and payload named three (`AuditTrail<State>`, `ReplaceState<State>` and its
/// optional) for every entry; made here, an entry names none. Only a `ReplaceState` is handed
/// back to the trail (``replacementPayload``).
final class AuditRecorder: Sendable {
  /// Where the entries go.
  let sink: any LogSink
  let encoder: ActionEncoder
  private let shared = SharedLoggerState()
  /// The type of the trail's `ReplaceState<State>`, found once.
  private let replacementType: any Action.Type
  /// The payload of a `ReplaceState<State>`: its state's JSON, nil when it is not `Encodable`.
  private let replacementPayload: @Sendable (any Action) -> JSONValue?

  /// Creates a recorder.
  ///
  /// - Parameters:
  ///   - sink: Where the entries go.
  ///   - encoder: Turns actions into payloads.
  ///   - replacementType: The trail's `ReplaceState<State>` type.
  ///   - replacementPayload: The payload of an action of that type.
  init(
    sink: any LogSink, encoder: ActionEncoder, replacementType: any Action.Type,
    replacementPayload: @escaping @Sendable (any Action) -> JSONValue?
  ) {
    self.sink = sink
    self.encoder = encoder
    self.replacementType = replacementType
    self.replacementPayload = replacementPayload
  }

  /// Makes the entry of an action and writes it to the sink.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - timestamp: When the trail started handling it.
  ///   - outcome: How its dispatch ended.
  ///   - duration: How long the rest of the chain took.
  ///   - mutators: The keys of the mutators that make the change; nil for a failure.
  /// - Throws: The sink's failure.
  func write(
    _ action: any Action, timestamp: Date, outcome: LogEntry.Outcome, duration: Duration,
    mutators: [MutatorKey]?
  ) throws {
    let info = ActionTypeInfo.of(action)
    // The entry made in place, in the record: a local entry was copied into it, then destroyed
    // (about 240 instructions).
    try sink.write(
      LogRecord(
        entry: LogEntry(
          sequence: shared.nextSequence(), timestamp: timestamp, action: info.name,
          payloadStorage: payload(of: action, info: info), outcome: outcome, duration: duration,
          mutators: mutators),
        format: .jsonLines))
  }

  /// Writes a snapshot of the state to the sink.
  ///
  /// - Parameters:
  ///   - snapshot: The state's JSON.
  ///   - timestamp: When it was taken.
  /// - Throws: The sink's failure.
  func writeSnapshot(_ snapshot: JSONValue, timestamp: Date) throws {
    try sink.write(
      LogRecord(
        entry: LogEntry(sequence: shared.nextSequence(), timestamp: timestamp, snapshot: snapshot),
        format: .jsonLines))
  }

  private func payload(of action: any Action, info: ActionTypeInfo) -> PayloadStorage? {
    let actionType = type(of: action)
    if actionType == Batch.self, let batch = action as? Batch {
      return .value(encoder.json(of: batch, describingOthers: nil))
    }
    if actionType == replacementType {
      return replacementPayload(action).map { .value(.object([("state", $0)])) }
    }
    return encoder.jsonBytes(of: action, info: info).map(PayloadStorage.encoded)
  }
}
