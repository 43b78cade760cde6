import Foundation
import Reduce

/// The name of an action's type, as entries record it.
func actionTypeName(of action: any Action) -> String {
  ActionTypeInfo.of(action).name
}

/// What the logs need of an action's type, found once per type and kept.
struct ActionTypeInfo: Sendable {
  /// The type's name, as entries record it.
  ///
  /// `String(describing:)` of a type costs thousands of instructions; a look-up in the cache of
  /// the types seen so far, a few hundred.
  let name: String
  /// Gives an action of the type as `Encodable`; nil when the type is not `Encodable`.
  ///
  /// A cast of each action to `any Encodable` asks the runtime for the conformance, about 1,100
  /// instructions on an audited ledger's dispatch. The cast of the type is made once here, and
  /// each action is then cast to its type itself, which costs a comparison of types.
  let encodable: @Sendable (any Action) -> (any Encodable)?

  /// The information of an action's type.
  static func of(_ action: any Action) -> ActionTypeInfo {
    let type = type(of: action)
    let key = ObjectIdentifier(type)
    if let info = actionTypes.withLock({ $0[key] }) { return info }
    let info = ActionTypeInfo(name: String(describing: type), encodable: encodableView(of: type))
    actionTypes.withLock { types in
      // Generic action types could be made without end: keep the cache small.
      if types.count >= 1024 { types.removeAll() }
      types[key] = info
    }
    return info
  }

  /// How an action of `type` is seen as `Encodable`.
  private static func encodableView(of type: any Action.Type)
    -> @Sendable (any Action) -> (any Encodable)?
  {
    // A value of a plain type is an instance of exactly its type; others (classes, for
    // example) are cast to the protocol each time, as before.
    guard TypeTraits.isPlain(type) else { return { $0 as? any Encodable } }
    guard let encodable = type as? any (Action & Encodable).Type else { return { _ in nil } }
    return view(as: encodable)
  }

  private static func view<T: Action & Encodable>(as type: T.Type)
    -> @Sendable (any Action) -> (any Encodable)?
  {
    { action in
      // A pattern, not `as? T`: an optional of `T` would ask for its metadata (about 330
      // instructions), this code being unspecialized.
      switch action {
      case let value as T: value
      default: nil
      }
    }
  }
}

/// The action types seen so far.
private let actionTypes = Locked<[ObjectIdentifier: ActionTypeInfo]>([:])

/// Turns actions into the JSON payloads of entries, with redacted fields replaced.
struct ActionEncoder: Sendable {
  let redactor: Redactor

  /// The redacted JSON of an `Encodable` action; nil for an action that is not `Encodable`.
  ///
  /// An action whose encoding fails gets an object naming the error instead.
  func json(of action: any Action) -> JSONValue? {
    guard let encodable = ActionTypeInfo.of(action).encodable(action) else { return nil }
    return json(ofValue: encodable)
  }

  /// The redacted JSON of an `Encodable` action as compact UTF-8 (the serialized
  /// ``json(of:)``); nil for an action that is not `Encodable`.
  ///
  /// Written as the action encodes itself (``JSONByteEncoder``) when nothing is redacted and the
  /// action encodes in an order that allows it, and through the tree otherwise.
  func jsonBytes(of action: any Action) -> [UInt8]? {
    jsonBytes(of: action, info: ActionTypeInfo.of(action))
  }

  /// The redacted JSON of an `Encodable` action as compact UTF-8, for an action whose type's
  /// information the caller has already.
  func jsonBytes(of action: any Action, info: ActionTypeInfo) -> [UInt8]? {
    guard let encodable = info.encodable(action) else { return nil }
    if redactor.isEmpty, let bytes = JSONByteEncoder.encode(encodable) { return bytes }
    var bytes: [UInt8] = []
    json(ofValue: encodable).write(to: &bytes)
    return bytes
  }

  /// The redacted JSON of a value; an object naming the error when its encoding fails.
  func json(ofValue encodable: any Encodable) -> JSONValue {
    do {
      return redact(try JSONValueEncoder.encode(encodable))
    } catch {
      return .object([("unencodable", .string(String(describing: error)))])
    }
  }

  /// The redacted JSON of a state, for a snapshot; throws when it cannot be encoded.
  func snapshot(of state: any Encodable) throws -> JSONValue {
    redact(try JSONValueEncoder.encode(state))
  }

  /// A batch's actions as an array of objects: each with its type's name, and its payload, or
  /// for an action that is not `Encodable`, its description when `describe` is given.
  func json(of batch: Batch, describingOthers describe: ((any Action) -> String)?) -> JSONValue {
    .array(
      batch.actions.map { item in
        var members: [(String, JSONValue)] = [("action", .string(actionTypeName(of: item)))]
        if let json = json(of: item) {
          members.append(("payload", json))
        } else if let describe {
          members.append(("description", .string(describe(item))))
        }
        return .object(members)
      })
  }

  private func redact(_ value: JSONValue) -> JSONValue {
    guard !redactor.isEmpty else { return value }
    switch value {
    case .object(let members):
      return .object(
        members.map { key, member in
          (key, redactor.hides(key) ? .string(LogRedaction.placeholder) : redact(member))
        })
    case .array(let elements):
      return .array(elements.map(redact))
    default:
      return value
    }
  }
}
