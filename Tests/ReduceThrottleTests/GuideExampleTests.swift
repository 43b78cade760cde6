// The examples of Guides/Throttle.md, compiled and run. Keep the two in step.

import Reduce
import ReduceTesting
import ReduceThrottle
import Testing

// MARK: Usage

struct NotesState: Equatable, Sendable {
  var query = ""
  var scrollOffset = 0
  var saved: [String: String] = [:]
}

enum SearchField: Action {
  case changed(String)
}

enum NoteList: Action {
  case scrolled(to: Int)
}

enum Autosave: Action {
  case save(note: String, text: String)
}

let notesMutators: [Mutator<NotesState>] = [
  Mutator(\NotesState.query) { (query: inout String, action: SearchField) in
    if case .changed(let text) = action { query = text }
  },
  Mutator(\NotesState.scrollOffset) { (offset: inout Int, action: NoteList) in
    if case .scrolled(let y) = action { offset = y }
  },
  Mutator(\NotesState.saved) { (saved: inout [String: String], action: Autosave) in
    if case .save(let note, let text) = action { saved[note] = text }
  },
]

func makeNotesStore(clock: some Clock<Duration> = ContinuousClock()) throws -> Store<NotesState> {
  let throttle = try ThrottleMiddleware<NotesState>(
    rules: [
      // Search as you type: search once typing pauses for 300 ms.
      .debounce(SearchField.self, for: .milliseconds(300)),
      // Scrolling: at most ten updates a second, and always the final position.
      .throttle(NoteList.self, for: .milliseconds(100), latest: true),
      // Autosave, per note: 2 s after the last keystroke, and at least every 10 s while typing.
      .debounce(Autosave.self, for: .seconds(2), maxWait: .seconds(10)) { action in
        switch action {
        case .save(let note, _): note
        }
      },
    ],
    clock: clock)
  return try Store(initialState: NotesState(), mutators: notesMutators, middleware: [throttle])
}

// MARK: Testing with ManualClock

@Test func autosaveWaitsForAPause() async throws {
  let clock = ManualClock()
  let store = try makeNotesStore(clock: clock)
  store.dispatch(Autosave.save(note: "groceries", text: "Milk"))
  await clock.advance(by: .seconds(1))
  store.dispatch(Autosave.save(note: "groceries", text: "Milk, eggs"))
  await clock.advance(by: .seconds(1))
  #expect(store.state.saved.isEmpty)
  await clock.advance(by: .seconds(1))
  #expect(store.state.saved == ["groceries": "Milk, eggs"])
}

@Test func flushSavesEverythingNow() async throws {
  let store = try makeNotesStore(clock: ManualClock())
  store.dispatch(Autosave.save(note: "groceries", text: "Milk"))
  store.dispatch(Autosave.save(note: "todo", text: "Call Bob"))
  store.dispatch(ThrottleAction.flush)  // for example when the app moves to the background
  #expect(store.state.saved == ["groceries": "Milk", "todo": "Call Bob"])
}

@Test func searchIsReceivedAfterThePause() async throws {
  let clock = ManualClock()
  let store = try TestStore(
    initialState: NotesState(), mutators: notesMutators,
    middleware: [
      ThrottleMiddleware(
        rules: [.debounce(SearchField.self, for: .milliseconds(300))], clock: clock)
    ])
  store.send(SearchField.changed("m"))  // held: no change yet
  store.send(SearchField.changed("mi"))
  await clock.advance(by: .milliseconds(300))
  await store.receive(SearchField.self) { $0.query = "mi" }
  store.finish()
}

// MARK: Not in the guide: the default clock

@Suite struct DefaultClockTests {
  @Test(
    "with the default continuous clock, a debounced action is delivered", .timeLimit(.minutes(1)))
  func continuousClock() async throws {
    let store = try makeNotesStore()
    store.dispatch(SearchField.changed("milk"))
    for await query in store.states(of: \.query) where query == "milk" { break }
    #expect(store.state.query == "milk")
  }
}
