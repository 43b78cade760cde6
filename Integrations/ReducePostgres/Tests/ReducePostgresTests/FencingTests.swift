import Foundation
import PostgresNIO
import Reduce
import ReduceLogging
import ReducePostgresCluster
import Testing

@testable import ReducePostgres

@Suite(.timeLimit(.minutes(2))) struct FencingTests {
  @Test("a second writer cannot open a stream another writer holds")
  func secondWriterRefused() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    _ = try await PostgresLogSink.open(
      configuration: cluster.configuration, stream: stream, writer: "a")
    await #expect(throws: PostgresJournalError.fenced(stream: stream, holder: "a")) {
      _ = try await PostgresLogSink.open(
        configuration: cluster.configuration, stream: stream, writer: "b")
    }
  }

  @Test(
    "after a takeover, the old writer's next dispatch is refused before it changes anything, and so is every later one"
  )
  func takeoverFencesOldWriter() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let (old, store) = try await writerWithOneDeposit(stream, in: cluster)
    let new = try await openSink(stream, writer: "b", in: cluster, takingOver: true)
    #expect(new.term == old.term + 1)
    #expect(new.openedPosition.sequence == 1)
    // The old writer saw the takeover's request (at a renewal) before its lease lapsed: its
    // entries are refused in the store's turn, before their changes are made.
    for amount in [10, 100] {
      #expect(refusedDeposit(amount, to: store) == .fenced(stream: stream, holder: "b"))
    }
    #expect(store.state == afterOneDeposit)
    // The new writer continues the chain after the old writer's last committed entry.
    #expect(try await continueAfterOneDeposit(with: new, in: cluster) == 2)
  }

  @Test("the old writer, restarted after a takeover, is refused")
  func restartedOldWriterRefused() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let old = try await openSink(stream, writer: "a", in: cluster)
    _ = try await openSink(stream, writer: "b", in: cluster, takingOver: true)
    old.close()
    await #expect(throws: PostgresJournalError.fenced(stream: stream, holder: "b")) {
      _ = try await PostgresLogSink.open(
        configuration: cluster.configuration, stream: stream, writer: "a")
    }
  }

  @Test("a writer cannot reopen its stream while another writer waits to take it over")
  func reopenDuringTakeoverRefused() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let old = try await openSink(stream, writer: "a", in: cluster)
    let taking = Task { try await openSink(stream, writer: "b", in: cluster, takingOver: true) }
    // Until the takeover raised the term, the request is on the stream's row.
    try await Task.sleep(for: .milliseconds(500))
    await #expect(throws: PostgresJournalError.fenced(stream: stream, holder: "b")) {
      _ = try await openSink(stream, writer: "a", in: cluster)
    }
    #expect(try await taking.value.term == old.term + 1)
  }

  @Test(
    "a second sink of the same writer is refused at open while the first's lease runs, and nothing changes"
  )
  func secondSessionRefused() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let (first, firstStore) = try await writerWithOneDeposit(stream, in: cluster)
    let start = ContinuousClock.now
    do {
      _ = try await openSink(
        stream, writer: "a", in: cluster, takeoverTimeout: .milliseconds(2500))
      Issue.record("the second sink of the writer opened while the first held the lease")
    } catch .leaseHeld(let failed, let holder, let waited) {
      #expect(failed == stream)
      #expect(holder == "a (another session of this writer)")
      #expect(waited >= .milliseconds(2500))
    }
    #expect(start.duration(to: .now) >= .milliseconds(2500))
    // The first sink is untouched: same term, its lease runs, its changes are committed.
    #expect(first.stopReason == nil)
    _ = try firstStore.dispatch(Deposit(amount: 2)).get()
    #expect(firstStore.state == Account(balance: 3, deposits: [1, 2]))
    #expect(try await leaseRemaining(stream, in: cluster) > 0)
    #expect(try await verifiedEntries(stream, in: cluster) == 2)
    #expect(try await replayed(stream, in: cluster, through: 2) == firstStore.state)
  }

  @Test("after the first sink of a writer is closed, the second opens at once and continues")
  func secondSessionAfterClose() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let (first, _) = try await writerWithOneDeposit(stream, in: cluster)
    first.close()
    let start = ContinuousClock.now
    let second = try await openSink(
      stream, writer: "a", in: cluster, takeoverTimeout: .seconds(30))
    #expect(start.duration(to: .now) < testLease - testTimeout)
    #expect(second.term == first.term)
    #expect(second.openedPosition.sequence == 1)
    #expect(try await continueAfterOneDeposit(with: second, in: cluster) == 2)
  }

  @Test(
    "a sink whose session another sink of the writer claimed stops at its next renewal, before it changes anything"
  )
  func claimedSessionFencesFirst() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    let (first, firstStore) = try await writerWithOneDeposit(stream, in: cluster)
    // A supervisor sure the first process is dead (it is not: a paused process, say).
    let second = try await openSink(stream, writer: "a", in: cluster, ignoringHolderLease: true)
    #expect(second.term == first.term)
    // The first sink's renewal (due every 0.67 s while idle) finds the session taken.
    let fenced = PostgresJournalError.fenced(
      stream: stream, holder: "a (another session of this writer)")
    let deadline = ContinuousClock.now + .seconds(20)
    while first.stopReason == nil, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(50))
    }
    #expect(first.stopReason == fenced)
    #expect(refusedDeposit(10, to: firstStore) == fenced)
    #expect(firstStore.state == afterOneDeposit)
    #expect(try await continueAfterOneDeposit(with: second, in: cluster) == 2)
  }

  @Test("a commit of a sink whose session another sink of the writer claimed is fenced")
  func claimedSessionFencesCommit() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    // The default lease (15 s, 10 s of it the margin): no renewal of the first sink runs
    // during the test.
    let (first, firstStore) = try await writerWithOneDeposit(
      stream, in: cluster, lease: .seconds(15), timeout: .seconds(10))
    let second = try await openSink(
      stream, writer: "a", in: cluster, ignoringHolderLease: true, lease: .seconds(15),
      timeout: .seconds(10))
    let fenced = PostgresJournalError.fenced(
      stream: stream, holder: "a (another session of this writer)")
    // The risk `ignoringHolderLease` takes: the change was made, and is not in the journal.
    #expect(refusedDeposit(10, to: firstStore) == fenced)
    #expect(first.stopReason == fenced)
    #expect(try await continueAfterOneDeposit(with: second, in: cluster) == 2)
    #expect(try await replayed(stream, in: cluster, through: 2).deposits == [1, 2])
  }
}
