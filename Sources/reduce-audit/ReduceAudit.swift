import Foundation
import ReduceLogging

/// `reduce-audit`: checks and prints the audit logs that `ReduceLogging` writes.
///
/// ```
/// reduce-audit verify FILE
/// reduce-audit show FILE [--action NAME] [--since TIME]
/// ```
///
/// Exit status: 0 success; 1 a broken chain, a malformed entry or an unreadable file; 2 only the
/// last line is torn (a crash during a write); 64 a usage error.
@main
enum ReduceAudit {
  static let usage = """
    usage: reduce-audit verify FILE
           reduce-audit show FILE [--action NAME] [--since TIME]
    """

  static func main() {
    exit(run(Array(CommandLine.arguments.dropFirst())))
  }

  /// Runs one command and returns the exit status.
  static func run(_ arguments: [String]) -> Int32 {
    guard let command = arguments.first else { return usageError("missing command") }
    let rest = Array(arguments.dropFirst())
    switch command {
    case "verify":
      guard rest.count == 1, let file = rest.first, !file.hasPrefix("-") else {
        return usageError("verify takes one FILE")
      }
      return verify(file)
    case "show":
      return show(rest)
    case "-h", "--help", "help":
      print(usage)
      return 0
    default:
      return usageError("unknown command '\(command)'")
    }
  }

  static func verify(_ file: String) -> Int32 {
    do throws(AuditLogError) {
      let count = try AuditLog.verify(contentsOf: URL(fileURLWithPath: file))
      print("\(file): \(count) \(count == 1 ? "entry" : "entries"), chain intact")
      return 0
    } catch {
      printError("\(file): \(error)")
      return error.isTornLastLine ? 2 : 1
    }
  }

  static func show(_ arguments: [String]) -> Int32 {
    var file: String?
    var action: String?
    var since: Date?
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      switch argument {
      case "--action", "--since":
        guard index + 1 < arguments.count else { return usageError("\(argument) needs a value") }
        let value = arguments[index + 1]
        if argument == "--action" {
          action = value
        } else {
          guard let time = AuditLog.parseTime(value) else {
            return usageError("--since takes a time like 2024-05-01T12:00:00Z or 2024-05-01")
          }
          since = time
        }
        index += 2
      default:
        guard !argument.hasPrefix("-"), file == nil else {
          return usageError("unexpected argument '\(argument)'")
        }
        file = argument
        index += 1
      }
    }
    guard let file else { return usageError("show takes a FILE") }
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: file))
    } catch {
      printError("\(file): cannot read: \(error.localizedDescription)")
      return 1
    }
    var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    let torn = lines.last?.isEmpty == false
    if !torn { lines.removeLast() }
    var tampered = false
    var tornEnd = false
    var printed = 0
    for (offset, bytes) in lines.enumerated() {
      let number = offset + 1
      do throws(AuditLogError) {
        let entry = try AuditLog.Entry(
          parsing: String(decoding: bytes, as: UTF8.self), line: number)
        if let action, entry.action != action { continue }
        if let since, entry.timestamp < since { continue }
        if printed > 0 { print("") }
        print(entry.description)
        printed += 1
      } catch {
        if torn, number == lines.count {
          printError(
            "\(file): line \(number): the last line is incomplete (a crash during a write)")
          tornEnd = true
        } else {
          printError("\(file): \(error)")
          tampered = true
        }
      }
    }
    return tampered ? 1 : tornEnd ? 2 : 0
  }

  static func usageError(_ message: String) -> Int32 {
    printError("reduce-audit: \(message)\n\(usage)")
    return 64
  }

  static func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
  }
}
