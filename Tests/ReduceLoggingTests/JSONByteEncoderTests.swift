import Foundation
import Reduce
import Testing

@testable import ReduceLogging

/// The bytes the streaming encoder writes are the bytes of the `JSONValue` tree, serialized:
/// logs written before it existed verify and replay as before.
@Suite struct JSONByteEncoderTests {
  /// The tree's JSON text, as the logs wrote payloads before the streaming encoder.
  static func viaTree(_ value: some Encodable) throws -> [UInt8] {
    var bytes: [UInt8] = []
    try JSONValueEncoder.encode(value).write(to: &bytes)
    return bytes
  }

  static func expectSame(
    _ value: some Encodable, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let streamed = try #require(JSONByteEncoder.encode(value), sourceLocation: sourceLocation)
    #expect(
      String(decoding: streamed, as: UTF8.self)
        == String(decoding: try viaTree(value), as: UTF8.self),
      sourceLocation: sourceLocation)
  }

  indirect enum Shape: Codable {
    case point
    case circle(radius: Double)
    case labelled(String, Shape?)
    case polygon(corners: [Corner], closed: Bool)
  }

  struct Corner: Codable {
    var x: Int
    var y: Int
  }

  enum Suit: String, Codable {
    case hearts, spades
  }

  struct Everything: Codable {
    var zebra = "last by name, first by declaration"
    var escapes = "quote \" backslash \\ newline \n tab \t bell \u{07} end"
    var unicode = "héllo ✓ 😀 日本"
    var missing: Int? = nil
    var present: Int? = 7
    var doubles: [Double] = [
      0, -0.0, 1, 1.5, -0.25, 1e20, 3.0e-7, 9_007_199_254_740_992, 9_007_199_254_740_991, .pi,
    ]
    var float: Float = 0.1
    var integers: [Int64] = [.min, -1, 0, 1, .max]
    var unsigned: UInt64 = .max
    var small: Int8 = -128
    var suit = Suit.spades
    var shapes: [Shape] = [
      .point, .circle(radius: 2.5), .labelled("a", nil), .labelled("b", .point),
      .polygon(corners: [Corner(x: 1, y: 2), Corner(x: -3, y: 4)], closed: true),
    ]
    var byName: [String: Int] = ["b": 2, "a": 1, "10": 10, "9": 9, "é": 5]
    var byID: [Int: String] = [2: "two", 10: "ten"]
    var nested: [[Int?]] = [[1, nil], [], [3]]
    var born = Date(timeIntervalSinceReferenceDate: 12_345.5)
    var photo = Data([0, 1, 2, 250])
    var site = URL(fileURLWithPath: "/srv/a b/c.txt")
    var price = Decimal(sign: .plus, exponent: -2, significand: 1234)
    var dates: [Date] = [Date(timeIntervalSinceReferenceDate: 0)]
    var empty = Empty()
    var alpha = true
  }

  struct Empty: Codable {}

  @Test("structs, enums with payloads, optionals, escapes, non-ASCII, numbers, dates, data")
  func everything() throws {
    try Self.expectSame(Everything())
  }

  @Test("enums with and without payloads, as actions are")
  func shapes() throws {
    for shape in Everything().shapes { try Self.expectSame(shape) }
  }

  @Test("single values at the top level")
  func topLevel() throws {
    try Self.expectSame(42)
    try Self.expectSame("text \"quoted\"")
    try Self.expectSame(1.25)
    try Self.expectSame(true)
    try Self.expectSame([1, 2])
    try Self.expectSame(Optional<Int>.none)
    try Self.expectSame(Suit.hearts)
    try Self.expectSame(Empty())
    try Self.expectSame(Date(timeIntervalSinceReferenceDate: 1.5))
  }

  /// Writes its keys out of order, one of them twice, and asks for its container twice.
  struct Unordered: Encodable {
    enum Keys: String, CodingKey { case b, a, c, d }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Keys.self)
      try container.encode(1, forKey: .c)
      var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .b)
      try nested.encode("inner", forKey: .d)
      try nested.encode("first", forKey: .a)
      try container.encode(2, forKey: .a)
      var again = encoder.container(keyedBy: Keys.self)
      try again.encode(3, forKey: .c)
      try again.encodeNil(forKey: .d)
    }
  }

  @Test("keys out of order are sorted, and of a key written twice the last value is kept")
  func unordered() throws {
    try Self.expectSame(Unordered())
    let streamed = try #require(JSONByteEncoder.encode(Unordered()))
    #expect(
      String(decoding: streamed, as: UTF8.self)
        == #"{"a":2,"b":{"a":"first","d":"inner"},"c":3,"d":null}"#)
  }

  /// Writes into a nested container after writing into its parent: the tree takes it, the
  /// stream cannot.
  struct Interleaved: Encodable {
    enum Keys: String, CodingKey { case a, b }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Keys.self)
      var nested = container.nestedUnkeyedContainer(forKey: .a)
      try container.encode(1, forKey: .b)
      try nested.encode(2)
    }
  }

  struct UsesSuperEncoder: Encodable {
    enum Keys: String, CodingKey { case a }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Keys.self)
      try 5.encode(to: container.superEncoder())
    }
  }

  struct NotANumber: Codable {
    var value = Double.nan
  }

  @Test("what the stream cannot write as the tree does, it leaves to the tree")
  func fallsBack() throws {
    #expect(JSONByteEncoder.encode(Interleaved()) == nil)
    #expect(JSONByteEncoder.encode(UsesSuperEncoder()) == nil)
    #expect(JSONByteEncoder.encode(NotANumber()) == nil)
    #expect(try Self.viaTree(Interleaved()) == Array(#"{"a":[2],"b":1}"#.utf8))
  }

  @Test("a writer kept after a value it could not write, or a wide one, writes the next anew")
  func reusedWriter() throws {
    let shape = Shape.labelled("a", .polygon(corners: [Corner(x: 1, y: 2)], closed: true))
    for stopper in [Interleaved() as any Encodable, UsesSuperEncoder(), NotANumber()] {
      #expect(JSONByteEncoder.encode(stopper) == nil)
      try Self.expectSame(shape)
      try Self.expectSame(shape)
    }
    let wide = Dictionary(uniqueKeysWithValues: (0..<100).map { ("key\($0)", $0) })
    try Self.expectSame(wide)
    try Self.expectSame(shape)
    // The bytes handed out stay as they were while the kept writer writes the next value.
    let first = try #require(JSONByteEncoder.encode(shape))
    let second = try #require(JSONByteEncoder.encode(Corner(x: 3, y: 4)))
    #expect(first == (try Self.viaTree(shape)))
    #expect(second == Array(#"{"x":3,"y":4}"#.utf8))
  }

  struct Move: Action, Codable {
    var to: Int
    var secret = "s3cret"
    var ratio = Double.infinity
  }

  @Test("the payload of an action: redacted or unencodable ones through the tree, as before")
  func actionPayloads() throws {
    let plain = ActionEncoder(redactor: Redactor([]))
    let action = Move(to: 3, ratio: 0.5)
    var expected: [UInt8] = []
    try #require(plain.json(of: action)).write(to: &expected)
    #expect(plain.jsonBytes(of: action) == expected)

    let redacting = ActionEncoder(redactor: Redactor(["secret"]))
    expected = []
    try #require(redacting.json(of: action)).write(to: &expected)
    #expect(redacting.jsonBytes(of: action) == expected)
    #expect(String(decoding: expected, as: UTF8.self).contains("<redacted>"))

    let unencodable = Move(to: 1)
    expected = []
    try #require(plain.json(of: unencodable)).write(to: &expected)
    #expect(plain.jsonBytes(of: unencodable) == expected)
    #expect(String(decoding: expected, as: UTF8.self).hasPrefix(#"{"unencodable":"#))
  }
}
