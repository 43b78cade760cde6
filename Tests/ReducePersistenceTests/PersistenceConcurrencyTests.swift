import Dispatch
import Foundation
import Reduce
import ReducePersistence
import ReduceTesting
import Testing

/// Dispatches from many threads while other threads flush: run under ThreadSanitizer in CI
/// (`--filter ConcurrencyTests`).
@Suite struct PersistenceConcurrencyTests {
  @Test("flushes racing dispatches and the timer leave the last state in the file")
  func flushesRaceDispatches() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let (store, persistence, clock) = try makeEditor(
      in: directory, debounce: .milliseconds(1), maxWait: .milliseconds(1))
    let writers = 4
    let edits = 200
    DispatchQueue.concurrentPerform(iterations: writers + 2) { index in
      if index < writers {
        for _ in 0..<edits { store.dispatch(Edit.typed("x")) }
      } else {
        for _ in 0..<edits / 4 { _ = try? persistence.flush() }
      }
    }
    await clock.advance(by: .milliseconds(1))
    try persistence.flush()
    let saved = try savedDocument(at: directory.file("editor.json")).state
    #expect(saved.body.count == writers * edits)
    #expect(saved == store.state.document)
    #expect(!persistence.hasPendingChanges)
  }
}
