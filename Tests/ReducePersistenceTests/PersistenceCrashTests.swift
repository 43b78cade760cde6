import Foundation
import Reduce
import ReduceExecutableSupport
import ReducePersistence
import ReduceTesting
import Testing

/// The child's state, as `Tests/PersistenceCrashWriter/main.swift` keeps it.
struct Ledger: Codable, Equatable, Sendable {
  var counter = 0
  var copies: [Int] = Array(repeating: 0, count: 2_000)

  /// Whether this is a state the child can have had: `counter`, 2,000 times.
  var isConsistent: Bool {
    copies.count == 2_000 && copies.allSatisfy { $0 == counter }
  }
}

/// Kills a process that saves a changing state at random moments, over and over, and checks
/// after each kill what an atomic replace promises: the file holds a whole state the process
/// had, the last one it saved or the one it was writing.
@Suite struct PersistenceCrashTests {
  @Test("after 100 kills at random moments the file always holds a whole, saved state")
  func killedWriter() throws {
    let writer = try Executables.url("PersistenceCrashWriter")
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("ledger.json")
    // The counter the file must hold at least: the last save the child said had returned.
    var saved = 0
    var progressed = 0
    for round in 1...100 {
      let child = try CrashChild(writer, arguments: [path])
      let started = child.waitForLine(startingWith: "start ", until: Date() + 20)
      guard let start = started.flatMap({ Int($0.dropFirst("start ".count)) }) else {
        Issue.record("round \(round): the writer did not restore its file: \(child.stop())")
        return
      }
      // Restored by the child itself: the last state saved, or the one written when killed.
      #expect(start == saved || start == saved + 1, "round \(round): \(start) after \(saved)")
      // Two rounds in three are killed after the child's first save of the round, at a random
      // moment of a later one; the third, at any moment from its start, before a save too. So
      // most rounds progress however slowly the child runs (a sanitizer, a loaded machine).
      if round % 3 != 0 {
        _ = child.waitForLine(startingWith: "saved ", until: Date() + 20)
      }
      usleep(UInt32.random(in: 0...20_000))
      child.kill()
      let saves = child.lines.compactMap { line in
        line.hasPrefix("saved ") ? Int(line.dropFirst("saved ".count)) : nil
      }
      let last = saves.last ?? start
      guard let ledger = try restored(path) else {
        // Killed before its first save: no file yet, and nothing said to be saved.
        #expect(saved == 0 && saves.isEmpty, "round \(round): the file is gone")
        continue
      }
      #expect(ledger.isConsistent, "round \(round): a torn state")
      #expect(
        ledger.counter == last || ledger.counter == last + 1,
        "round \(round): the file holds \(ledger.counter), the child saved \(last) last")
      if ledger.counter > start { progressed += 1 }
      saved = ledger.counter
    }
    #expect(progressed > 50, "most rounds saved something before the kill")
    // A kill between creating the temporary file and renaming it leaves the temporary file;
    // the real file is never touched by one.
    let names = try directory.names().filter { $0 != "ledger.json" }
    #expect(names.allSatisfy { $0.hasPrefix(".ledger.json.tmp-") })
  }

  /// The ledger in the file, restored as the app restores it; nil when there is no file.
  func restored(_ path: String) throws -> Ledger? {
    try PersistenceMiddleware<Ledger, Ledger>(file: path, clock: ManualClock()).restoredValue
  }
}
