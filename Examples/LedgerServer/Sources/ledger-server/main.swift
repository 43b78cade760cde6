import Foundation
import LedgerCore
import Logging

let options: ServerOptions
do {
  guard
    let parsed = try ServerOptions.parse(
      Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
  else {
    print(ServerOptions.usage)
    exit(0)
  }
  options = parsed
} catch {
  FileHandle.standardError.write(Data("ledger-server: \(error)\n\(ServerOptions.usage)\n".utf8))
  exit(64)
}

let level = options.logLevel
LoggingSystem.bootstrap { label in
  var handler = StreamLogHandler.standardError(label: label)
  handler.logLevel = level
  return handler
}
let logger = Logger(label: "ledger-server")

do {
  try await LedgerServer.run(options: options, logger: logger)
} catch {
  logger.critical("ledger-server stopped", metadata: ["error": "\(error)"])
  exit(1)
}
