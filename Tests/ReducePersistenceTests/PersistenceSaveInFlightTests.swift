import Foundation
import Reduce
import ReducePersistence
import ReduceTesting
import Testing

/// Holds the first save that passes it once armed, until the test opens it.
///
/// A slow disk or a slow encoding, without sleeps. Later saves pass at once. The test awaits
/// ``holding()`` (a blocking wait could take the thread the timer's advance needs).
///
/// `@unchecked Sendable`: every access holds `condition`.
final class SaveGate: @unchecked Sendable {
  private let condition = NSCondition()
  private var armed = false
  private var isHolding = false
  private var opened = false
  private var waiter: CheckedContinuation<Void, Never>?

  /// Makes the next save that passes wait for ``open()``.
  func arm() {
    condition.withLock { armed = true }
  }

  /// Called by each save: holds the first one after ``arm()``.
  func pass() {
    condition.lock()
    guard armed else {
      condition.unlock()
      return
    }
    armed = false
    isHolding = true
    let waiting = waiter
    waiter = nil
    condition.unlock()
    waiting?.resume()
    condition.withLock {
      while !opened { condition.wait() }
    }
  }

  /// Returns once a save is held.
  func holding() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = condition.withLock {
        guard !isHolding else { return true }
        waiter = continuation
        return false
      }
      if now { continuation.resume() }
    }
  }

  /// Lets the held save go on.
  func open() {
    condition.withLock {
      opened = true
      condition.broadcast()
    }
  }
}

/// The titles of the `onSave` outcomes, in the order they came: `failed` for a failure.
final class SavedTitles: @unchecked Sendable {
  // `@unchecked Sendable`: every access holds `lock`.
  private let lock = NSLock()
  private var titles: [String] = []

  func record(_ outcome: SaveOutcome<Document>) {
    let title: String
    switch outcome {
    case .saved(let document): title = document.title
    case .failed: title = "failed"
    }
    lock.withLock { titles.append(title) }
  }

  var value: [String] { lock.withLock { titles } }
}

/// A save in flight (the timer's, slowed by a ``SaveGate`` in an attachment's `save`) when the
/// app flushes or leaves the store: what is on disk once the flush returned.
@Suite struct PersistenceSaveInFlightTests {
  /// A persistence whose saves pass `gate`, the store it serves, and its clock.
  func makeGatedEditor(
    in directory: TemporaryDirectory, gate: SaveGate, titles: SavedTitles
  ) throws -> (Store<Editor>, PersistenceMiddleware<Editor, Document>, ManualClock) {
    let clock = ManualClock()
    let slow = PersistenceAttachment<Document>(
      key: "gate",
      save: { () -> Int? in
        gate.pass()
        return nil
      },
      restore: { (_: Int, _) in })
    let persistence = try PersistenceMiddleware(
      file: directory.file("editor.json"), scope: \Editor.document, debounce: .seconds(1),
      maxWait: nil, clock: clock, attachments: [slow]
    ) { outcome -> (any Action)? in
      titles.record(outcome)
      return nil
    }
    let store = try Store(
      initialState: persistence.restoring(Editor()), mutators: editorMutators,
      middleware: [persistence])
    return (store, persistence, clock)
  }

  func savedTitle(_ directory: TemporaryDirectory) throws -> String {
    try savedDocument(at: directory.file("editor.json")).state.title
  }

  @Test(
    "a flush while the timer's save of the newest value is in flight returns once that value is in the file",
    .timeLimit(.minutes(1)))
  func flushDuringTimerSaveOfNewest() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let gate = SaveGate()
    defer { gate.open() }
    let titles = SavedTitles()
    let (store, persistence, clock) = try makeGatedEditor(
      in: directory, gate: gate, titles: titles)
    store.dispatch(Edit.titled("one"))
    #expect(try persistence.flush())
    gate.arm()
    store.dispatch(Edit.titled("two"))
    // The timer takes "two" and is held before it encodes it.
    let timer = Task { await clock.advance(by: .seconds(1)) }
    await gate.holding()
    #expect(persistence.hasPendingChanges, "a value a save has taken is not in the file yet")
    #expect(try savedTitle(directory) == "one")

    // The flush at the end of `main`: the process may exit as soon as it returns.
    #expect(try persistence.flush())
    #expect(try savedTitle(directory) == "two")
    #expect(!persistence.hasPendingChanges)

    gate.open()
    await timer.value
    #expect(try savedTitle(directory) == "two")
    #expect(persistence.lastSaveError == nil)
    // The timer's save found "two" written: it reports nothing.
    #expect(titles.value == ["one", "two"])
  }

  @Test(
    "a timer's save of an older value, in flight during a flush, neither replaces the newest value nor reports after it",
    .timeLimit(.minutes(1)))
  func flushDuringTimerSaveOfOlderValue() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let gate = SaveGate()
    defer { gate.open() }
    let titles = SavedTitles()
    let (store, persistence, clock) = try makeGatedEditor(
      in: directory, gate: gate, titles: titles)
    gate.arm()
    store.dispatch(Edit.titled("one"))
    let timer = Task { await clock.advance(by: .seconds(1)) }
    await gate.holding()
    store.dispatch(Edit.titled("two"))

    #expect(try persistence.flush())
    #expect(try savedTitle(directory) == "two")

    gate.open()
    await timer.value
    #expect(try savedTitle(directory) == "two")
    #expect(!persistence.hasPendingChanges)
    #expect(titles.value == ["two"], "the status a save reports is never older than the file")
  }

  @Test(
    "leaving the store while the timer's save of the newest value is in flight writes it",
    .timeLimit(.minutes(1)))
  func detachDuringTimerSave() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let gate = SaveGate()
    defer { gate.open() }
    let titles = SavedTitles()
    let (store, persistence, clock) = try makeGatedEditor(
      in: directory, gate: gate, titles: titles)
    gate.arm()
    store.dispatch(Edit.titled("one"))
    let timer = Task { await clock.advance(by: .seconds(1)) }
    await gate.holding()

    store.removeMiddleware(named: persistence.name)
    #expect(try savedTitle(directory) == "one")
    #expect(!persistence.hasPendingChanges)

    gate.open()
    await timer.value
    #expect(try savedTitle(directory) == "one")
  }
}
