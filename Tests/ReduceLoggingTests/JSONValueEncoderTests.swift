import Foundation
import Testing

@testable import ReduceLogging

/// The encoder the logging middleware uses for payloads writes what `JSONEncoder` with sorted
/// keys writes.
@Suite struct JSONValueEncoderTests {
  enum Move: Codable, Equatable {
    case deposited(account: String, amount: Int)
    case closed
    case renamed(String, to: String)
  }

  struct Profile: Codable {
    var name = "Ada \"the first\"\n\\"
    var nickname: String? = nil
    var age: UInt8 = 36
    var scores: [Double] = [1, 1.5, -0.25, 1e20, 3.0e-7]
    var tags: Set<String> = []
    var flags: [Bool] = [true, false]
    var byName: [String: Int] = ["b": 2, "a": 1, "10": 10, "9": 9]
    var byID: [Int: String] = [2: "two", 10: "ten"]
    var nested: [[Int]] = [[1, 2], [], [3]]
    var born = Date(timeIntervalSinceReferenceDate: 12_345.5)
    var photo = Data([0, 1, 2, 250])
    var site = URL(fileURLWithPath: "/srv/a b/c.txt")
    var price = Decimal(sign: .plus, exponent: -2, significand: 1234)
    var moves: [Move] = [.deposited(account: "x", amount: 3), .closed, .renamed("a", to: "b")]
    var big = Int64.max
    var small = Int8.min
  }

  static func viaFoundation(_ value: some Encodable) throws -> JSONValue {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return try JSONParser.parse(Array(try encoder.encode(value)))
  }

  @Test("a struct of standard types, optionals, collections and nested enums")
  func sameAsJSONEncoder() throws {
    let profile = Profile()
    #expect(try JSONValueEncoder.encode(profile) == Self.viaFoundation(profile))
  }

  @Test("enums with associated values, as actions are")
  func enums() throws {
    for move in [Move.deposited(account: "ada", amount: 100), .closed, .renamed("a", to: "b")] {
      #expect(try JSONValueEncoder.encode(move) == Self.viaFoundation(move))
    }
  }

  @Test("single values at the top level")
  func singleValues() throws {
    #expect(try JSONValueEncoder.encode(42) == Self.viaFoundation(42))
    #expect(try JSONValueEncoder.encode("text") == Self.viaFoundation("text"))
    #expect(try JSONValueEncoder.encode([1, 2]) == Self.viaFoundation([1, 2]))
    #expect(try JSONValueEncoder.encode(Optional<Int>.none) == .null)
  }

  @Test("a number JSON cannot hold is an encoding error, as with JSONEncoder")
  func nonFinite() {
    #expect(throws: EncodingError.self) { try JSONValueEncoder.encode([Double.nan]) }
    #expect(throws: EncodingError.self) { try JSONValueEncoder.encode(Double.infinity) }
  }
}
