import Foundation

/// The saved JSON of one attachment, decoded as the type its attachment asks for.
struct AttachmentDecoder: Sendable {
  let json: Data

  func decode<Payload: Decodable>(_ type: Payload.Type) throws -> Payload {
    try JSONDecoder().decode(Payload.self, from: json)
  }
}

/// Encodes any encodable value where a concrete type is needed.
struct AnyEncodable: Encodable {
  let base: any Encodable

  func encode(to encoder: any Encoder) throws {
    try base.encode(to: encoder)
  }
}
