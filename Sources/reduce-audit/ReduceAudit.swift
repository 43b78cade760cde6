import Foundation
import ReduceLogging

/// `reduce-audit`: checks and prints the audit logs that `ReduceLogging` writes.
///
/// ```
/// reduce-audit verify FILE... [--from-seq N | --continues HASH] [--key-file F]
/// reduce-audit show FILE [--action NAME] [--since TIME] [--from SEQ] [--to SEQ]
/// reduce-audit snapshots FILE...
/// ```
///
/// `show --from N --to M` prints the entries whose `seq` is between N and M; `snapshots` lists
/// where each snapshot is (the first entry of a file started by a rotation).
///
/// `verify` with several files checks them in order as one log (the pieces of a log rotated by
/// copy-and-truncate, oldest first). A log whose first entry is not number 1 is missing the
/// entries before it: it verifies only with `--from-seq N` (it must start at entry N) or
/// `--continues HASH` (its first `prev` must be HASH). `--key-file F` checks the keyed
/// checkpoints with the key in F.
///
/// Exit status: 0 success; 1 a broken chain, a malformed entry or a bad checkpoint
/// (tampering); 2 only the last line is torn (a crash during a write); 3 entries are missing
/// before the first (the log starts mid-chain); 64 a usage error; 66 a file that cannot be read
/// (a directory, a missing file): sysexits' `EX_USAGE` and `EX_NOINPUT`.
@main
enum ReduceAudit {
  static let usage = """
    usage: reduce-audit verify FILE... [--from-seq N | --continues HASH] [--key-file F]
           reduce-audit show FILE [--action NAME] [--since TIME] [--from SEQ] [--to SEQ]
           reduce-audit snapshots FILE...
    exit status: 0 intact, 1 tampered, 2 torn last line, 3 entries missing before the first,
                 64 usage error, 66 unreadable file
    """

  /// A file that cannot be read (sysexits' `EX_NOINPUT`).
  static let unreadableStatus: Int32 = 66

  static func main() {
    exit(run(Array(CommandLine.arguments.dropFirst())))
  }

  /// Runs one command and returns the exit status.
  static func run(_ arguments: [String]) -> Int32 {
    guard let command = arguments.first else { return usageError("missing command") }
    let rest = Array(arguments.dropFirst())
    switch command {
    case "verify":
      return verify(arguments: rest)
    case "show":
      return show(rest)
    case "snapshots":
      guard !rest.isEmpty, !rest.contains(where: { $0.hasPrefix("-") }) else {
        return usageError("snapshots takes one FILE or more")
      }
      return snapshots(rest)
    case "-h", "--help", "help":
      print(usage)
      return 0
    default:
      return usageError("unknown command '\(command)'")
    }
  }

  /// `verify [--from-seq N | --continues HASH] [--key-file F] FILE...`: parses the options.
  static func verify(arguments: [String]) -> Int32 {
    var files: [String] = []
    var start = AuditLog.ChainStart.genesis
    var keyFile: String?
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      switch argument {
      case "--from-seq", "--continues", "--key-file":
        guard index + 1 < arguments.count else { return usageError("\(argument) needs a value") }
        let value = arguments[index + 1]
        if argument == "--key-file" {
          keyFile = value
        } else {
          guard start == .genesis else {
            return usageError("give --from-seq or --continues once, not both")
          }
          if argument == "--from-seq" {
            guard let sequence = Int(value), sequence >= 1 else {
              return usageError("--from-seq takes an entry number, 1 or more")
            }
            start = .sequence(sequence)
          } else {
            guard value.utf8.count == 64, value.allSatisfy(\.isHexDigit) else {
              return usageError("--continues takes a SHA-256 in hexadecimal (64 digits)")
            }
            start = .continuing(hash: value.lowercased())
          }
        }
        index += 2
      default:
        guard !argument.hasPrefix("-") else {
          return usageError("unexpected option '\(argument)'")
        }
        files.append(argument)
        index += 1
      }
    }
    guard !files.isEmpty else { return usageError("verify takes one FILE or more") }
    var key: AuditCheckpoints.Key?
    if let keyFile {
      do throws(AuditCheckpointError) {
        key = try AuditCheckpoints.Key(contentsOfFile: keyFile)
      } catch {
        printError("\(error)")
        return error == .emptyKey ? 64 : unreadableStatus
      }
    }
    return verify(files, start: start, key: key)
  }

  /// The exit status of a log that starts after entry 1, with nothing saying it may.
  static let startsMidChainStatus: Int32 = 3

  static func verify(_ files: [String], start: AuditLog.ChainStart, key: AuditCheckpoints.Key?)
    -> Int32
  {
    do throws(AuditLogError) {
      let log = try AuditLog.verify(
        contentsOf: files.map { URL(fileURLWithPath: $0) }, start: start, key: key)
      let count = "\(log.entries) \(log.entries == 1 ? "entry" : "entries")"
      let place = files.count == 1 ? count : "\(count) in \(files.count) files"
      print("\(files.joined(separator: ", ")): \(place), chain intact")
      if log.continuesEarlierFile {
        print(
          "note: the first entry is number \(log.firstSequence), as given: it continues an "
            + "earlier file whose last line hashes to \(log.firstPreviousHash)")
      }
      if key != nil {
        let after = log.entriesAfterLastCheckpoint
        print(
          "keyed checkpoints: \(log.checkpoints) verified with the key; "
            + (after == 0
              ? "the last entry is covered"
              : "the last \(after) \(after == 1 ? "entry follows" : "entries follow") the last "
                + "checkpoint: the key does not vouch for \(after == 1 ? "it" : "them") yet"))
      }
      return 0
    } catch {
      printError("\(error)")
      if error.isUnreadable { return unreadableStatus }
      if error.startsMidChain { return startsMidChainStatus }
      return error.isTornLastLine ? 2 : 1
    }
  }

  /// A log's bytes; nil, after saying why, when the file cannot be read.
  static func readLog(_ file: String) -> Data? {
    if let reason = unreadableReason(file) {
      printError("\(file): cannot read it: \(reason)")
      return nil
    }
    guard let data = FileManager.default.contents(atPath: file) else {
      printError("\(file): cannot read it: reading failed")
      return nil
    }
    return data
  }

  /// Why a file cannot be read, in words, or nil when it can.
  static func unreadableReason(_ file: String) -> String? {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
      return "no such file or directory"
    }
    if isDirectory.boolValue { return "it is a directory, not a log file" }
    guard FileManager.default.isReadableFile(atPath: file) else { return "permission denied" }
    return nil
  }

  static func show(_ arguments: [String]) -> Int32 {
    var file: String?
    var action: String?
    var since: Date?
    var range = Int.min...Int.max
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      switch argument {
      case "--from", "--to":
        guard index + 1 < arguments.count, let sequence = Int(arguments[index + 1]) else {
          return usageError("\(argument) needs an entry number")
        }
        if argument == "--from" {
          guard sequence <= range.upperBound else { return usageError("--from is after --to") }
          range = sequence...range.upperBound
        } else {
          guard sequence >= range.lowerBound else { return usageError("--to is before --from") }
          range = range.lowerBound...sequence
        }
        index += 2
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
    guard let data = readLog(file) else { return unreadableStatus }
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
        if !range.contains(entry.sequence) { continue }
        if let since, entry.timestamp < since { continue }
        if printed > 0 { print("") }
        print(entry.description)
        printed += 1
      } catch {
        if torn, number == lines.count, let problem = chainProblem(data, firstLine: lines.first),
          !problem.isTornLastLine
        {
          // Unfinished, but not the beginning of the entry that was due: no crash leaves that.
          printError("\(file): \(problem)")
          tampered = true
        } else if torn, number == lines.count {
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

  /// Lists the snapshots of log files: where each is, by entry and line, and when it was made.
  static func snapshots(_ files: [String]) -> Int32 {
    var found = 0
    for file in files {
      guard let data = readLog(file) else { return unreadableStatus }
      let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
      for (offset, bytes) in lines.enumerated() where !bytes.isEmpty {
        guard
          let entry = try? AuditLog.Entry(
            parsing: String(decoding: bytes, as: UTF8.self), line: offset + 1),
          let snapshot = entry.snapshot
        else { continue }
        print(
          "\(file): entry \(entry.sequence), line \(offset + 1), "
            + "\(AuditLog.formatTime(entry.timestamp)): \(snapshot.utf8.count) bytes")
        found += 1
      }
    }
    if found == 0 { print("no snapshot in \(files.joined(separator: ", "))") }
    return 0
  }

  /// For a chained log, why its chain does not verify (nil when it does); nil for a plain log.
  static func chainProblem(_ data: Data, firstLine: Data?) -> AuditLogError? {
    guard let firstLine,
      (try? AuditLog.Entry(parsing: String(decoding: firstLine, as: UTF8.self), line: 1))?
        .previousHash != nil
    else { return nil }
    do {
      _ = try AuditLog.verify(Array(data))
      return nil
    } catch {
      return error
    }
  }

  static func usageError(_ message: String) -> Int32 {
    printError("reduce-audit: \(message)\n\(usage)")
    return 64
  }

  static func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
  }
}
