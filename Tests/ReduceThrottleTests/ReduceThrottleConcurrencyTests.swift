import Reduce
import ReduceTesting
import ReduceThrottle
import Testing

@Suite(.serialized) struct ReduceThrottleConcurrencyTests {
  @Test(
    "actions from many threads to distinct keys are each held once and all delivered on flush",
    .timeLimit(.minutes(1)))
  func distinctKeysFromManyThreads() async throws {
    let harness = try Harness([
      .debounce(SaveAction.self, for: .seconds(60)) { $0.doc }
    ])
    let threads = 8
    let perThread = 250
    await withTaskGroup(of: Void.self) { group in
      for thread in 0..<threads {
        group.addTask {
          for index in 0..<perThread {
            harness.store.dispatch(SaveAction.save(doc: "\(thread)-\(index)", text: "x"))
          }
        }
      }
    }
    #expect(harness.throttle.heldCount == threads * perThread)
    harness.throttle.flush()
    let saves = harness.store.state.saves
    #expect(saves.count == threads * perThread)
    #expect(Set(saves).count == threads * perThread)
  }

  @Test(
    "many threads on one throttled key: one passes at once, one more when the interval ends",
    .timeLimit(.minutes(1)))
  func oneKeyFromManyThreads() async throws {
    let harness = try Harness([.throttle(ScrollAction.self, for: .seconds(1), latest: true)])
    await withTaskGroup(of: Void.self) { group in
      for thread in 0..<8 {
        group.addTask {
          for index in 0..<200 {
            harness.store.dispatch(ScrollAction.scrolled(to: thread * 1000 + index))
          }
        }
      }
    }
    #expect(harness.timeline.values.count == 1)
    #expect(harness.throttle.heldCount == 1)
    await harness.advance(to: 1000)
    let values = harness.timeline.values
    #expect(values.count == 2)
    #expect(values.last?.hasSuffix("@1000") == true)
    await harness.advance(to: 10_000)
    #expect(harness.timeline.values.count == 2)
  }
}
