import Foundation
import Logging
import NIOCore
import PostgresNIO

/// Listens to the journal's notification channel on a connection of its own, and counts the
/// notifications of one stream, so that readers can wait for the next one.
///
/// The connection is made on the first wait and made again after it is lost (PostgreSQL
/// restarted): a task keeps it until ``stop()``. While it is not listening, notifications are
/// lost; ``PostgresJournalSource/waitForLines(after:timeout:)`` makes up for it with a query once
/// listening.
final class NotificationListener: Sendable {
  private struct Waiter {
    var after: Int
    var continuation: CheckedContinuation<Void, Never>
    var timer: Scheduled<Void>?
  }

  private struct State {
    /// How many notifications of the stream arrived, plus one for every (re)connection.
    var heard = 0
    var listening = false
    var started = false
    var stopped = false
    var task: Task<Void, Never>?
    var waiters: [UUID: Waiter] = [:]
  }

  private let configuration: PostgresConnection.Configuration
  private let stream: String
  private let logger: Logger
  private let state = Monitor(State())

  init(configuration: PostgresConnection.Configuration, stream: String, logger: Logger) {
    self.configuration = configuration
    self.stream = stream
    self.logger = logger
  }

  /// Starts listening if needed and waits until it listens, or the deadline.
  ///
  /// - Returns: The count of notifications heard so far, to wait after; nil when not
  ///   listening by the deadline.
  func listening(until deadline: ContinuousClock.Instant) async -> Int? {
    startIfNeeded()
    while true {
      let (listening, heard, stopped) = state.withLock { ($0.listening, $0.heard, $0.stopped) }
      if listening { return heard }
      if stopped || ContinuousClock.now >= deadline || Task.isCancelled { return nil }
      await wait(after: heard, until: deadline)
    }
  }

  /// Waits until the count of notifications passes `heard`, the deadline passes, or the task is
  /// cancelled.
  func wait(after heard: Int, until deadline: ContinuousClock.Instant) async {
    let id = UUID()
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let now = state.withLock { state -> Bool in
          if state.heard > heard || state.stopped || Task.isCancelled { return true }
          state.waiters[id] = Waiter(after: heard, continuation: continuation)
          return false
        }
        if now {
          continuation.resume()
          return
        }
        let remaining = ContinuousClock.now.duration(to: deadline)
        let timer = JournalConnection.eventLoops.next().scheduleTask(
          in: .nanoseconds(max(0, JournalConnection.nanoseconds(remaining)))
        ) { [self] in
          if let waiter = take(id) { waiter.continuation.resume() }
        }
        let fired = state.withLock { state -> Bool in
          guard state.waiters[id] != nil else { return true }
          state.waiters[id]?.timer = timer
          return false
        }
        if fired { timer.cancel() }
      }
    } onCancel: {
      take(id)?.continuation.resume()
    }
  }

  /// Stops listening and wakes every waiter.
  func stop() {
    let (task, waiters) = state.withLock { state in
      state.stopped = true
      defer { state.waiters = [:] }
      return (state.task, Array(state.waiters.values))
    }
    task?.cancel()
    for waiter in waiters {
      waiter.timer?.cancel()
      waiter.continuation.resume()
    }
  }

  private func take(_ id: UUID) -> Waiter? {
    let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
    waiter?.timer?.cancel()
    return waiter
  }

  /// Counts a notification (or a change of connection) and wakes the waiters it concerns.
  private func heard(listening: Bool? = nil) {
    let ready = state.withLock { state -> [Waiter] in
      state.heard += 1
      if let listening { state.listening = listening }
      let ready = state.waiters.filter { $0.value.after < state.heard }
      for id in ready.keys { state.waiters[id] = nil }
      return Array(ready.values)
    }
    for waiter in ready {
      waiter.timer?.cancel()
      waiter.continuation.resume()
    }
  }

  private func startIfNeeded() {
    let start = state.withLock { state -> Bool in
      guard !state.started, !state.stopped else { return false }
      state.started = true
      return true
    }
    guard start else { return }
    let task = Task { [configuration, stream, logger, weak self] in
      while !Task.isCancelled {
        do {
          let connection = try await PostgresConnection.connect(
            on: JournalConnection.eventLoops.next(), configuration: configuration, id: 2,
            logger: logger)
          do {
            try await connection.listen(on: JournalSQL.channel) { notifications in
              self?.heard(listening: true)
              for try await notification in notifications where notification.payload == stream {
                self?.heard()
              }
            }
          } catch {
            logger.debug("journal listener stopped: \(error)")
          }
          try? await connection.close()
        } catch {
          logger.debug("journal listener cannot connect: \(error)")
        }
        guard let listener = self else { return }
        listener.heard(listening: false)
        try? await Task.sleep(for: .milliseconds(100))
      }
    }
    let stopped = state.withLock { state -> Bool in
      state.task = task
      return state.stopped
    }
    if stopped { task.cancel() }
  }
}
