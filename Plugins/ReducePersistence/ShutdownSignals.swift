import Dispatch
import Reduce

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs a process's shutdown work when SIGINT, SIGTERM or SIGHUP arrives, then ends the process
/// as that signal would have: the way for a command-line tool or a server to save its state
/// (and close its audit trail) when it is asked to stop.
///
/// A ``PersistenceMiddleware`` saves once edits pause, so the default action of a stop signal
/// (ending the process at once) loses the edits of the last moments: a tool that adds an item
/// and gets Ctrl-C a tenth of a second later has no item in its file. Give the flush to a
/// `ShutdownSignals` instead:
///
/// ```swift
/// let shutdown = try ShutdownSignals()
/// shutdown.onShutdown { _ in try persistence.flush() }
/// shutdown.onShutdown { _ in store.removeMiddleware(named: "audit") }  // closes the trail
/// ```
///
/// Made once in `main`, before the work starts, and kept alive (a local of `main` that lives
/// to its end, or a stored property) as long as the signals should be handled.
///
/// ## Behaviour
///
/// - **Signal safety.** Nothing runs inside a signal handler. Each signal's default action is
///   set to ignore it, and a dispatch source watches it: libdispatch notices the signal, and
///   the work runs later as ordinary code, where it may lock, allocate, dispatch to a store,
///   write files and `await`. The initialiser returns once every source is registered, so that
///   no signal that arrives afterwards is lost.
/// - **The work.** At the first stop signal, the closures given to ``onShutdown(_:)`` run one
///   after the other, in the order they were added, on a task of their own (not on the main
///   actor, which may be blocked reading input: code that needs the main actor awaits it).
///   Each is given the signal. A closure that throws does not stop the others: an audit trail
///   is closed even when the save failed.
/// - **The end.** After the work, the process ends by the signal it got: its default action is
///   restored and it is raised again, so that a shell reports the conventional status,
///   128 plus the signal's number (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP; see
///   ``ShutdownSignal/shellStatus``), and a parent that stopped the process sees it end for
///   the reason it was asked to. When a closure threw, the process exits with status 1
///   instead. Standard output and standard error are flushed first, so that what the work
///   printed is not lost. The closures report their own failures (they know what failed): the
///   error a closure throws only sets the status.
/// - **A second signal** while the work runs ends the process at once, by that signal: a
///   user who presses Ctrl-C twice, or a service manager that gave up waiting, is obeyed.
///   A ``PersistenceMiddleware`` replaces its file in one step, so the file then holds the
///   previous save or this one, never a mix.
/// - **Ignored signals stay ignored.** A signal the process ignored when the `ShutdownSignals`
///   was made (SIGHUP under `nohup`) is not handled: ``signals`` lists the ones that are.
/// - **One per process.** A second `ShutdownSignals` while one handles the signals throws
///   ``ShutdownSignalsError/alreadyHandled``: two would each end the process after their own
///   work, cutting the other's short.
///
/// A process that ends normally (the end of its input, a quit command) runs its own shutdown
/// code: `ShutdownSignals` is only for the signals. A `flush()` at the end of `main` and the
/// same `flush()` here cover both ways out.
///
/// `@unchecked Sendable`: the dispatch sources are set once by the initialiser and only
/// cancelled after; everything that changes is under a lock.
public final class ShutdownSignals: @unchecked Sendable {
  /// Work to run at shutdown.
  typealias Work = @Sendable (ShutdownSignal) async throws -> Void

  /// What the signal handling knows, shared with the sources' handlers.
  struct Book: Sendable {
    var work: [Work] = []
    /// Whether a stop signal arrived and its work runs.
    var shuttingDown = false
    /// Whether ``cancel()`` gave the signals back their default actions.
    var cancelled = false
  }

  /// Whether a `ShutdownSignals` handles the signals of the process.
  private static let handling = Locked(false)

  /// The signals handled: those asked for, less any the process ignored when it was made.
  public let signals: [ShutdownSignal]
  private let book: Locked<Book>
  private let sources: [any DispatchSourceSignal]
  /// Each signal's action before the initialiser ignored it, restored by ``cancel()``.
  private let previousActions: [(number: Int32, action: sigaction)]

  /// Starts handling stop signals: from now on they run the shutdown work instead of ending the
  /// process at once.
  ///
  /// A signal the process ignores already is left ignored, and not handled: SIGHUP under
  /// `nohup`, SIGINT in a job a script started in the background. The user asked for the
  /// process to outlive them.
  ///
  /// - Parameter signals: The signals to handle; SIGINT, SIGTERM and SIGHUP by default.
  /// - Throws: ``ShutdownSignalsError/alreadyHandled`` when another `ShutdownSignals` handles
  ///   the signals of this process.
  public init(_ signals: [ShutdownSignal] = ShutdownSignal.all) throws(ShutdownSignalsError) {
    let claimed = Self.handling.withLock { handling in
      guard !handling else { return false }
      handling = true
      return true
    }
    guard claimed else { throw .alreadyHandled }
    var handled: [ShutdownSignal] = []
    var previousActions: [(number: Int32, action: sigaction)] = []
    for stop in signals where !handled.contains(stop) {
      var previous = sigaction()
      sigaction(stop.number, nil, &previous)
      // Ignored when the process started (`nohup`, a script's background job): it stays so.
      guard !Self.ignores(previous) else { continue }
      handled.append(stop)
      previousActions.append((stop.number, previous))
    }
    let book = Locked(Book())
    let queue = DispatchQueue(label: "ReducePersistence.ShutdownSignals")
    let registered = DispatchGroup()
    self.sources = handled.map { stop in
      // Ignored first: on Darwin a signal source sees a signal only when its default action
      // does not end the process before.
      _ = signal(stop.number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: stop.number, queue: queue)
      source.setEventHandler { Self.received(stop, book: book) }
      registered.enter()
      source.setRegistrationHandler { registered.leave() }
      source.resume()
      return source
    }
    self.signals = handled
    self.book = book
    self.previousActions = previousActions
    // Until a source is registered with the system, its signal is ignored and lost: wait, so
    // that every signal that arrives once the initialiser returned is handled.
    _ = registered.wait(timeout: .now() + .seconds(10))
  }

  deinit {
    cancel()
  }

  /// Whether a signal action ignores the signal.
  private static func ignores(_ action: sigaction) -> Bool {
    #if canImport(Darwin)
      let handler = action.__sigaction_u.__sa_handler
    #else
      let handler = action.__sigaction_handler.sa_handler
    #endif
    return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
  }

  /// Adds work to run when a stop signal arrives, after the work added before.
  ///
  /// Work added after the signal arrived does not run.
  ///
  /// - Parameter work: Runs once, for the first stop signal, given that signal. Throw to make
  ///   the process exit with status 1 instead of ending by the signal; report the failure
  ///   before, the error itself is not shown.
  public func onShutdown(_ work: @escaping @Sendable (ShutdownSignal) async throws -> Void) {
    book.withLock { $0.work.append(work) }
  }

  /// Stops handling the signals and gives them back the actions they had before.
  ///
  /// For most processes that is the default action, ending at once. Another
  /// `ShutdownSignals` may then be made. Called by `deinit`.
  ///
  /// Work that runs already for a signal that arrived goes on, and ends the process.
  public func cancel() {
    let first = book.withLock { book in
      defer { book.cancelled = true }
      return !book.cancelled
    }
    guard first else { return }
    for source in sources { source.cancel() }
    for (number, action) in previousActions {
      var action = action
      sigaction(number, &action, nil)
    }
    Self.handling.withLock { $0 = false }
  }

  /// Starts the work for the first stop signal; ends the process at once for a later one.
  ///
  /// Runs on the sources' queue, as ordinary code: libdispatch noticed the signal.
  private static func received(_ stop: ShutdownSignal, book: Locked<Book>) {
    let work: [Work]? = book.withLock { book in
      guard !book.shuttingDown, !book.cancelled else { return nil }
      book.shuttingDown = true
      return book.work
    }
    guard let work else {
      // A second signal, or one that arrived as the handling was cancelled: what the signal's
      // default action would have done.
      end(by: stop)
    }
    Task.detached {
      var failed = false
      for item in work {
        do {
          try await item(stop)
        } catch {
          failed = true
        }
      }
      flushStandardStreams()
      if failed { _exit(1) }
      end(by: stop)
    }
  }

  /// Ends the process by a signal: restores its default action, unblocks it on this thread and
  /// raises it.
  private static func end(by stop: ShutdownSignal) -> Never {
    _ = signal(stop.number, SIG_DFL)
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, stop.number)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
    raise(stop.number)
    // Not reached: the signal's default action ends the process.
    _exit(stop.shellStatus)
  }
}
