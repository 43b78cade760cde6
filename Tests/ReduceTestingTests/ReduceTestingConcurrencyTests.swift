import Reduce
import ReduceTesting
import Testing

@Suite(.serialized) struct ReduceTestingConcurrencyTests {
  @Test(
    "a recording middleware keeps every action of many threads, each thread's in order",
    .timeLimit(.minutes(1)))
  func recordingFromManyThreads() async throws {
    let recorder = RecordingMiddleware<Counter>()
    let store = try Store(
      initialState: Counter(), mutators: [counterMutator], middleware: [recorder])
    let threads = 8
    let perThread = 500
    await withTaskGroup(of: Void.self) { group in
      for thread in 0..<threads {
        group.addTask {
          for index in 0..<perThread {
            store.dispatch(CounterAction.noted("\(thread):\(index)"))
          }
        }
      }
    }
    let notes = recorder.actions(of: CounterAction.self).compactMap { action -> (Int, Int)? in
      guard case .noted(let text) = action else { return nil }
      let parts = text.split(separator: ":").compactMap { Int($0) }
      return parts.count == 2 ? (parts[0], parts[1]) : nil
    }
    #expect(notes.count == threads * perThread)
    for thread in 0..<threads {
      #expect(notes.filter { $0.0 == thread }.map(\.1) == Array(0..<perThread))
    }
  }

  @Test(
    "sleepers registered from many tasks at once all resume in deadline order",
    .timeLimit(.minutes(1)))
  func manySleepers() async throws {
    let clock = ManualClock()
    let woke = Collector<Int>()
    let count = 200
    let tasks = (0..<count).map { index in
      // Deadlines in a scrambled order, all distinct.
      let millisecond = (index * 37) % count + 1
      return Task(executorPreference: clock) {
        try await clock.sleep(until: .zero.advanced(by: .milliseconds(millisecond)))
        woke.append(millisecond)
      }
    }
    await clock.settle()
    #expect(clock.sleeperCount == count)
    await clock.advance(by: .milliseconds(count))
    #expect(woke.values == Array(1...count))
    for task in tasks { try await task.value }
  }
}
