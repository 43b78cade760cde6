import Foundation

/// A task executor with a thread of its own: the tasks that prefer it run there, whatever the
/// cooperative pool is doing.
///
/// A ``StandbyStore`` follows its journal on one, so that code that blocks the pool's few
/// threads (a synchronous wait in a request handler, a test that blocks) cannot hold the
/// standby back. The thread runs until it is told to stop and every task that runs on it has
/// ended (``taskStarted()`` and ``taskEnded()`` count them), so that no job is left unrun.
final class ThreadExecutor: TaskExecutor, Sendable {
  private struct State {
    var jobs: [UnownedJob] = []
    var tasks = 0
    var stopping = false
  }

  private let state = Monitor(State())

  /// Starts the thread.
  ///
  /// - Parameter name: The thread's name, for debuggers.
  init(name: String) {
    let thread = Thread { [self] in run() }
    thread.name = name
    thread.start()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    state.withLock { $0.jobs.append(job) }
    state.broadcast()
  }

  /// Counts a task that will run on the executor.
  func taskStarted() {
    state.withLock { $0.tasks += 1 }
  }

  /// Counts a task's end, from its last job.
  func taskEnded() {
    state.withLock { $0.tasks -= 1 }
    state.broadcast()
  }

  /// Lets the thread end once every task has ended.
  func stop() {
    state.withLock { $0.stopping = true }
    state.broadcast()
  }

  private func run() {
    let idle = { (state: State) in state.jobs.isEmpty && !(state.stopping && state.tasks == 0) }
    while true {
      let jobs = state.withLock(waitingWhile: idle, Self.takeJobs)
      guard let jobs else { return }
      for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
  }

  /// The jobs waiting, taken out; nil when there are none (the thread is to end).
  private static func takeJobs(_ state: inout State) -> [UnownedJob]? {
    guard !state.jobs.isEmpty else { return nil }
    defer { state.jobs.removeAll(keepingCapacity: true) }
    return state.jobs
  }
}
