/// How a kept `next` or context reaches its store without keeping it alive.
///
/// Its identity is the store's: the `storeID` middleware are given.
final class StoreLink<State: Sendable>: @unchecked Sendable {
  // `@unchecked Sendable`: `core` is set once, by the engine's initialiser, before the store is
  // shared; `ended` has its own lock.
  weak var core: StoreCore<State>?
  /// The state the store ended with, once it is closed.
  private let ended = Locked<State?>(nil)

  var storeID: ObjectIdentifier { ObjectIdentifier(self) }

  func close(with state: State) {
    ended.withLock { $0 = state }
  }

  func finalState() -> State {
    guard let state = ended.withLock({ $0 }) else {
      preconditionFailure("A store's engine ended without being closed.")
    }
    return state
  }
}

/// The middleware chain a dispatch runs: immutable, so a dispatch in progress finishes with the
/// chain it started with, whatever `use` and `removeMiddleware` do meanwhile.
final class Chain<State: Sendable>: Sendable {
  struct Entry: Sendable {
    let name: String
    let middleware: any Middleware<State>
    let recording: CommitRecording<State>?
  }

  let entries: [Entry]
  /// The commit observers, outermost first.
  let recordings: [CommitRecording<State>]
  /// The commit observers that ask to be called after each turn.
  let afterTurn: [CommitRecording<State>]

  init(_ entries: [Entry] = []) {
    self.entries = entries
    recordings = entries.compactMap(\.recording)
    afterTurn = recordings.filter { $0.afterTurn != nil }
  }

  var names: [String] { entries.map(\.name) }
}
