import Foundation
import PostgresNIO
import Reduce
import ReduceLogging
import ReducePostgresCluster
import Testing

@testable import ReducePostgres

@Suite(.timeLimit(.minutes(2))) struct FailoverTests {
  @Test(
    "a standby reaches the primary's last acknowledged entry within a second of its death, is promoted once its lease lapsed, and the restarted old primary is refused"
  )
  func failover() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    // The primary's lease is 4 s (its commit timeout 2 s; 1 s made its commits time out on a
    // loaded machine): the promotion waits for it to lapse, since the standby cannot know that
    // the primary is dead.
    let primary = try ChildProcess(
      "ReducePostgresCrashWriter", arguments: [cluster.socketPath, stream, "primary"],
      environment: ["REDUCE_PG_LEASE_SECONDS": "4"])
    guard
      await offPool({ primary.waitForLine(startingWith: "start ", until: Date() + 30) }) != nil
    else {
      await offPool { primary.kill() }
      Issue.record("the primary did not start: \(primary.standardError)")
      return
    }
    let standby = try StandbyStore(
      initialState: Account(), mutators: [balance, deposits],
      journal: PostgresJournalSource(configuration: cluster.configuration, stream: stream),
      actions: ReplayableActions([Deposit.self]))
    // The primary writes while the standby follows, then dies.
    _ = await offPool { primary.waitForLine(startingWith: "ack 200", until: Date() + 30) }
    await offPool { primary.kill() }
    let killed = ContinuousClock.now
    let acknowledged =
      primary.lines.compactMap { line in
        line.hasPrefix("ack ") ? Int(line.dropFirst("ack ".count)) : nil
      }.last ?? 0
    #expect(acknowledged >= 200)
    // Each deposit is one entry: the entry of the last acknowledged one is its balance.
    try await standby.waitUntilApplied(through: acknowledged)
    let caughtUp = killed.duration(to: .now)
    #expect(caughtUp < .seconds(1), "the standby took \(caughtUp)")
    #expect(standby.state.balance >= acknowledged)

    let store = try await standby.promote(
      takingOver: stream, configuration: cluster.configuration, writer: "standby",
      lease: testLease, timeout: testTimeout)
    // Promoted once the dead primary's lease lapsed: its 4 s lease, and not the default 15 s,
    // after its death (with time for the catch-up and the promotion on a loaded machine;
    // LeaseTests times a takeover alone).
    let promotedAfter = killed.duration(to: .now)
    #expect(promotedAfter < .seconds(7), "promoted after \(promotedAfter)")
    let promoted = store.state.balance
    #expect(try store.dispatch(Deposit(amount: 1)).get().balance == promoted + 1)

    // The old primary, restarted on the same stream, is refused.
    let restarted = try ChildProcess(
      "ReducePostgresCrashWriter", arguments: [cluster.socketPath, stream, "primary"])
    await offPool { restarted.waitForExit() }
    #expect(restarted.process.terminationStatus == 3)
    #expect(restarted.lines == ["fenced standby"])

    // The journal verifies, and replays to the new primary's state.
    let replayed = try Store(initialState: Account(), mutators: [balance, deposits])
    let position = try await AuditLog.replay(
      from: PostgresJournalSource(configuration: cluster.configuration, stream: stream),
      into: replayed, actions: ReplayableActions([Deposit.self]), start: .beginning)
    #expect(position.sequence == promoted + 1)
    #expect(replayed.state == store.state)
  }

  @Test("a follower sees each commit of a writer in another connection, in seq order")
  func followerSeesCommits() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let source = PostgresJournalSource(configuration: cluster.configuration, stream: stream)
    let follower = Task {
      var sequences: [Int] = []
      for try await entry in JournalFollower(source, from: .beginning) {
        sequences.append(entry.sequence)
        if sequences.count == 40 { break }
      }
      return sequences
    }
    let sink = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    let store = try auditedStore(sink)
    await onThreads(4) { _ in
      for _ in 0..<10 { _ = store.dispatch(Deposit(amount: 1)) }
    }
    #expect(try await follower.value == Array(1...40))
  }
}
