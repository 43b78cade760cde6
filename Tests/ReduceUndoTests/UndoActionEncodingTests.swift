import Foundation
import ReduceUndo
import Testing

@Suite struct UndoActionEncodingTests {
  @Test(
    "an UndoAction encodes as its command and argument, for audit logs",
    arguments: [
      (UndoAction.undo, #"{"command":"undo"}"#),
      (.redo, #"{"command":"redo"}"#),
      (.jump(-2), #"{"command":"jump","steps":-2}"#),
      (.clearHistory, #"{"command":"clearHistory"}"#),
      (.beginGroup(label: "Move"), #"{"command":"beginGroup","label":"Move"}"#),
      (.beginGroup(), #"{"command":"beginGroup"}"#),
      (.endGroup, #"{"command":"endGroup"}"#),
    ])
  func encoding(action: UndoAction, json: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    #expect(String(decoding: try encoder.encode(action), as: UTF8.self) == json)
  }
}
