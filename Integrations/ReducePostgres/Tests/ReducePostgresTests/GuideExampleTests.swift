import Foundation
import PostgresNIO
import Reduce
import ReduceLogging
import ReducePostgres
import Testing

// The example of the PostgreSQL section of Guides/MultipleMachines.md, kept here so that it
// keeps compiling and doing what the text says.

enum PostgresGuide {
  // MARK: The guide's code, as it is there

  struct Ledger: Codable, Equatable, Sendable {
    var balances: [String: Int] = [:]
  }

  enum LedgerAction: Action, Codable {
    case deposited(account: String, amount: Int)
  }

  static let balances = Mutator(\Ledger.balances) {
    (balances: inout [String: Int], action: LedgerAction) in
    switch action {
    case .deposited(let account, let amount): balances[account, default: 0] += amount
    }
  }

  static let actions = ReplayableActions([LedgerAction.self])

  /// The primary: takes its stream (refused while another writer holds it), rebuilds its state
  /// from it, then records every change in it.
  static func makePrimary(
    _ configuration: PostgresConnection.Configuration, stream: String, writer: String
  ) async throws -> Store<Ledger> {
    let sink = try await PostgresLogSink.open(
      configuration: configuration, stream: stream, writer: writer)
    let store = try Store(initialState: Ledger(), mutators: [balances])
    let position = try await AuditLog.replay(
      from: PostgresJournalSource(configuration: configuration, stream: stream), into: store,
      actions: actions, through: sink.openedPosition.sequence)
    guard position == sink.openedPosition else {
      throw StandbyError.diverged(applied: position, journal: sink.openedPosition)
    }
    try store.use(AuditTrail<Ledger>(sink: sink))
    return store
  }

  /// A standby on another machine: follows the stream.
  static func makeStandby(_ configuration: PostgresConnection.Configuration, stream: String)
    throws -> StandbyStore<Ledger>
  {
    try StandbyStore(
      initialState: Ledger(), mutators: [balances],
      journal: PostgresJournalSource(configuration: configuration, stream: stream),
      actions: actions)
  }

  /// The operator decided that the primary is gone: the standby takes the stream over.
  static func failOver(
    _ standby: StandbyStore<Ledger>, _ configuration: PostgresConnection.Configuration,
    stream: String
  ) async throws -> Store<Ledger> {
    try await standby.promote(takingOver: stream, configuration: configuration, writer: "host-b")
  }
}

@Suite(.timeLimit(.minutes(2))) struct GuideExampleTests {
  @Test("the guide's primary, standby and failover do what the guide says")
  func guideExample() async throws {
    let configuration = try sharedCluster.get().configuration
    let stream = uniqueStream()
    let primary = try await PostgresGuide.makePrimary(
      configuration, stream: stream, writer: "host-a")
    _ = try primary.dispatch(PostgresGuide.LedgerAction.deposited(account: "ada", amount: 100))
      .get()
    let standby = try PostgresGuide.makeStandby(configuration, stream: stream)
    try await standby.waitUntilApplied(through: 1)
    #expect(standby.state.balances == ["ada": 100])

    let promoted = try await PostgresGuide.failOver(standby, configuration, stream: stream)
    _ = try promoted.dispatch(PostgresGuide.LedgerAction.deposited(account: "ada", amount: 5))
      .get()
    #expect(promoted.state.balances == ["ada": 105])
    // The old primary is fenced, running or restarted.
    #expect(throws: DispatchError.self) {
      try primary.dispatch(PostgresGuide.LedgerAction.deposited(account: "bob", amount: 1)).get()
    }
    await #expect(throws: PostgresJournalError.fenced(stream: stream, holder: "host-b")) {
      _ = try await PostgresGuide.makePrimary(configuration, stream: stream, writer: "host-a")
    }
  }
}
