import Foundation
import Testing

@testable import ReduceLogging

/// A chained writer's ``LineBuffer`` writes the bytes an array of bytes would.
@Suite struct LineBufferTests {
  static func text(of line: LineBuffer) -> String {
    String(decoding: line.bytes, as: UTF8.self)
  }

  @Test("appends bytes, literals and text, and grows past its first storage")
  func appends() {
    let line = LineBuffer()
    var output = line
    var expected: [UInt8] = []
    for index in 0..<300 {
      output.append("{\"index\":")
      expected.append("{\"index\":")
      output.appendDecimal(Int64(index))
      expected.appendDecimal(Int64(index))
      output.append(text: "é\u{1F600}")
      expected.append(text: "é\u{1F600}")
      output.append(UInt8(ascii: "}"))
      expected.append(UInt8(ascii: "}"))
    }
    #expect(line.count == expected.count)
    #expect(Array(line.bytes) == expected)
  }

  @Test("emptied, it starts again; a long line's storage is given back")
  func reuse() {
    let line = LineBuffer()
    var output = line
    let long = [UInt8](repeating: UInt8(ascii: "x"), count: 100_000)
    long.withUnsafeBytes { output.append(bytes: $0) }
    #expect(line.count == 100_000)
    line.removeAll()
    #expect(line.count == 0)
    output.append("abc")
    #expect(Self.text(of: line) == "abc")
  }

  @Test(
    "timestamps are written as Timestamp.format writes them, within a second and across seconds",
    arguments: [
      0.0, 0.001, 0.999, 1.0, 59.5, 1_714_564_800.412, 1_714_564_800.999, 1_714_564_801.0,
      -0.001, -1.5, -86_400.25, 253_402_300_799.999,
    ])
  func timestamps(_ seconds: Double) {
    let line = LineBuffer()
    // The second before, the instant, and again: the text kept from one is reused by the next.
    let dates = [seconds - 1, seconds, seconds, seconds + 0.0005].map {
      Date(timeIntervalSince1970: $0)
    }
    var expected = ""
    for date in dates {
      line.append(timestamp: date)
      expected += Timestamp.format(date)
    }
    #expect(Self.text(of: line) == expected)
  }
}
