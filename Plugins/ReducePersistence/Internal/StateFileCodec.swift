import Foundation

/// Turns a value into a file's bytes and back, by a ``PersistenceFormat``.
struct StateFileCodec<Value: Codable & Sendable>: Sendable {
  let format: PersistenceFormat

  private struct Envelope: Codable {
    var state: Value
    var version: Int
  }

  private struct EnvelopeWithAttachments: Encodable {
    var attachments: [String: AnyEncodable]?
    var state: Value
    var version: Int
  }

  private struct VersionProbe: Decodable {
    var version: Int
  }

  private struct ReservedKeysProbe: Decodable {
    var version: IgnoredValue?
    var attachments: IgnoredValue?
  }

  /// Decodes any JSON value and keeps nothing.
  private struct IgnoredValue: Decodable {
    init(from decoder: any Decoder) throws {}
  }

  // MARK: Encoding

  /// The file's bytes for a value and its attachments: pretty-printed JSON with sorted keys
  /// and a final newline.
  func encode(_ value: Value, attachments: [String: AnyEncodable] = [:]) throws(PersistenceError)
    -> Data
  {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    do {
      switch format.layout {
      case .envelope:
        let envelope = EnvelopeWithAttachments(
          attachments: attachments.isEmpty ? nil : attachments, state: value,
          version: format.version)
        return try encoder.encode(envelope) + Data("\n".utf8)
      case .flat:
        let members = try attachments.isEmpty ? nil : encoder.encode(attachments)
        return try flat(encoder.encode(value), attachments: members)
      }
    } catch let error as PersistenceError {
      throw error
    } catch {
      throw .encodingFailed(reason: "\(error)")
    }
  }

  /// The value's JSON object with the attachments and the version as its first members.
  private func flat(_ json: Data, attachments: Data?) throws(PersistenceError) -> Data {
    let bytes = Array(json)
    guard let open = bytes.firstIndex(where: { !Self.isSpace($0) }),
      bytes[open] == UInt8(ascii: "{")
    else {
      throw .encodingFailed(reason: "the .flat layout needs a value that encodes as a JSON object")
    }
    let probe = try? JSONDecoder().decode(ReservedKeysProbe.self, from: json)
    if probe?.version != nil {
      throw .encodingFailed(reason: "the value has a \"version\" key of its own")
    }
    if attachments != nil, probe?.attachments != nil {
      throw .encodingFailed(reason: "the value has an \"attachments\" key of its own")
    }
    let rest = bytes[(open + 1)...]
    let isEmpty = rest.allSatisfy { Self.isSpace($0) || $0 == UInt8(ascii: "}") }
    let attachmentsMember =
      attachments.map { "\n  \"attachments\" : " + String(decoding: $0, as: UTF8.self) + "," } ?? ""
    let member = attachmentsMember + "\n  \"version\" : \(format.version)" + (isEmpty ? "\n}" : ",")
    let tail = isEmpty ? [] : Array(rest)
    return Data(bytes[...open] + Array(member.utf8) + tail + Array("\n".utf8))
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
  }

  // MARK: Decoding

  /// The value a file's bytes hold, migrated from an older version when needed.
  func decode(_ data: Data) throws(StateFileProblem) -> Value {
    let decoder = JSONDecoder()
    guard let found = try? decoder.decode(VersionProbe.self, from: data).version else {
      throw .noVersion
    }
    if found > format.version { throw .newerVersion(found: found, supported: format.version) }
    guard found >= 1 else { throw .noVersion }
    do {
      if found == format.version {
        switch format.layout {
        case .envelope: return try decoder.decode(Envelope.self, from: data).state
        case .flat: return try decoder.decode(Value.self, from: data)
        }
      }
    } catch {
      throw .notDecodable(underlying: error)
    }
    var json = try payload(of: data)
    for version in found..<format.version {
      guard let migration = format.migrations.first(where: { $0.from == version }) else {
        throw .noMigration(from: version, to: version + 1)
      }
      do {
        json = try migration.migrate(json)
      } catch {
        throw .migrationFailed(from: version, underlying: error)
      }
    }
    do {
      return try decoder.decode(Value.self, from: json)
    } catch {
      throw .notDecodable(underlying: error)
    }
  }

  /// The value's JSON in a file of an older version, for its migrations.
  private func payload(of data: Data) throws(StateFileProblem) -> Data {
    do {
      guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw StateFileProblem.noVersion
      }
      switch format.layout {
      case .envelope:
        guard let state = object["state"] else {
          throw StateFileProblem.notDecodable(
            underlying: DecodingError.dataCorrupted(
              .init(codingPath: [], debugDescription: "The file has no \"state\" member.")))
        }
        return try JSONSerialization.data(withJSONObject: state, options: [.fragmentsAllowed])
      case .flat:
        object["version"] = nil
        object["attachments"] = nil
        return try JSONSerialization.data(withJSONObject: object)
      }
    } catch let problem as StateFileProblem {
      throw problem
    } catch {
      throw .notDecodable(underlying: error)
    }
  }

  // MARK: Attachments

  /// The saved JSON of each attachment in a file, by key; empty when it has none.
  ///
  /// - Throws: When the file's `attachments` member is not an object.
  func attachments(in data: Data) throws -> [String: AttachmentDecoder] {
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    guard let member = object?["attachments"] else { return [:] }
    guard let attachments = member as? [String: Any] else {
      throw DecodingError.typeMismatch(
        [String: Any].self,
        .init(codingPath: [], debugDescription: "The \"attachments\" member is not an object."))
    }
    return try attachments.mapValues { json in
      AttachmentDecoder(
        json: try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed]))
    }
  }
}
