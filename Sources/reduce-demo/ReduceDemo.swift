import Foundation

/// `reduce-demo`: a terminal to-do editor on a Reduce store with every plugin in its chain.
///
/// ```
/// reduce-demo [--script FILE] [--state FILE] [--log FILE]
/// ```
///
/// Commands come from standard input, one per line (with a prompt when it is a terminal), or
/// from `--script FILE`. `--state FILE` is where the list is autosaved and reloaded from
/// (default: `reduce-demo-todos.json` in the temporary directory); `--log FILE` is the audit
/// log (default: a new file in the temporary directory). Both are printed at start.
///
/// Two environment variables exist for tests: `REDUCE_DEMO_LOAD_DELAY_MS` (how long `load`
/// pretends to take; 900 by default) and `REDUCE_DEMO_AUTOSAVE_MS` (the autosave debounce; 500).
///
/// Exit status: 0 success; 1 the list could not be read, saved or logged; 64 a usage error.
@main
enum ReduceDemo {
  static let usage = "usage: reduce-demo [--script FILE] [--state FILE] [--log FILE]"
  static let help = """
    \(usage)

    A terminal to-do editor on a Reduce store: commands from standard input, one per line.
      --script FILE  run the commands in FILE, without prompts
      --state FILE   where the list is autosaved and reloaded from
                     (default: reduce-demo-todos.json in the temporary directory)
      --log FILE     the audit log, a hash-chained JSON-lines file that
                     reduce-audit verify checks (default: a new file in the temporary directory)
    Type help at the prompt for the commands.
    """

  @MainActor
  static func main() async {
    exit(await run(Array(CommandLine.arguments.dropFirst())))
  }

  /// Runs the demo and returns its exit status.
  @MainActor
  static func run(_ arguments: [String]) async -> Int32 {
    let options: Options
    do throws(Options.UsageError) {
      guard let parsed = try Options(parsing: arguments) else {
        print(help)
        return 0
      }
      options = parsed
    } catch {
      printError("reduce-demo: \(error)")
      printError(usage)
      return 64
    }

    var input: Input
    if let script = options.script {
      guard let text = try? String(contentsOfFile: script, encoding: .utf8) else {
        printError("reduce-demo: cannot read the script \(script)")
        return 1
      }
      input = Input(script: text)
    } else {
      input = Input.standardInput()
    }

    let stateFile = StateFile(path: options.statePath)
    let list: TodoList?
    do throws(StateFile.Failure) {
      list = try stateFile.load()
      try stateFile.checkWritable()
    } catch {
      printError("reduce-demo: \(error); pass another --state FILE")
      return 1
    }
    let app: DemoApp
    do {
      app = try DemoApp(
        list: list ?? TodoList(), stateFile: stateFile, logPath: options.logPath,
        settings: Settings(environment: ProcessInfo.processInfo.environment))
    } catch {
      printError("reduce-demo: cannot start: \(error)")
      return 1
    }
    print("reduce-demo: a to-do list on a Reduce store. Type help for the commands.")
    let reloaded = list.map { "reloaded \(count($0.items.count, "item"))" } ?? "new"
    print("List: \(stateFile.path) (\(reloaded))")
    print("Log:  \(options.logPath)")
    return await app.run(&input)
  }
}

/// The command line, parsed.
struct Options {
  /// A bad command line: printed with the usage, exit status 64.
  struct UsageError: Error, CustomStringConvertible {
    var description: String
  }

  var script: String?
  var statePath: String
  var logPath: String

  /// Parses the arguments; nil for `--help`.
  ///
  /// - Throws: ``UsageError`` for an unknown option, a missing value or a stray argument.
  init?(parsing arguments: [String]) throws(UsageError) {
    let temporary = FileManager.default.temporaryDirectory
    statePath = temporary.appendingPathComponent("reduce-demo-todos.json").path
    let unique = UUID().uuidString.prefix(8).lowercased()
    logPath = temporary.appendingPathComponent("reduce-demo-\(unique).log").path
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

  init(environment: [String: String]) {
    if let text = environment["REDUCE_DEMO_LOAD_DELAY_MS"], let ms = Int(text), ms >= 0 {
      loadDelay = .milliseconds(ms)
    }
    if let text = environment["REDUCE_DEMO_AUTOSAVE_MS"], let ms = Int(text), ms > 0 {
      autosaveDelay = .milliseconds(ms)
    }
  }
}

/// Where commands come from: a script's lines, or standard input (with a prompt on a terminal).
struct Input {
  let isInteractive: Bool
  private var script: [Substring]?

  /// Reads standard input, prompting when it is a terminal.
  static func standardInput() -> Input {
    Input(isInteractive: isatty(0) != 0, script: nil)
  }

  private init(isInteractive: Bool, script: [Substring]?) {
    self.isInteractive = isInteractive
    self.script = script
  }

  /// Reads the lines of a script, without prompts.
  init(script text: String) {
    self.init(
      isInteractive: false,
      script: text.split(separator: "\n", omittingEmptySubsequences: false).reversed())
  }

  /// The next line, or nil at the end.
  mutating func nextLine() -> String? {
    if script != nil {
      return script?.popLast().map(String.init)
    }
    if isInteractive {
      print("> ", terminator: "")
      fflush(nil)  // all streams: the prompt has no newline
    }
    guard let line = readLine() else {
      if isInteractive { print("") }
      return nil
    }
    return line
  }
}
