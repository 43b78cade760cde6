import Foundation
public import Hummingbird
public import Logging
import Reduce
public import ServiceLifecycle

/// The whole server: the journal, the book over its store, the HTTP application, and the
/// service group that runs them and shuts them down.
public enum LedgerServer {
  /// Opens the journal, then serves the API until `SIGTERM` or `SIGINT`, after which it stops
  /// taking requests, lets those in flight finish, flushes the journal, and returns.
  ///
  /// Once it listens, it writes `ledger-server listening on http://HOST:PORT` as one line to
  /// standard output (the port it got, when `options.port` is 0).
  ///
  /// - Parameters:
  ///   - options: The command line's options.
  ///   - logger: Where the server logs.
  /// - Throws: ``LedgerJournalError`` when the journal cannot be replayed or opened; an error of
  ///   the service group when the server cannot listen or the journal cannot be flushed.
  public static func run(options: ServerOptions, logger: Logger) async throws {
    let started = ContinuousClock.now
    let journal = try await options.journal.open(historyLimit: options.historyLimit)
    logger.info(
      "journal open",
      metadata: [
        "journal": "\(options.journal.summary)", "replayed": "\(journal.replayed)",
        "accounts": "\(journal.store.state.accounts.count)",
        "duration": "\(started.duration(to: .now))",
      ])
    let app = application(
      book: LedgerBook(store: journal.store), host: options.host, port: options.port,
      logger: logger
    ) { port in
      let line = "ledger-server listening on http://\(options.host):\(port)\n"
      FileHandle.standardOutput.write(Data(line.utf8))
    }
    // Shut down in reverse order: the application first (no new requests, those in flight
    // finish), then the journal, which flushes.
    let group = ServiceGroup(
      services: [JournalService(journal: journal, logger: logger), app],
      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    try await group.run()
  }

  /// Makes the HTTP application over a book.
  ///
  /// - Parameters:
  ///   - book: The ledger.
  ///   - host: The address to listen on.
  ///   - port: The port to listen on; 0 for any free one.
  ///   - logger: Where the application logs.
  ///   - onListening: Called with the port once the server listens.
  /// - Returns: The application: a `Service`, and testable with HummingbirdTesting.
  public static func application(
    book: LedgerBook, host: String = "127.0.0.1", port: Int = 0, logger: Logger,
    onListening: @escaping @Sendable (Int) -> Void = { _ in }
  ) -> some ApplicationProtocol & Service {
    Application(
      router: LedgerAPI.router(book: book),
      configuration: .init(address: .hostname(host, port: port)),
      onServerRunning: { channel in
        onListening(channel.localAddress?.port ?? port)
      },
      logger: logger)
  }
}

/// Keeps the journal while the server runs: logs the changes it could not record, and flushes
/// and closes it on shutdown.
struct JournalService: Service {
  let journal: OpenJournal
  let logger: Logger

  func run() async throws {
    let errors = journal.store.errors
    let logger = logger
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for await error in errors {
          if case .middlewareFailed(name: LedgerJournal.middlewareName, _, let underlying) = error {
            logger.error(
              "the journal could not record a change; it was not made",
              metadata: ["error": "\(underlying)"])
          }
        }
      }
      // Returns at a graceful shutdown, throws when cancelled: either way, flush.
      try? await gracefulShutdown()
      group.cancelAll()
    }
    do {
      try journal.close()
      logger.info("journal flushed")
    } catch {
      logger.error("the journal could not be flushed", metadata: ["error": "\(error)"])
      throw error
    }
  }
}
