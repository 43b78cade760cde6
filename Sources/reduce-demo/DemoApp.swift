import Foundation
import Reduce
import ReduceLogging
import ReducePersistence
import ReduceThunk
import ReduceUndo

/// The editor: a store with its plugins in its chain, and the loop that turns lines into
/// actions and prints the list after each one.
///
/// Everything here runs on the main actor, one command at a time. What runs elsewhere (the load
/// thunk's task, the persistence's timer that saves once edits pause) goes through the store,
/// which serializes it with the commands. `load` is awaited with `store.perform`, so the next
/// command starts only after the load finished, and the output is in the same order every run.
@MainActor
final class DemoApp {
  let store: Store<AppState>
  let undo: UndoMiddleware<AppState>
  let persistence: PersistenceMiddleware<AppState, TodoList>
  let stateFile: StateFile
  /// The audit log, or nil when the demo keeps none.
  let logPath: String?
  private var subscriptions: Set<Subscription> = []

  /// Builds the store: `[thunk, autosave, logging, undo]`, without the logging when there is
  /// no log.
  ///
  /// The list the persistence restored is in the store's initial state.
  ///
  /// - Throws: When a plugin refuses its options or the store refuses a plugin (for example an
  ///   audit log that cannot be opened).
  init(
    persistence: PersistenceMiddleware<AppState, TodoList>, undo: UndoMiddleware<AppState>,
    stateFile: StateFile, logPath: String?, settings: Settings
  ) throws {
    let audit = logPath.map { path in
      LoggingMiddleware<AppState>(
        name: "audit", format: .jsonLines, sink: .file(path: path, chained: true),
        filter: Self.isDomainAction)
    }
    self.store = try Store(
      initialState: persistence.restoring(AppState()),
      mutators: [Mutators.todos, Mutators.ui],
      middleware: [
        ThunkMiddleware(dependencies: DemoDependencies(loadDelay: settings.loadDelay)),
        persistence,
      ] + (audit.map { [$0] } ?? []) + [undo])
    self.undo = undo
    self.persistence = persistence
    self.stateFile = stateFile
    self.logPath = logPath
    store.subscribe(to: \.ui.loading) { phase in
      guard case .loading(let source, let step, let steps) = phase else { return }
      print(step == 0 ? "Loading \(source.escapingControlCharacters())..." : "  \(step)/\(steps)")
    }
    .store(in: &subscriptions)
  }

  /// The undo middleware: one step per change of the list, renames of one item in a row
  /// grouped, each step labelled for the status line.
  ///
  /// It is made before the persistence, which saves its history beside the list (see
  /// `StateFile.persistence(settings:undo:)`).
  static func makeUndo() throws -> UndoMiddleware<AppState> {
    try UndoMiddleware<AppState>(
      scope: \.todos,
      groupBy: { action in
        // Renaming one item several times in a row is one step.
        guard case .renamed(let id, _)? = action as? TodoAction else { return nil }
        return "rename-\(id)"
      },
      label: { action in
        switch action {
        case let edit as TodoAction:
          switch edit {
          case .added: "Add"
          case .completed: "Done"
          case .reopened: "Reopen"
          case .renamed: "Rename"
          case .removed: "Remove"
          }
        case LoadAction.succeeded: "Load"
        default: nil
        }
      })
  }

  /// Whether the audit log records an action.
  ///
  /// It records the changes of the list (edits, a load's items, undo and redo) and a batch
  /// holding one; UI actions (filter, notes, load progress and failures) and autosave reports
  /// are left out.
  nonisolated static func isDomainAction(_ action: any Action) -> Bool {
    switch action {
    case is TodoAction, is UndoAction, is ReplaceState<AppState>: true
    case LoadAction.succeeded: true
    case let batch as Batch: batch.actions.contains(where: isDomainAction)
    default: false
    }
  }

  // MARK: The loop

  /// Runs commands until `quit` or the end of the input, then saves what is pending.
  ///
  /// - Parameter input: Where the lines come from.
  /// - Returns: The exit status: 0, or 1 when the last save failed.
  func run(_ input: inout Input) async -> Int32 {
    render(message: false)
    while let line = input.nextLine() {
      let command: Command
      do throws(Command.ParseError) {
        guard let parsed = try Command.parse(line) else { continue }
        command = parsed
        echo(line, input)
      } catch {
        echo(line, input)
        print("error: \(error)")
        continue
      }
      if command == .quit { break }
      await execute(command)
    }
    return finish()
  }

  /// Shows a command read from a script or a pipe, so that the output reads like a session.
  private func echo(_ line: String, _ input: Input) {
    guard !input.isInteractive else { return }
    print("> " + line.trimmingCharacters(in: .whitespacesAndNewlines).escapingControlCharacters())
  }

  /// Saves what is pending, closes the log, and says where everything is.
  private func finish() -> Int32 {
    // A failure is also dispatched as `AutosaveAction.failed`.
    let flushed = Result { () throws(PersistenceError) in try persistence.flush() }
    closeLog()
    switch flushed {
    case .failure(let error):
      printError("error: the list was not saved: \(error)")
      return 1
    case .success(let wrote):
      if let items = itemsInFile(flushed: wrote) {
        print("Saved \(count(items, "item")) to \(stateFile.path).")
      } else {
        print("Nothing changed; \(stateFile.path) was not written.")
      }
    }
    if let logPath { print("Audit log: \(logPath) (check it: reduce-audit verify \(logPath))") }
    return 0
  }

  /// How many items the file holds after a flush that succeeded, or nil when this session
  /// wrote nothing there.
  ///
  /// Once a flush has returned, the file holds the list in memory, whatever save was in flight
  /// (`PersistenceMiddleware.flush()`), so the count is the list's. The status line's
  /// `autosave` is not: the timer's last save may not have reported yet.
  ///
  /// - Parameter flushed: What the flush returned: whether it wrote a change.
  /// - Returns: The number of items in the file, or nil when nothing was written.
  nonisolated private func itemsInFile(flushed: Bool) -> Int? {
    let state = store.state
    let initial = persistence.restoredValue ?? AppState().todos
    let written = flushed || state.ui.autosave != .none || state.todos != initial
    return written ? state.todos.items.count : nil
  }

  /// Closes the audit log, if there is one: the logging middleware leaves the store and closes
  /// its file.
  nonisolated func closeLog() {
    store.removeMiddleware(named: "audit")
  }

  /// Saves the list for a stop signal and says so: the demo's first shutdown work (see
  /// `ReduceDemo.run`), run by `ShutdownSignals` on a task of its own.
  ///
  /// The main actor may be blocked reading a line, so this touches only the persistence, whose
  /// flush writes the list at once (not after the autosave's quiet time), and the store, which
  /// serializes the flush's `AutosaveAction` with whatever command is running.
  ///
  /// - Parameter signal: The signal that asks the demo to stop.
  /// - Throws: The save's error, after saying that the list was not saved: the demo then exits
  ///   with status 1.
  nonisolated func saveBeforeStopping(for signal: ShutdownSignal) throws(PersistenceError) {
    let flushed: Bool
    do throws(PersistenceError) {
      flushed = try persistence.flush()
    } catch {
      printError("error: stopped by \(signal.name); the list was not saved: \(error)")
      throw error
    }
    if let items = itemsInFile(flushed: flushed) {
      print("Stopped by \(signal.name): saved \(count(items, "item")) to \(stateFile.path).")
    } else {
      print("Stopped by \(signal.name): nothing changed; \(stateFile.path) was not written.")
    }
  }

  // MARK: Commands

  private func execute(_ command: Command) async {
    switch command {
    case .add(let title):
      guard store.state.todos.room > 0 else {
        print("error: the list has used up its item ids; keep a new list with --state FILE")
        return
      }
      store.dispatch(TodoAction.added(title: title))
    case .done(let number):
      guard let item = item(number) else { return }
      store.dispatch(TodoAction.completed(id: item.id))
    case .undoDone(let number):
      guard let item = item(number) else { return }
      store.dispatch(TodoAction.reopened(id: item.id))
    case .rename(let number, let title):
      guard let item = item(number) else { return }
      store.dispatch(TodoAction.renamed(id: item.id, title: title))
    case .remove(let number):
      guard let item = item(number) else { return }
      store.dispatch(TodoAction.removed(id: item.id, title: item.title))
    case .filter(let filter):
      store.dispatch(UIAction.filterChanged(filter))
    case .undo:
      let status = undo.status
      let note =
        status.canUndo ? "Undid \(status.undoLabel ?? "the last change")." : "Nothing to undo."
      store.dispatch([UndoAction.undo, UIAction.noted(note)])
    case .redo:
      let status = undo.status
      let note =
        status.canRedo ? "Redid \(status.redoLabel ?? "the last change")." : "Nothing to redo."
      store.dispatch([UndoAction.redo, UIAction.noted(note)])
    case .load(let file):
      do {
        _ = try await store.perform(loadThunk(file: file))
      } catch is LoadFailure {
        // The thunk dispatched `LoadAction.failed`: the status line says what went wrong.
      } catch {
        print("error: load stopped: \(error)")
      }
    case .history:
      printHistory()
      render(message: false)
      return
    case .log(let count):
      printLog(last: count)
      render(message: false)
      return
    case .help:
      print(Command.helpText)
      render(message: false)
      return
    case .quit:
      return
    }
    render(message: true)
  }

  /// The item at a number of the list as shown, or nil after printing why there is none.
  private func item(_ number: Int) -> Todo? {
    let visible = visibleItems()
    guard number >= 1, number <= visible.count else {
      let shown =
        visible.isEmpty ? "the list shows no items" : "the list shows 1 to \(visible.count)"
      print("error: there is no item \(number): \(shown)")
      return nil
    }
    return visible[number - 1]
  }

  private func visibleItems() -> [Todo] {
    let state = store.state
    return state.todos.items.filter(state.ui.filter.shows)
  }

  // MARK: Output

  /// Prints the status message (when asked), the numbered list and the status line.
  private func render(message: Bool) {
    let state = store.state
    if message { print(state.ui.status) }
    let items = state.todos.items
    let visible = items.filter(state.ui.filter.shows)
    if visible.isEmpty {
      print(
        items.isEmpty
          ? "   (the list is empty: add TEXT adds an item)"
          : "   (no \(state.ui.filter.rawValue) items; filter all shows \(count(items.count, "item")))"
      )
    }
    let width = String(visible.count).count
    for (offset, todo) in visible.enumerated() {
      let number = String(offset + 1)
      let padding = String(repeating: " ", count: width - number.count)
      let marker = todo.id == state.ui.selection ? "*" : " "
      let title = todo.title.escapingControlCharacters()
      print("\(marker) \(padding)\(number). [\(todo.isDone ? "x" : " ")] \(title)")
    }
    print(statusLine(state))
  }

  private func statusLine(_ state: AppState) -> String {
    let items = state.todos.items
    let done = items.filter(\.isDone).count
    let status = undo.status
    var parts = [
      "\(count(items.count, "item")), \(items.count - done) open, \(done) done",
      "filter: \(state.ui.filter.rawValue)",
      status.canUndo ? "can undo (\(status.undoLabel ?? "change"))" : "cannot undo",
      status.canRedo ? "can redo (\(status.redoLabel ?? "change"))" : "cannot redo",
    ]
    if case .failed(let reason) = state.ui.autosave { parts.append("autosave failed: \(reason)") }
    return parts.joined(separator: " | ")
  }

  private func printHistory() {
    let status = undo.status
    let back =
      status.canUndo
      ? "\(count(status.pastCount, "step")) to undo (next: \(status.undoLabel ?? "change"))"
      : "nothing to undo"
    let forward =
      status.canRedo
      ? "\(count(status.futureCount, "step")) to redo (next: \(status.redoLabel ?? "change"))"
      : "nothing to redo"
    print("History: \(back); \(forward). At most \(undo.limit) steps are kept.")
  }

  private func printLog(last wanted: Int) {
    guard let logPath else {
      print("There is no audit log: start the demo with --log FILE to keep one.")
      return
    }
    guard let data = FileManager.default.contents(atPath: logPath) else {
      print("The log is empty.")
      return
    }
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
    print("Last \(count(min(wanted, lines.count), "entry", plural: "entries")) of \(logPath):")
    for (offset, line) in lines.enumerated().suffix(wanted) {
      do throws(AuditLogError) {
        let entry = try AuditLog.Entry(parsing: String(line), line: offset + 1)
        print("  " + LogLine.summary(of: entry).escapingControlCharacters())
      } catch {
        print("  line \(offset + 1): \(String(describing: error).escapingControlCharacters())")
      }
    }
  }
}

/// One audit log entry on one line, without its time (so that transcripts stay the same).
enum LogLine {
  static func summary(of entry: AuditLog.Entry) -> String {
    var text = "#\(entry.sequence) \(entry.action)"
    if let payload = entry.payload { text += " \(payload)" }
    text += entry.succeeded ? " ok" : " failed: \(entry.error ?? "unknown error")"
    let paths = (entry.changes ?? []).map(\.path)
    if !paths.isEmpty { text += " | changed " + paths.joined(separator: ", ") }
    return text.count > 150 ? String(text.prefix(147)) + "..." : text
  }
}

/// Prints a line on standard error.
func printError(_ text: String) {
  FileHandle.standardError.write(Data((text + "\n").utf8))
}
