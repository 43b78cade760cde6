import Reduce
import ReduceTesting
import ReduceThrottle
import Testing

/// A debounce and its `maxWait` driven by a `ManualClock`, with no polling and no real sleeps.
@Suite struct ThrottleClockTests {
  @Test("a debounced action is delivered when the clock reaches its deadline, 1,000 times in a row")
  func debounceDeterministic() async throws {
    for round in 1...1_000 {
      let clock = ManualClock()
      let store = try makeNotesStore(clock: clock)
      store.dispatch(SearchField.changed("m"))
      store.dispatch(SearchField.changed("mi"))
      await clock.advance(by: .milliseconds(299))
      #expect(store.state.query == "", "round \(round): delivered early")
      await clock.advance(by: .milliseconds(1))
      #expect(store.state.query == "mi", "round \(round)")
      if store.state.query != "mi" { break }
    }
  }

  @Test("maxWait delivers a debounced action that keeps being replaced, 1,000 times in a row")
  func maxWaitDeterministic() async throws {
    for round in 1...1_000 {
      let clock = ManualClock()
      let store = try makeNotesStore(clock: clock)
      // Saved every 1.5 s: the 2 s debounce never ends; the 10 s maxWait does.
      for second in 0..<7 {
        store.dispatch(Autosave.save(note: "n", text: "v\(second)"))
        await clock.advance(by: .milliseconds(1_500))
      }
      #expect(store.state.saved == ["n": "v6"], "round \(round)")
      if store.state.saved != ["n": "v6"] { break }
    }
  }
}
