import Reduce
import ReduceUndo
import Testing

/// The history an undo middleware should keep, written as plainly as possible: the recorded
/// states in order, the position of the present among them, and the open `groupBy` key.
struct HistoryModel {
  let limit: Int
  var recorded: [Document]
  var position = 0
  var present: Document
  var openKey: String?

  init(limit: Int, start: Document) {
    self.limit = limit
    self.recorded = [start]
    self.present = start
  }

  var pastCount: Int { position }
  var futureCount: Int { recorded.count - 1 - position }

  /// An action that reached the reducers changed the tracked state from `present` to `after`.
  mutating func changed(to after: Document, records: Bool, key: String?) {
    defer { present = after }
    // A step back to the newest recorded state (filtered changes undone by a recorded action)
    // is no step: it would undo nothing and drop the redo future.
    guard after != present, records, after != recorded[position] else { return }
    recorded.removeSubrange((position + 1)...)
    if let key, key == openKey {
      recorded[position] = after
      return
    }
    recorded.append(after)
    position += 1
    if recorded.count - 1 > limit {
      recorded.removeFirst()
      position -= 1
    }
    openKey = key
  }

  /// Undo (negative) or redo (positive), clamped.
  mutating func jump(_ offset: Int) {
    openKey = nil
    let target = min(max(position + offset, 0), recorded.count - 1)
    guard target != position else { return }
    position = target
    present = recorded[target]
  }
}

@Suite struct UndoPropertyTests {
  static func randomText(_ generator: inout SplitMix64) -> String {
    String("abcxyz".randomElement(using: &generator) ?? "a")
  }

  static func randomEdit(_ generator: inout SplitMix64) -> Edit {
    switch Int.random(in: 0..<10, using: &generator) {
    case 0..<5: .type(randomText(&generator))
    case 5..<7: .deleteLast
    case 7..<9: .rename(randomText(&generator))
    default: .touch
    }
  }

  @Test("undo^k then redo^k returns to the start over 1,000 seeded random sequences")
  func roundTrips() throws {
    for seed in 0..<UInt64(1_000) {
      try checkSequence(seed: seed)
    }
  }

  func checkSequence(seed: UInt64) throws {
    var generator = SplitMix64(seed: seed)
    let limit = seed % 4 == 0 ? Int.random(in: 1...8, using: &generator) : 1_000
    let undo = try UndoMiddleware<Editor>(
      scope: \.document, limit: limit, filter: skipRenames,
      groupBy: { action in
        guard case .type(let text)? = action as? Edit else { return nil }
        return text == "x" ? "x" : nil
      })
    let store = try makeStore(undo)
    var model = HistoryModel(limit: limit, start: Document())
    var selection = 0
    let length = Int.random(in: 20...200, using: &generator)

    for _ in 0..<length {
      switch Int.random(in: 0..<20, using: &generator) {
      case 0..<11:
        let edit = Self.randomEdit(&generator)
        try store.dispatchAll(edit)
        var after = model.present
        apply(edit, to: &after)
        let key: String? = edit == .type("x") ? "x" : nil
        let records: Bool
        if case .rename = edit { records = false } else { records = true }
        model.changed(to: after, records: records, key: key)
      case 11..<13:
        let edits = [Self.randomEdit(&generator), Self.randomEdit(&generator)]
        try store.dispatchAll(Batch(edits))
        var after = model.present
        for edit in edits { apply(edit, to: &after) }
        model.changed(to: after, records: true, key: nil)
      case 13:
        selection = Int.random(in: 0..<100, using: &generator)
        try store.dispatchAll(Select.at(selection))
      case 14..<17:
        try store.dispatchAll(UndoAction.undo)
        model.jump(-1)
      case 17..<19:
        try store.dispatchAll(UndoAction.redo)
        model.jump(1)
      default:
        let offset = Int.random(in: -4...4, using: &generator)
        try store.dispatchAll(UndoAction.jump(offset))
        model.jump(offset)
      }
      #expect(store.state.document == model.present, "seed \(seed)")
      #expect(store.state.selection == selection, "seed \(seed)")
      #expect(undo.pastCount == model.pastCount, "seed \(seed)")
      #expect(undo.futureCount == model.futureCount, "seed \(seed)")
    }

    // End on a recorded step, so that the present is a recorded state.
    try store.dispatchAll(Edit.type("!"))
    let start = store.state
    let count = undo.pastCount
    let k = Int.random(in: 0...count, using: &generator)
    for steps in [k, count] {
      try store.dispatchAll(UndoAction.undo, times: steps)
      #expect(undo.pastCount == count - steps, "seed \(seed)")
      try store.dispatchAll(UndoAction.redo, times: steps)
      #expect(store.state == start, "seed \(seed), k \(steps)")
    }
  }
}
