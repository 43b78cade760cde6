import Foundation
import ReducePersistence
import ReduceUndo

/// `reduce-demo`: a terminal to-do editor on a Reduce store with its plugins in its chain.
///
/// ```
/// reduce-demo [--script FILE] [--state FILE] [--log FILE]
/// ```
///
/// Commands come from standard input, one per line (with a prompt when it is a terminal), or
/// from `--script FILE`. `--state FILE` is where the list is autosaved and reloaded from
/// (default: `todos.json` in a per-user directory, see ``DefaultList``); `--log FILE` keeps a
/// hash-chained audit log (default: none). Both are printed at start.
///
/// SIGINT, SIGTERM and SIGHUP save the list and close the log before the demo stops, by
/// `ShutdownSignals` of ReducePersistence.
///
/// Four environment variables exist for tests: `REDUCE_DEMO_LOAD_DELAY_MS` (how long `load`
/// pretends to take; 900 by default), `REDUCE_DEMO_AUTOSAVE_MS` (the autosave debounce; 500),
/// `REDUCE_DEMO_SAVE_DELAY_MS` (how long each save waits before it writes, a slow disk; none)
/// and `REDUCE_DEMO_DATA_DIR` (the directory of the default list).
///
/// Exit status: 0 success; 1 the list could not be read, saved or logged; 64 a usage error; a
/// stop signal, after the list was saved, ends the demo by that signal (128 + its number).
@main
enum ReduceDemo {
  static let usage = "usage: reduce-demo [--script FILE] [--state FILE] [--log FILE]"
  static let help = """
    \(usage)

    A terminal to-do editor on a Reduce store: commands from standard input, one per line.
      --script FILE  run the commands in FILE, without prompts
      --state FILE   where the list is autosaved and reloaded from (default: todos.json in
                     $XDG_STATE_HOME/reduce-demo or ~/.local/state/reduce-demo, on macOS
                     ~/Library/Application Support/reduce-demo; $REDUCE_DEMO_DATA_DIR
                     replaces the directory, which is created for you alone, mode 0700)
      --log FILE     keep an audit log, a hash-chained JSON-lines file that
                     reduce-audit verify checks, appended to (default: no log)
    A file that is not a whole saved list is refused and left as it is.
    Ctrl-C, SIGTERM and SIGHUP save the list before the demo stops.
    Control characters in titles and file names are shown escaped: ESC as \\u{1B}.
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

    let environment = ProcessInfo.processInfo.environment
    let settings = Settings(environment: environment)
    let stateFile: StateFile
    let persistence: PersistenceMiddleware<AppState, TodoList>
    let undo: UndoMiddleware<AppState>
    do {
      undo = try DemoApp.makeUndo()
    } catch {
      printError("reduce-demo: cannot start: \(error)")
      return 1
    }
    do throws(StateFile.Failure) {
      if let path = options.statePath {
        stateFile = StateFile(path: path)
      } else {
        stateFile = StateFile(path: try DefaultList.prepare(environment: environment))
      }
      persistence = try stateFile.persistence(settings: settings, undo: undo)
      try stateFile.checkWritable()
    } catch {
      printError("reduce-demo: \(error); pass another --state FILE")
      return 1
    }
    let app: DemoApp
    do {
      app = try DemoApp(
        persistence: persistence, undo: undo, stateFile: stateFile, logPath: options.logPath,
        settings: settings)
    } catch {
      printError("reduce-demo: cannot start: \(error)")
      return 1
    }
    // Made before the first command, so that a stop signal at any moment of the session saves.
    let shutdown: ShutdownSignals
    do throws(ShutdownSignalsError) {
      shutdown = try ShutdownSignals()
    } catch {
      printError("reduce-demo: cannot start: \(error)")
      return 1
    }
    shutdown.onShutdown { signal in try app.saveBeforeStopping(for: signal) }
    shutdown.onShutdown { _ in app.closeLog() }
    print("reduce-demo: a to-do list on a Reduce store. Type help for the commands.")
    let reloaded =
      persistence.restoredValue.map { "reloaded \(count($0.items.count, "item"))" } ?? "new"
    print("List: \(stateFile.path) (\(reloaded))")
    print("Log:  \(options.logPath ?? "none (--log FILE keeps an audit log)")")
    let status = await app.run(&input)
    withExtendedLifetime(shutdown) {}
    return status
  }
}
