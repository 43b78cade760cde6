/// The time of a persistence, read from its injected clock as durations since the clock's
/// instant when the persistence was made, so that the engine needs no clock type parameter.
struct PersistenceTiming: Sendable {
  /// The time elapsed since the origin.
  let now: @Sendable () -> Duration
  /// Sleeps until a time since the origin.
  let sleep: @Sendable (Duration) async throws -> Void
  /// The executor the timer task prefers: the clock itself when it is a `TaskExecutor` (a test
  /// clock that runs timed work when it advances), else none.
  let executor: (any TaskExecutor)?

  init<C: Clock>(clock: C) where C.Duration == Duration {
    let origin = clock.now
    now = { origin.duration(to: clock.now) }
    sleep = { deadline in
      try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil)
    }
    executor = clock as? any TaskExecutor
  }
}
