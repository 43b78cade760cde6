import Foundation
import Reduce
import ReducePersistence
import ReduceTesting
import Testing

/// Debounce and `maxWait` on a `ManualClock`: the timer task runs on the clock, so when an
/// advance returns, the saves it made due are written.
@Suite struct PersistenceTimingTests {
  /// The body in the file, or nil when there is no file.
  func savedBody(_ directory: TemporaryDirectory) throws -> String? {
    guard FileManager.default.fileExists(atPath: directory.file("editor.json")) else { return nil }
    return try savedDocument(at: directory.file("editor.json")).state.body
  }

  @Test("a change is saved once changes pause for the debounce duration", .timeLimit(.minutes(1)))
  func debounce() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (store, persistence, clock) = try makeEditor(in: directory)
    store.dispatch(Edit.typed("a"))
    await clock.settle()
    #expect(clock.sleeperCount == 1)
    await clock.advance(to: ms(300))
    store.dispatch(Edit.typed("b"))
    await clock.advance(to: ms(799))
    #expect(try savedBody(directory) == nil, "300 ms + 500 ms of quiet not yet reached")
    await clock.advance(to: ms(800))
    #expect(try savedBody(directory) == "ab")
    #expect(!persistence.hasPendingChanges)
    // Nothing pending: the timer task ended.
    await clock.settle()
    #expect(clock.sleeperCount == 0)
  }

  @Test("a debounced save lands when the clock reaches it, 1,000 times in a row, no polling")
  func debounceDeterministic() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    for round in 1...1_000 {
      let file = "editor-\(round).json"
      func saved() throws -> String? {
        guard FileManager.default.fileExists(atPath: directory.file(file)) else { return nil }
        return try savedDocument(at: directory.file(file)).state.body
      }
      let (store, _, clock) = try makeEditor(in: directory, file: file)
      store.dispatch(Edit.typed("r\(round)"))
      await clock.advance(by: .milliseconds(499))
      #expect(try saved() == nil, "round \(round): saved early")
      await clock.advance(by: .milliseconds(1))
      let saved = try saved()
      #expect(saved == "r\(round)", "round \(round)")
      if saved != "r\(round)" { break }
    }
  }

  @Test("changes that never pause are saved every maxWait", .timeLimit(.minutes(1)))
  func maxWait() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (store, _, clock) = try makeEditor(in: directory)
    // A keystroke every 400 ms: the debounce of 500 ms never passes.
    for step in 0..<5 {
      await clock.advance(to: ms(step * 400))
      store.dispatch(Edit.typed("\(step)"))
    }
    // The first change came at 0: maxWait (2 s) saves at 2000 what there is then.
    await clock.advance(to: ms(1999))
    #expect(try savedBody(directory) == nil)
    await clock.advance(to: ms(2000))
    #expect(try savedBody(directory) == "01234")
    store.dispatch(Edit.typed("5"))  // at 2000: a new period starts
    await clock.advance(to: ms(2499))
    #expect(try savedBody(directory) == "01234")
    await clock.advance(to: ms(2500))
    #expect(try savedBody(directory) == "012345")
  }

  @Test("without maxWait, changes that never pause wait for the pause", .timeLimit(.minutes(1)))
  func noMaxWait() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (store, _, clock) = try makeEditor(in: directory, maxWait: nil)
    for step in 0..<10 {
      await clock.advance(to: ms(step * 400))
      store.dispatch(Edit.typed("x"))
    }
    await clock.advance(to: ms(4099))
    #expect(try savedBody(directory) == nil)
    await clock.advance(to: ms(4100))
    #expect(try savedBody(directory) == "xxxxxxxxxx")
  }

  @Test("flush saves at once and the timer then has nothing to save", .timeLimit(.minutes(1)))
  func flushBeforeTimer() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let saves = Locked<[String]>([])
    let (store, persistence, clock) = try makeEditor(in: directory) { outcome in
      if case .saved(let document) = outcome { saves.withLock { $0.append(document.body) } }
      return nil
    }
    store.dispatch(Edit.typed("now"))
    #expect(try persistence.flush())
    await clock.advance(to: ms(5000))
    #expect(saves.withLock { $0 } == ["now"])
  }

  @Test("the onSave action is dispatched after each save", .timeLimit(.minutes(1)))
  func onSaveAction() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let notes = Locked<[SaveNote]>([])
    let recorder = AnyMiddleware<Editor>(name: "recorder") { action, _, next in
      if let note = action as? SaveNote { notes.withLock { $0.append(note) } }
      try next(action)
    }
    let clock = ManualClock()
    let persistence = try PersistenceMiddleware(
      file: directory.file("editor.json"), scope: \Editor.document,
      debounce: .milliseconds(500), clock: clock
    ) { outcome -> (any Action)? in
      switch outcome {
      case .saved(let document): SaveNote.saved(title: document.title)
      case .failed: SaveNote.failed
      }
    }
    let store = try Store(
      initialState: Editor(), mutators: editorMutators, middleware: [recorder, persistence])
    store.dispatch(Edit.titled("One"))
    await clock.advance(by: .milliseconds(500))
    store.dispatch(Edit.titled("Two"))
    try persistence.flush()
    #expect(notes.withLock { $0 } == [.saved(title: "One"), .saved(title: "Two")])
  }
}
