import Dispatch
import Foundation

/// A signal that asks the demo to stop.
struct StopSignal: Sendable, Equatable {
  /// The signal's number.
  let number: Int32
  /// Its name, as `kill -l` spells it with the prefix: `SIGTERM`.
  let name: String

  /// Ctrl-C at the terminal.
  static let interrupt = StopSignal(number: SIGINT, name: "SIGINT")
  /// `kill`, a service manager, a container stopping.
  static let terminate = StopSignal(number: SIGTERM, name: "SIGTERM")
  /// The terminal was closed.
  static let hangUp = StopSignal(number: SIGHUP, name: "SIGHUP")

  /// The signals the demo saves the list for before it stops.
  static let all = [interrupt, terminate, hangUp]
}

/// Saves the list when a stop signal arrives, then ends the process as the signal would have.
///
/// The autosave waits for edits to pause, so the default action of SIGINT, SIGTERM and SIGHUP
/// (ending the process at once) would lose the edits of the last moments. Each of them is
/// ignored instead and watched by a dispatch source: libdispatch notices the signal, and the
/// handler runs as ordinary code on a private queue, where it may lock, allocate, dispatch to
/// the store and write files. Nothing of the demo's runs inside a signal handler.
///
/// After the save, the handler restores the signal's default action and raises it again, so the
/// process ends by that signal, which a shell reports as status 128 + its number (130 for
/// SIGINT, 143 for SIGTERM, 129 for SIGHUP), and a parent that stopped the demo sees it stop for
/// the reason it was asked to. When the save fails, the process exits with status 1 instead.
///
/// Keep the value alive as long as the signals should be handled.
final class StopSignalHandler {
  private let sources: [any DispatchSourceSignal]

  /// Starts handling the stop signals.
  ///
  /// - Parameter save: Saves the list, and returns whether it is safe on disk. Called on a
  ///   private queue, once, for the first stop signal; the process ends after it returns.
  init(save: @escaping @Sendable (StopSignal) -> Bool) {
    let queue = DispatchQueue(label: "reduce-demo.stop-signals")
    let registered = DispatchGroup()
    sources = StopSignal.all.map { stop in
      // Ignored first: on Darwin a signal source sees a signal only when its default action
      // does not end the process before.
      signal(stop.number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: stop.number, queue: queue)
      source.setEventHandler {
        let saved = save(stop)
        Self.end(by: stop, saved: saved)
      }
      registered.enter()
      source.setRegistrationHandler { registered.leave() }
      source.resume()
      return source
    }
    // Until a source is registered with the system, its signal is ignored and lost: wait, so
    // that every signal that arrives once the demo has started is handled.
    _ = registered.wait(timeout: .now() + .seconds(5))
  }

  /// Ends the process by a signal, or with status 1 when the list was not saved.
  private static func end(by stop: StopSignal, saved: Bool) -> Never {
    guard saved else { _exit(1) }
    signal(stop.number, SIG_DFL)
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, stop.number)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
    raise(stop.number)
    // Not reached: the signal's default action ends the process.
    _exit(128 + stop.number)
  }
}
