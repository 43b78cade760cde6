import Foundation
import Testing

@testable import Reduce

/// The store's executor on its own: one body at a time, each on its caller's thread.
@Suite(.serialized) struct TurnTests {
  /// A counter changed without a lock of its own: only the turn keeps it exact.
  final class Unguarded: @unchecked Sendable {
    var value = 0
    var inside = 0
    var overlaps = 0
  }

  @Test("threads take turns: no two bodies overlap, and none is lost", .timeLimit(.minutes(1)))
  func threads() {
    let turn = Turn()
    let counter = Unguarded()
    let done = DispatchGroup()
    for _ in 0..<8 {
      done.enter()
      Thread {
        for _ in 0..<10_000 {
          turn.run {
            counter.inside += 1
            if counter.inside > 1 { counter.overlaps += 1 }
            counter.value += 1
            counter.inside -= 1
          }
        }
        done.leave()
      }.start()
    }
    done.wait()
    #expect(counter.value == 80_000)
    #expect(counter.overlaps == 0)
  }

  @Test("tasks and threads take turns together", .timeLimit(.minutes(1)))
  func tasksAndThreads() async {
    let turn = Turn()
    let counter = Unguarded()
    let threads = DispatchGroup()
    for _ in 0..<4 {
      threads.enter()
      Thread {
        for _ in 0..<5_000 { turn.run { counter.value += 1 } }
        threads.leave()
      }.start()
    }
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<1_000 {
        group.addTask {
          for _ in 0..<20 { await turn.runSuspending { counter.value += 1 } }
        }
      }
    }
    await withCheckedContinuation { continuation in
      threads.notify(queue: .global()) { continuation.resume() }
    }
    #expect(counter.value == 4 * 5_000 + 1_000 * 20)
  }

  @Test("a body runs on its caller's thread, which alone is told it holds the turn")
  func callerThread() throws {
    let turn = Turn()
    #expect(!turn.isHeldByCurrentThread)
    let caller = Thread.current
    let inside = turn.run { (Thread.current === caller, turn.isHeldByCurrentThread) }
    #expect(inside.0 && inside.1)
    #expect(!turn.isHeldByCurrentThread)
    let other = Unguarded()
    let started = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    Thread {
      turn.run {
        started.signal()
        release.wait()
      }
    }.start()
    started.wait()
    #expect(!turn.isHeldByCurrentThread, "another thread holds it")
    release.signal()
    turn.run { other.value = 1 }
    #expect(other.value == 1)
  }

  @Test("a body that throws releases the turn")
  func throwing() {
    struct Failure: Error {}
    let turn = Turn()
    #expect(throws: Failure.self) { try turn.run { () throws(Failure) in throw Failure() } }
    #expect(turn.run { 1 } == 1)
  }
}
