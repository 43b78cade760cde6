import Foundation
import ReduceThrottle
import Testing

@Suite struct ThrottleActionEncodingTests {
  @Test(
    "a ThrottleAction encodes as its command and key, for audit logs",
    arguments: [
      (ThrottleAction.flush, #"{"command":"flush"}"#),
      (.cancel(key: "search"), #"{"command":"cancel","key":"search"}"#),
    ])
  func encoding(action: ThrottleAction, json: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    #expect(String(decoding: try encoder.encode(action), as: UTF8.self) == json)
  }
}
