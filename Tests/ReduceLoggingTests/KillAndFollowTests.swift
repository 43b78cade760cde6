import Foundation
import Reduce
import ReduceExecutableSupport
import ReduceLogging
import Synchronization
import Testing

/// A standby follows the file journal of a primary process that is killed at random moments,
/// over and over; then it is promoted.
@Suite struct KillAndFollowTests {
  // The state and action of Tests/AuditCrashWriter, under the same names.
  struct Account: Codable, Equatable, Sendable {
    var balance = 0
    var deposits: [Int] = []
  }

  struct Deposit: Action, Codable {
    var amount: Int
  }

  static let balance = Mutator(\Account.balance) { (balance: inout Int, action: Deposit) in
    balance += action.amount
  }
  static let deposits = Mutator(\Account.deposits) { (deposits: inout [Int], action: Deposit) in
    deposits.append(action.amount)
  }

  @Test(
    "a standby reaches the last acknowledged entry within a second of each kill; promoted, it holds every acknowledged entry and the chain verifies",
    .timeLimit(.minutes(5)))
  func killAndFollow() async throws {
    let writer = try Executables.url("AuditCrashWriter")
    let path = temporaryLogPath()
    defer {
      let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
      let name = URL(fileURLWithPath: path).lastPathComponent
      for file in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
      where file.hasPrefix(name) {
        removeLog(directory + "/" + file)
      }
    }
    let standby = try StandbyStore(
      initialState: Account(), mutators: [Self.balance, Self.deposits],
      journal: FileJournal(path: path), actions: ReplayableActions([Deposit.self]),
      start: .beginning, pollTimeout: .milliseconds(200))
    // When the standby applied each balance, timed on its own thread: what the test's own
    // task sees later depends on how busy the cooperative pool is.
    let reached = Mutex<[Int: ContinuousClock.Instant]>([:])
    let watch = standby.subscribe(to: \.balance) { balance in
      reached.withLock { $0[balance] = .now }
    }
    defer { watch.cancel() }
    var acknowledged = 0
    var slowest = Duration.zero
    let rounds = 20
    for round in 1...rounds {
      let child = try CrashChild(writer, arguments: [path])
      guard child.waitForLine(startingWith: "start ", until: Date() + 20) != nil else {
        Issue.record("round \(round): the writer did not start: \(child.stop())")
        return
      }
      if round == rounds {
        // While the primary lives, it holds the file's lock: a promotion is refused, and the
        // standby goes on following.
        await #expect(throws: StandbyError.self) {
          _ = try await standby.promote(appendingTo: path)
        }
      }
      usleep(UInt32.random(in: 1_000...20_000))
      child.kill()
      let killed = ContinuousClock.now
      let acks = child.lines.compactMap { line in
        line.hasPrefix("ack ") ? Int(line.dropFirst("ack ".count)) : nil
      }
      acknowledged = max(acknowledged, acks.last ?? 0)
      // One deposit of 1 per entry: the entry of the acknowledged balance N has `seq` N.
      try await standby.waitUntilApplied(through: acknowledged)
      let applied = reached.withLock { $0[acknowledged] } ?? .now
      let delay = max(.zero, killed.duration(to: applied))
      slowest = max(slowest, delay)
      #expect(delay < .seconds(1), "round \(round)")
      #expect(standby.state.balance >= acknowledged, "round \(round)")
      #expect(standby.failure == nil, "round \(round)")
    }
    let promoted = try await standby.promote(appendingTo: path)
    let balance = promoted.state.balance
    #expect(balance >= acknowledged)
    #expect(promoted.state.deposits == Array(repeating: 1, count: balance))
    _ = try promoted.dispatch(Deposit(amount: 1)).get()
    let log = try AuditLog.verify(contentsOf: [URL(fileURLWithPath: path)], start: .genesis)
    #expect(log.entries == balance + 1)
    print(
      "KillAndFollowTests: \(rounds) kills, \(acknowledged) acknowledged deposits; the standby "
        + "reached the last acknowledged entry at most \(slowest) after a kill")
  }
}
