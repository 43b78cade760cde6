import Foundation
import Reduce

/// The name of an action's type, as entries record it.
///
/// `String(describing:)` of a type costs thousands of instructions; a look-up in the cache of
/// the names found so far, a few hundred.
func actionTypeName(of action: any Action) -> String {
  let type = type(of: action)
  let key = ObjectIdentifier(type)
  if let name = typeNames.withLock({ $0[key] }) { return name }
  let name = String(describing: type)
  typeNames.withLock { names in
    // Generic action types could be made without end: keep the cache small.
    if names.count >= 1024 { names.removeAll() }
    names[key] = name
  }
  return name
}

/// The names of the action types seen so far.
private let typeNames = Locked<[ObjectIdentifier: String]>([:])

/// Turns actions into the JSON payloads of entries, with redacted fields replaced.
struct ActionEncoder: Sendable {
  let redactor: Redactor

  /// The redacted JSON of an `Encodable` action; nil for an action that is not `Encodable`.
  ///
  /// An action whose encoding fails gets an object naming the error instead.
  func json(of action: any Action) -> JSONValue? {
    guard let encodable = action as? any Encodable else { return nil }
    return json(ofValue: encodable)
  }

  /// The redacted JSON of an `Encodable` action as compact UTF-8 (the serialized
  /// ``json(of:)``); nil for an action that is not `Encodable`.
  ///
  /// Written as the action encodes itself (``JSONByteEncoder``) when nothing is redacted and the
  /// action encodes in an order that allows it, and through the tree otherwise.
  func jsonBytes(of action: any Action) -> [UInt8]? {
    guard let encodable = action as? any Encodable else { return nil }
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
