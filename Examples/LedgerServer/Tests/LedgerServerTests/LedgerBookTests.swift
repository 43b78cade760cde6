import Foundation
import LedgerCore
import ReduceLogging
import Testing

@Suite("The ledger without HTTP", .timeLimit(.minutes(2)))
struct LedgerBookTests {
  @Test("a restarted book replays its journal: balances and history come back")
  func restart() async throws {
    let fixture = try JournalFixture()
    do {
      let (_, book) = try await fixture.open(durability: .everyEntry)
      try await Principal.$current.withValue("teller-1") {
        _ = try await book.deposit(100, into: "ada")
        _ = try await book.deposit(5, into: "bob")
        _ = try await book.transfer(30, from: "ada", to: "bob", reference: "r-1")
        await #expect(throws: LedgerError.overdraft(account: "bob", balance: 35, requested: 99)) {
          try await book.withdraw(99, from: "bob")
        }
      }
    }
    let (journal, book) = try await fixture.open(durability: .everyEntry)
    // Three changes; the refused withdrawal is in the log but not replayed.
    #expect(journal.replayed == 3)
    #expect(try book.balance(of: "ada") == AccountBalance(account: "ada", balance: 70))
    #expect(try book.history(of: "bob").entries.map(\.kind) == [.deposit, .transferIn])
    // The journal goes on after its last entry.
    try await Principal.$current.withValue("teller-2") {
      _ = try await book.withdraw(35, from: "bob")
    }
    #expect(try AuditLog.verify(contentsOf: URL(fileURLWithPath: fixture.path)) == 5)
  }

  @Test("each entry names the principal of the task that asked, however many ask at once")
  func principalsUnderContention() async throws {
    let fixture = try JournalFixture()
    let (journal, book) = try await fixture.open(durability: .everyEntry)
    try await Principal.$current.withValue("teller") {
      for account in 0..<8 { _ = try await book.deposit(1_000, into: "a\(account)") }
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for worker in 0..<8 {
        group.addTask {
          try await Principal.$current.withValue("worker-\(worker)") {
            for step in 0..<25 {
              _ = try await book.transfer(
                1, from: "a\(worker)", to: "a\((worker + 1 + step % 7) % 8)",
                reference: "worker-\(worker)-\(step)")
            }
          }
        }
      }
      try await group.waitForAll()
    }
    let transfers = try fixture.entries().compactMap { payload($0, "transferred") }
    #expect(transfers.count == 200)
    for transfer in transfers {
      let reference = try #require(transfer["reference"] as? String)
      let worker = reference.split(separator: "-").prefix(2).joined(separator: "-")
      #expect(transfer["by"] as? String == worker)
    }
    #expect(journal.store.state.accounts.values.reduce(0) { $0 + $1.balance } == 8_000)
  }

  @Test("bad input is refused before the store sees it")
  func validation() async throws {
    let fixture = try JournalFixture()
    let (_, book) = try await fixture.open()
    await #expect(throws: LedgerError.missingPrincipal) {
      try await book.deposit(5, into: "ada")
    }
    await Principal.$current.withValue("teller") {
      await #expect(throws: LedgerError.invalidAmount(LedgerBook.maximumAmount + 1)) {
        try await book.deposit(LedgerBook.maximumAmount + 1, into: "ada")
      }
      await #expect(throws: LedgerError.invalidAccountID("")) {
        try await book.deposit(5, into: "")
      }
      await #expect(throws: LedgerError.invalidAccountID(String(repeating: "a", count: 65))) {
        try await book.deposit(5, into: String(repeating: "a", count: 65))
      }
    }
    await #expect(throws: LedgerError.invalidPrincipal("a\u{7}b")) {
      try await Principal.$current.withValue("a\u{7}b") {
        try await book.deposit(5, into: "ada")
      }
    }
    #expect(try fixture.entries().isEmpty)
  }

  @Test("the mutator refuses a change that would take a balance past Int.max")
  func balanceLimit() async throws {
    let fixture = try JournalFixture()
    let (journal, book) = try await fixture.open()
    try await Principal.$current.withValue("teller") {
      _ = try await book.deposit(1, into: "ada")
    }
    // Past the book's own limit on amounts: straight to the store, whose mutator checks.
    let result = await journal.store.send(
      LedgerAction.deposited(account: "ada", amount: Int.max, by: "teller"))
    guard case .failure(.reducerFailed(_, _, let underlying)) = result else {
      Issue.record("expected the mutator to refuse it, got \(result)")
      return
    }
    #expect(underlying as? LedgerError == .balanceLimit(account: "ada"))
    #expect(journal.store.state.accounts["ada"]?.balance == 1)
  }

  @Test("an error body names its case and carries its values")
  func errorBody() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let data = try encoder.encode(LedgerError.overdraft(account: "ada", balance: 20, requested: 50))
    #expect(
      String(decoding: data, as: UTF8.self)
        == #"{"account":"ada","balance":20,"error":"overdraft","message":"account ada has 20, 50 was asked for","requested":50}"#
    )
  }
}

@Suite("The command line")
struct ServerOptionsTests {
  @Test("the defaults: loopback, a durable file journal")
  func defaults() throws {
    let options = try #require(try ServerOptions.parse([]))
    #expect(options.host == "127.0.0.1")
    #expect(options.port == 8080)
    #expect(options.journalKind == .file)
    #expect(options.durability == .everyEntry)
    #expect(options.logPath == "ledger.log")
  }

  @Test("every option")
  func everyOption() throws {
    let options = try #require(
      try ServerOptions.parse([
        "--host", "127.0.0.2", "--port", "0", "--journal", "file", "--log", "/tmp/x.log",
        "--durability", "buffered", "--history-limit", "7", "--log-level", "debug",
      ]))
    #expect(options.host == "127.0.0.2")
    #expect(options.port == 0)
    #expect(options.logPath == "/tmp/x.log")
    #expect(options.durability == .buffered)
    #expect(options.historyLimit == 7)
    #expect(options.logLevel == .debug)
    guard case .file(let path, .buffered) = options.journal else {
      Issue.record("expected a buffered file journal, got \(options.journal)")
      return
    }
    #expect(path == "/tmp/x.log")
    #expect(try ServerOptions.parse(["--help"]) == nil)
  }

  @Test(
    "a wrong argument is named",
    arguments: [
      (["--port", "http"], ServerOptionsError.invalidValue("--port", "http")),
      (["--port", "70000"], .invalidValue("--port", "70000")),
      (["--durability", "sometimes"], .invalidValue("--durability", "sometimes")),
      (["--journal", "sqlite"], .invalidValue("--journal", "sqlite")),
      (
        ["--journal", "postgres", "--durability", "buffered"], .needsJournal("--durability", "file")
      ),
      (["--pg-socket", "/tmp"], .needsJournal("--pg-socket", "postgres")),
      (["--pg-host", "db", "--journal", "file"], .needsJournal("--pg-host", "postgres")),
      (
        ["--journal", "postgres", "--pg-host", "db", "--pg-socket", "/tmp"],
        .exclusive("--pg-socket", "--pg-host")
      ),
      (["--journal", "postgres", "--pg-port", "65536"], .invalidValue("--pg-port", "65536")),
      (["--journal", "postgres", "--pg-stream", ""], .invalidValue("--pg-stream", "")),
      (
        ["--journal", "postgres", "--pg-holder-lease", "skip"],
        .invalidValue("--pg-holder-lease", "skip")
      ),
      (["--history-limit", "0"], .invalidValue("--history-limit", "0")),
      (["--log"], .missingValue("--log")),
      (["--verbose", "yes"], .unknownOption("--verbose")),
      (["extra"], .unknownOption("extra")),
    ])
  func wrongArgument(arguments: [String], error: ServerOptionsError) {
    #expect(throws: error) { try ServerOptions.parse(arguments) }
  }

  @Test("the PostgreSQL journal: a unix socket by default, its directory or path, or TCP")
  func postgres() throws {
    let defaults = try #require(
      try ServerOptions.parse(["--journal", "postgres"], environment: ["PGPASSWORD": "secret"]))
    guard case .postgres(let options) = defaults.journal else {
      Issue.record("expected a PostgreSQL journal, got \(defaults.journal)")
      return
    }
    #expect(options.endpoint == .unixSocket(path: "/var/run/postgresql/.s.PGSQL.5432"))
    #expect(options.database == "postgres" && options.user == "postgres")
    #expect(options.password == "secret")
    #expect(options.stream == "ledger")
    #expect(!options.ignoringHolderLease)
    #expect(!options.writerName.isEmpty)
    #expect(!options.summary.contains("secret"))

    let socket = try #require(
      try ServerOptions.parse([
        "--journal", "postgres", "--pg-socket", "/run/pg", "--pg-port", "5433",
        "--pg-database", "books", "--pg-user", "ledger", "--pg-stream", "eu",
        "--pg-writer", "host-a", "--pg-holder-lease", "ignore",
      ]))
    #expect(socket.postgres.endpoint == .unixSocket(path: "/run/pg/.s.PGSQL.5433"))
    #expect(socket.postgres.database == "books")
    #expect(socket.postgres.user == "ledger")
    #expect(socket.postgres.password == nil)
    #expect(socket.postgres.stream == "eu")
    #expect(socket.postgres.writerName == "host-a")
    #expect(socket.postgres.ignoringHolderLease)
    #expect(
      socket.postgres.summary
        == "postgres stream eu as writer host-a (socket /run/pg/.s.PGSQL.5433, database books, user ledger)"
    )

    let path = try #require(
      try ServerOptions.parse(["--journal", "postgres", "--pg-socket", "/s/.s.PGSQL.7"]))
    #expect(path.postgres.endpoint == .unixSocket(path: "/s/.s.PGSQL.7"))

    let tcp = try #require(
      try ServerOptions.parse([
        "--journal", "postgres", "--pg-host", "127.0.0.1", "--pg-port", "6543",
      ]))
    #expect(tcp.postgres.endpoint == .tcp(host: "127.0.0.1", port: 6543))
  }
}
