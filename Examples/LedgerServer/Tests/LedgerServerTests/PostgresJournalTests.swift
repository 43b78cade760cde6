import Foundation
import LedgerCore
import ReduceLogging
import ReducePostgres
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The PostgreSQL journal's options for a stream of the shared test cluster.
func postgresOptions(stream: String, writer: String = "ledger-test") throws
  -> PostgresJournalOptions
{
  let cluster = try TestCluster.shared.get()
  var options = PostgresJournalOptions()
  options.socket = cluster.directory
  options.stream = stream
  options.writer = writer
  return options
}

/// A stream's stored lines, read back with the integration's reader, joined with newlines as a
/// log file would hold them.
func storedLog(_ options: PostgresJournalOptions) async throws -> [UInt8] {
  let source = PostgresJournalSource(configuration: options.configuration, stream: options.stream)
  return try await source.lines(from: 1, limit: 10_000).flatMap { $0.bytes + [0x0A] }
}

@Suite(
  "The PostgreSQL journal, against a real PostgreSQL", .serialized, .timeLimit(.minutes(3)))
struct PostgresJournalTests {
  @Test("a reopened stream replays its changes and continues the chain")
  func reopen() async throws {
    let options = try postgresOptions(stream: uniqueStream())
    do {
      let journal = try await LedgerJournal.postgres(options).open()
      #expect(journal.replayed == 0)
      let book = LedgerBook(store: journal.store)
      try await Principal.$current.withValue("teller-1") {
        _ = try await book.deposit(100, into: "ada")
        _ = try await book.deposit(5, into: "bob")
        _ = try await book.transfer(30, from: "ada", to: "bob", reference: "r-1")
        await #expect(throws: LedgerError.overdraft(account: "bob", balance: 35, requested: 99)) {
          try await book.withdraw(99, from: "bob")
        }
      }
      try journal.close()
    }
    let journal = try await LedgerJournal.postgres(options).open()
    // Four lines, the refused withdrawal's among them (recorded as failed, not replayed).
    #expect(journal.replayed == 4)
    let book = LedgerBook(store: journal.store)
    #expect(try book.balance(of: "ada") == AccountBalance(account: "ada", balance: 70))
    #expect(try book.history(of: "bob").entries.map(\.kind) == [.deposit, .transferIn])
    try await Principal.$current.withValue("teller-2") {
      _ = try await book.withdraw(35, from: "bob")
    }
    try journal.close()
    let log = try await storedLog(options)
    #expect(try AuditLog.verify(log) == 5)
  }

  @Test("a restart replays from the newest snapshot")
  func snapshot() async throws {
    let options = try postgresOptions(stream: uniqueStream())
    do {
      let journal = try await LedgerJournal.postgres(options).open()
      let book = LedgerBook(store: journal.store)
      try await Principal.$current.withValue("teller-1") {
        for _ in 0..<5 { _ = try await book.deposit(10, into: "ada") }
      }
      _ = try journal.store.dispatch(WriteAuditSnapshot()).get()
      try await Principal.$current.withValue("teller-1") {
        _ = try await book.deposit(1, into: "ada")
      }
      try journal.close()
    }
    let journal = try await LedgerJournal.postgres(options).open()
    // The snapshot and the deposit after it, not the five before.
    #expect(journal.replayed == 2)
    #expect(journal.store.state.accounts["ada"]?.balance == 51)
    #expect(journal.store.state.accounts["ada"]?.changes == 6)
    try journal.close()
    let log = try await storedLog(options)
    #expect(try AuditLog.verify(log) == 7)
  }

  @Test("a stream that another writer holds is refused")
  func fenced() async throws {
    let stream = uniqueStream()
    let first = try await LedgerJournal.postgres(postgresOptions(stream: stream, writer: "a"))
      .open()
    defer { try? first.close() }
    let second = try postgresOptions(stream: stream, writer: "b")
    do throws(LedgerJournalError) {
      _ = try await LedgerJournal.postgres(second).open()
      Issue.record("a second writer opened the stream")
    } catch {
      guard case .cannotOpen(let reason) = error else {
        Issue.record("expected cannotOpen, got \(error)")
        return
      }
      #expect(reason.contains("held by the writer a"))
    }
  }
}

/// An HTTP exchange with a server process on 127.0.0.1.
func exchange(
  _ method: String, port: Int, _ path: String, body: String? = nil
) async throws -> (status: Int, body: String) {
  var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
  request.httpMethod = method
  request.setValue("teller-1", forHTTPHeaderField: "X-Principal")
  request.httpBody = body.map { Data($0.utf8) }
  let (data, response) = try await URLSession.shared.data(for: request)
  return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}

@Suite(
  "The ledger-server executable with the PostgreSQL journal", .serialized,
  .timeLimit(.minutes(3)))
struct PostgresServerProcessTests {
  /// Starts the server on a stream of the shared cluster and waits until it listens.
  func start(_ options: PostgresJournalOptions) throws -> (ServerProcess, Int) {
    let server = try ServerProcess(arguments: [
      "--port", "0", "--journal", "postgres", "--pg-socket", try #require(options.socket),
      "--pg-stream", options.stream, "--pg-writer", try #require(options.writer),
    ])
    guard let port = server.port(until: Date().addingTimeInterval(60)) else {
      if server.process.isRunning { server.process.terminate() }
      throw TestCluster.Failure(description: "no port: \(server.standardError)")
    }
    return (server, port)
  }

  /// Sends `SIGTERM` and expects the server to flush its journal and exit 0.
  func stop(_ server: ServerProcess) {
    kill(server.process.processIdentifier, SIGTERM)
    #expect(server.waitForExit(until: Date().addingTimeInterval(30)))
    #expect(server.process.terminationReason == .exit)
    #expect(server.process.terminationStatus == 0, "\(server.standardError)")
    #expect(server.standardError.contains("journal flushed"))
  }

  @Test("it serves, SIGTERM exits 0, and a restart replays the stream and continues it")
  func serveRestartContinue() async throws {
    let options = try postgresOptions(stream: uniqueStream())
    do {
      let (server, port) = try start(options)
      defer { if server.process.isRunning { server.process.terminate() } }
      #expect(server.standardError.contains("postgres stream \(options.stream)"))
      let deposit = try await exchange(
        "POST", port: port, "/accounts/ada/deposit", body: #"{"amount":80}"#)
      #expect(deposit.status == 200)
      #expect(deposit.body == #"{"account":"ada","balance":80}"#)
      let second = try await exchange(
        "POST", port: port, "/accounts/bob/deposit", body: #"{"amount":1}"#)
      #expect(second.status == 200)
      let transfer = try await exchange(
        "POST", port: port, "/transfers",
        body: #"{"from":"ada","to":"bob","amount":30,"reference":"t-1"}"#)
      #expect(transfer.status == 200, "\(transfer.body)")
      stop(server)
    }
    let (server, port) = try start(options)
    defer { if server.process.isRunning { server.process.terminate() } }
    let ada = try await exchange("GET", port: port, "/accounts/ada")
    #expect(ada.body == #"{"account":"ada","balance":50}"#)
    let transfer = try await exchange(
      "POST", port: port, "/transfers", body: #"{"from":"bob","to":"ada","amount":31}"#)
    #expect(transfer.status == 200, "\(transfer.body)")
    stop(server)
    let log = try await storedLog(options)
    #expect(try AuditLog.verify(log) == 4)
  }

  @Test("a second server on a stream another writer holds stops before it listens")
  func fencedServer() async throws {
    let stream = uniqueStream()
    let holder = try await LedgerJournal.postgres(postgresOptions(stream: stream, writer: "a"))
      .open()
    defer { try? holder.close() }
    let options = try postgresOptions(stream: stream, writer: "b")
    let server = try ServerProcess(arguments: [
      "--port", "0", "--journal", "postgres", "--pg-socket", try #require(options.socket),
      "--pg-stream", stream, "--pg-writer", "b",
    ])
    #expect(server.waitForExit(until: Date().addingTimeInterval(30)))
    #expect(server.process.terminationStatus == 1)
    #expect(server.standardError.contains("the journal cannot be opened"))
    #expect(server.standardError.contains("held by the writer a"))
  }

  @Test(
    "options that do not go together exit 64, naming them",
    arguments: [
      (["--journal", "postgres", "--log", "x.log"], "--log applies to --journal file only"),
      (["--pg-stream", "ledger"], "--pg-stream applies to --journal postgres only"),
      (
        ["--journal", "postgres", "--pg-socket", "/tmp", "--pg-host", "127.0.0.1"],
        "--pg-socket and --pg-host exclude each other"
      ),
      (["--journal", "postgres", "--pg-port", "0"], "--pg-port does not take \"0\""),
      (["--journal", "sqlite"], "--journal does not take \"sqlite\""),
    ])
  func badFlags(arguments: [String], message: String) throws {
    let server = try ServerProcess(arguments: arguments)
    #expect(server.waitForExit(until: Date().addingTimeInterval(30)))
    #expect(server.process.terminationStatus == 64)
    #expect(server.standardError.contains(message), "\(server.standardError)")
  }
}
