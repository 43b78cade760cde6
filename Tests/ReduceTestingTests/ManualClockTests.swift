import ReduceTesting
import Testing

@Suite struct ManualClockTests {
  typealias Instant = ManualClock.Instant

  @Test("now starts at the origin and moves only by advance")
  func nowMovesOnlyByAdvance() async {
    let clock = ManualClock()
    #expect(clock.now == .zero)
    #expect(clock.now == clock.now)
    await clock.advance(by: .milliseconds(1500))
    #expect(clock.now == Instant(offset: .milliseconds(1500)))
    await clock.advance(to: Instant(offset: .seconds(4)))
    #expect(clock.now == Instant(offset: .seconds(4)))
  }

  @Test("time never moves backwards")
  func neverBackwards() async {
    let clock = ManualClock(now: Instant(offset: .seconds(10)))
    await clock.advance(by: .seconds(-3))
    #expect(clock.now == Instant(offset: .seconds(10)))
    await clock.advance(to: Instant(offset: .seconds(2)))
    #expect(clock.now == Instant(offset: .seconds(10)))
  }

  @Test("sleepers resume in deadline order, each at its own deadline", .timeLimit(.minutes(1)))
  func deadlineOrder() async throws {
    let clock = ManualClock()
    let woke = Collector<String>()
    var tasks: [Task<Void, any Error>] = []
    for (name, seconds) in [("c", 3), ("a", 1), ("b", 2), ("a2", 1)] {
      tasks.append(
        Task(executorPreference: clock) {
          try await clock.sleep(for: .seconds(seconds))
          woke.append("\(name)@\(clock.now)")
        })
      await clock.settle()
    }
    #expect(clock.sleeperCount == 4)
    #expect(clock.nextDeadline == Instant(offset: .seconds(1)))
    await clock.advance(by: .seconds(5))
    #expect(woke.values == ["a@1.0 seconds", "a2@1.0 seconds", "b@2.0 seconds", "c@3.0 seconds"])
    #expect(clock.now == Instant(offset: .seconds(5)))
    for task in tasks { try await task.value }
  }

  @Test(
    "work a woken task does, and sleeps it starts within the advance, finish before advance returns",
    .timeLimit(.minutes(1)))
  func followUpWork() async throws {
    let clock = ManualClock()
    let woke = Collector<String>()
    let task = Task(executorPreference: clock) {
      for step in 1...3 {
        try await clock.sleep(for: .seconds(1))
        woke.append("step \(step) at \(clock.now)")
      }
    }
    await clock.settle()
    await clock.advance(by: .milliseconds(2500))
    #expect(woke.values == ["step 1 at 1.0 seconds", "step 2 at 2.0 seconds"])
    #expect(clock.nextDeadline == Instant(offset: .seconds(3)))
    await clock.advance(by: .milliseconds(500))
    #expect(woke.values.count == 3)
    try await task.value
  }

  @Test("a sleeper whose deadline is not reached stays asleep", .timeLimit(.minutes(1)))
  func notYetDue() async {
    let clock = ManualClock()
    let woke = Collector<Instant>()
    let task = Task(executorPreference: clock) {
      try await clock.sleep(until: Instant(offset: .seconds(2)))
      woke.append(clock.now)
    }
    await clock.settle()
    await clock.advance(by: .milliseconds(1999))
    #expect(woke.values.isEmpty)
    #expect(clock.sleeperCount == 1)
    await clock.advance(by: .milliseconds(1))
    #expect(woke.values == [Instant(offset: .seconds(2))])
    task.cancel()
  }

  @Test("a deadline that is not later than now returns at once")
  func pastDeadline() async throws {
    let clock = ManualClock(now: Instant(offset: .seconds(5)))
    try await clock.sleep(until: Instant(offset: .seconds(5)))
    try await clock.sleep(until: Instant(offset: .seconds(1)))
    #expect(clock.sleeperCount == 0)
  }

  @Test(
    "cancelling a sleeping task ends its sleep at once with CancellationError",
    .timeLimit(.minutes(1)))
  func cancellation() async {
    let clock = ManualClock()
    let task = Task(executorPreference: clock) {
      try await clock.sleep(for: .seconds(60))
    }
    await clock.settle()
    #expect(clock.sleeperCount == 1)
    task.cancel()
    let result = await task.result
    #expect(throws: CancellationError.self) { try result.get() }
    #expect(clock.sleeperCount == 0)
    #expect(clock.now == .zero)
  }

  @Test("a task cancelled before it sleeps does not sleep", .timeLimit(.minutes(1)))
  func cancelledBeforeSleeping() async {
    let clock = ManualClock()
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await clock.sleep(for: .seconds(1))
    }
    let result = await task.result
    #expect(throws: CancellationError.self) { try result.get() }
    #expect(clock.sleeperCount == 0)
  }

  @Test("a task that does not run on the clock is resumed by advance too", .timeLimit(.minutes(1)))
  func plainTask() async throws {
    let clock = ManualClock()
    let task = Task {
      try await clock.sleep(until: Instant(offset: .seconds(1)))
      return clock.now
    }
    while clock.sleeperCount == 0 { await Task.yield() }
    await clock.advance(by: .seconds(1))
    #expect(try await task.value == Instant(offset: .seconds(1)))
  }

  @Test("instants compare, measure and describe their offset")
  func instants() {
    let one = Instant(offset: .seconds(1))
    let later = one.advanced(by: .milliseconds(500))
    #expect(one < later)
    #expect(one.duration(to: later) == .milliseconds(500))
    #expect(later.duration(to: one) == .milliseconds(-500))
    #expect(later.description == "1.5 seconds")
    #expect(ManualClock().minimumResolution == .zero)
  }
}
