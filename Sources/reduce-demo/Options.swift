import Foundation

/// The command line, parsed.
struct Options {
  /// A bad command line: printed with the usage, exit status 64.
  struct UsageError: Error, CustomStringConvertible {
    var description: String
  }

  /// `--script FILE`: the commands to run, in place of standard input.
  var script: String?
  /// `--state FILE`, or nil for the per-user default (see ``DefaultList``).
  var statePath: String?
  /// `--log FILE`, or nil for no audit log.
  var logPath: String?

  /// Parses the arguments; nil for `--help`.
  ///
  /// - Throws: ``UsageError`` for an unknown option, a missing value or a stray argument.
  init?(parsing arguments: [String]) throws(UsageError) {
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      switch argument {
      case "-h", "--help":
        return nil
      case "--script", "--state", "--log":
        guard let value = remaining.popFirst(), !value.isEmpty, !value.hasPrefix("--") else {
          throw UsageError(description: "\(argument) needs a FILE")
        }
        switch argument {
        case "--script": script = value
        case "--state": statePath = value
        default: logPath = value
        }
      default:
        throw UsageError(
          description: argument.hasPrefix("-")
            ? "unknown option \(argument)" : "unexpected argument \(argument)")
      }
    }
  }
}

/// Timings, from the environment so that tests need not wait.
struct Settings {
  var loadDelay = Duration.milliseconds(900)
  var autosaveDelay = Duration.milliseconds(500)
  /// How long each save waits before it writes, after saying so on standard error.
  ///
  /// A slow disk, for the tests of a save in flight when the demo ends. Nil (no wait) by
  /// default.
  var saveDelay: Duration?

  init(environment: [String: String]) {
    if let text = environment["REDUCE_DEMO_LOAD_DELAY_MS"], let ms = Int(text), ms >= 0 {
      loadDelay = .milliseconds(ms)
    }
    if let text = environment["REDUCE_DEMO_AUTOSAVE_MS"], let ms = Int(text), ms > 0 {
      autosaveDelay = .milliseconds(ms)
    }
    if let text = environment["REDUCE_DEMO_SAVE_DELAY_MS"], let ms = Int(text), ms > 0 {
      saveDelay = .milliseconds(ms)
    }
  }
}
