import Foundation
import Reduce

// MARK: Many threads and tasks at once
//
// One counter store, dispatched to from many threads or tasks at once. The store time per
// dispatch is the wall time over all their dispatches, so the table compares the store's
// throughput in all with `counter`'s on one thread.

/// The share of `count` dispatches that thread or task `index` of `parts` makes: they add up to
/// `count` exactly.
func share(of count: Int, among parts: Int, index: Int) -> Int {
  count / parts + (index < count % parts ? 1 : 0)
}

/// Starts `threads` threads that wait, and returns the timed part: it lets them all go, each
/// running `body` with its index, and returns when every one has finished.
///
/// The returned closure must be called once: until then, the threads wait.
func onThreads(_ threads: Int, _ body: @escaping @Sendable (Int) -> Void) -> () -> Void {
  let start = DispatchSemaphore(value: 0)
  let done = DispatchSemaphore(value: 0)
  for index in 0..<threads {
    Thread {
      start.wait()
      body(index)
      done.signal()
    }.start()
  }
  return {
    for _ in 0..<threads { start.signal() }
    for _ in 0..<threads { done.wait() }
  }
}

/// Runs `tasks` child tasks of a task group, each running `body` with its index, and blocks the
/// calling thread until all have finished.
///
/// The benchmark measures on the main thread, which is not one of the cooperative pool's:
/// blocking it leaves every thread of the pool to the tasks.
func onTasks(_ tasks: Int, _ body: @escaping @Sendable (Int) async -> Void) {
  let done = DispatchSemaphore(value: 0)
  Task.detached {
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<tasks {
        group.addTask { await body(index) }
      }
    }
    done.signal()
  }
  done.wait()
}

func concurrentWorkloads() -> [Workload] {
  [
    Workload(
      "contended-8", target: .relative(to: "counter", factor: 2), concurrency: "8 threads",
      store: { count in
        let store = try counterStore()
        return onThreads(8) { thread in
          for _ in 0..<share(of: count, among: 8, index: thread) { store.dispatch(Increment()) }
        }
      },
      baseline: counterBaseline),
    sendWorkload("send-1000", tasks: 1000, target: .relative(to: "counter", factor: 3.33)),
    // 50,000 dispatches: a reference without a target, kept short. (It was cut to that when
    // eight tasks sending without pause sometimes took seconds for 160,000, before a task
    // waited a moment and yielded before it queued; Guides/Performance.md.)
    sendWorkload("contended-8-send", tasks: 8, dispatches: 50_000, target: nil),
    contendedLedger("contended-ledger-10", accounts: 10, returning: true, target: nil),
    // Flat in the size of the state: no copy of the 100,000 balances per dispatch (one costs
    // about a millisecond, thousands of times a dispatch). Twice, not 1.5 times as for one
    // thread: with 8 threads switching on 2 cores, the big dictionary misses the caches more,
    // and runs of these two varied from 0.6 to 3 times each other at first.
    contendedLedger(
      "contended-ledger-100k", accounts: 100_000, returning: true,
      target: .relative(to: "contended-ledger-10", factor: 2)),
    // The same with `dispatch(_:)`, which returns the state: the cost Guides/Performance.md
    // explains ("The returned state"), measured, with few dispatches.
    contendedLedger(
      "contended-ledger-100k-state", accounts: 100_000, returning: false, dispatches: 4_000,
      target: nil),
    // A server's action under contention, against the same action on one thread: 8 threads
    // whose actions update a dictionary of 100 or of 100,000 entries and read one value back
    // keep at least half of one thread's throughput (store time per dispatch at most twice).
    contendedLedger(
      "server-1-100", threads: 1, accounts: 100, returning: true, target: nil),
    contendedLedger(
      "server-8-100", accounts: 100, returning: true,
      target: .relative(to: "server-1-100", factor: 2)),
    contendedLedger(
      "server-1-100k", threads: 1, accounts: 100_000, returning: true, target: nil),
    contendedLedger(
      "server-8-100k", accounts: 100_000, returning: true,
      target: .relative(to: "server-1-100k", factor: 2)),
  ]
}

/// `threads` threads (8 by default) dispatching their share of the ledger's actions to one
/// store of `accounts` accounts, each reading back the balance it changed
/// (`dispatch(_:returning:)`), or getting the whole state (`dispatch(_:)`).
func contendedLedger(
  _ name: String, threads: Int = 8, accounts: Int, returning: Bool, dispatches: Int = 400_000,
  target: Target?
) -> Workload {
  Workload(
    name, dispatches: dispatches, target: target,
    concurrency: threads == 1 ? "1 thread" : "\(threads) threads",
    store: { count in
      let store = try ledgerStore(accounts: accounts, durability: nil)
      return onThreads(threads) { thread in
        for index in 0..<share(of: count, among: threads, index: thread) {
          let action = ledgerAction(index * threads + thread, accounts: accounts)
          if returning {
            store.dispatch(action) { [account = action.account] in $0.balances[account] }
          } else {
            store.dispatch(action)
          }
        }
      }
    },
    baseline: ledgerBaseline(accounts: accounts))
}

/// `tasks` tasks of a task group, each sending its share of `Increment`s to one counter store
/// with `await store.send(_:)`.
func sendWorkload(
  _ name: String, tasks: Int, dispatches: Int = 1_000_000, target: Target?
) -> Workload {
  Workload(
    name, dispatches: dispatches, target: target, concurrency: "\(grouped(tasks)) tasks",
    store: { count in
      let store = try counterStore()
      return {
        onTasks(tasks) { task in
          for _ in 0..<share(of: count, among: tasks, index: task) {
            await store.send(Increment())
          }
        }
      }
    },
    baseline: counterBaseline)
}
