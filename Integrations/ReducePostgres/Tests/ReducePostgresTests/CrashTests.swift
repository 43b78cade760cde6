import Foundation
import PostgresNIO
import Reduce
import ReduceLogging
import ReducePostgresCluster
import Testing

@testable import ReducePostgres

/// Kills a primary that keeps its journal in PostgreSQL at random moments, over and over, and
/// checks after each kill what a write-ahead log promises.
@Suite(.timeLimit(.minutes(5))) struct CrashTests {
  @Test(
    "after 100 kills at random moments, every acknowledged dispatch is in the table and the chain verifies"
  )
  func killedPrimary() async throws {
    let cluster = try sharedCluster.get()
    let stream = uniqueStream()
    var acknowledged = 0
    for round in 1...100 {
      // The test killed the previous process (SIGKILL), so it knows it is dead: the restart
      // opens the stream at once rather than wait for that process's lease to lapse.
      let child = try ChildProcess(
        "ReducePostgresCrashWriter", arguments: [cluster.socketPath, stream, "primary"],
        environment: ["REDUCE_PG_IGNORING_HOLDER_LEASE": "1"])
      let started = await offPool { child.waitForLine(startingWith: "start ", until: Date() + 30) }
      guard let fields = started?.split(separator: " "), fields.count == 3,
        let start = Int(fields[1]), let sequence = Int(fields[2])
      else {
        await offPool { child.kill() }
        Issue.record("round \(round): the writer did not restart: \(child.standardError)")
        return
      }
      // The state rebuilt from the journal holds every acknowledged deposit, and at most the
      // one whose commit was under way at the kill.
      #expect(start >= acknowledged && start <= acknowledged + 1, "round \(round)")
      #expect(start == sequence, "round \(round): one entry per deposit")
      await offPool {
        usleep(UInt32.random(in: 0...20_000))
        child.kill()
      }
      let acks = child.lines.compactMap { line in
        line.hasPrefix("ack ") ? Int(line.dropFirst("ack ".count)) : nil
      }
      acknowledged = max(start, acks.last ?? start)
      let lines = try await storedLines(stream, in: cluster)
      // Every acknowledged dispatch is in the table, and the lines verify byte for byte.
      #expect(lines.count >= acknowledged, "round \(round)")
      #expect(try AuditLog.verify(lines.flatMap { $0.1 + [UInt8(ascii: "\n")] }) == lines.count)
    }
    #expect(acknowledged > 100)
  }
}
