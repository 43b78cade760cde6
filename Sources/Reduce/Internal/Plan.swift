/// What a dispatch runs with: the middleware chain and the mutators' routes.
///
/// Immutable: registering a mutator or a middleware makes a new plan, so a dispatch reads it
/// once and finishes with the plan it started with.
@usableFromInline
final class Plan<State: Sendable>: Sendable {
  @usableFromInline let chain: Chain<State>
  @usableFromInline let registry: Registry<State>

  /// Whether a commit observer asks to be called after each turn: read by every dispatch,
  /// where reading `chain.afterTurn` would retain and release the chain and the array.
  @usableFromInline let hasAfterTurn: Bool

  init(chain: Chain<State> = Chain(), registry: Registry<State> = Registry()) {
    self.chain = chain
    self.registry = registry
    hasAfterTurn = !chain.afterTurn.isEmpty
  }
}

/// The middleware of a store, outermost first, and their commit observers.
///
/// Immutable: `use`
/// and `removeMiddleware` make a new chain.
@usableFromInline
final class Chain<State: Sendable>: Sendable {
  @usableFromInline
  struct Entry: Sendable {
    @usableFromInline let name: String
    @usableFromInline let middleware: any Middleware<State>
    let recording: CommitRecording<State>?
  }

  let entries: [Entry]
  /// The outermost middleware, linked to the ones after it: where a dispatch starts.
  @usableFromInline let first: ChainNode<State>?
  /// The commit observers, outermost first.
  @usableFromInline let recordings: [CommitRecording<State>]
  /// The commit observers that ask to see each change before it is made, innermost first: an
  /// audit trail early in the chain writes its entry once every observer after it accepted.
  @usableFromInline let checks: [CommitHooks]
  /// The commit observers that ask to be called after each turn.
  @usableFromInline let afterTurn: [CommitHooks]

  init(_ entries: [Entry] = []) {
    self.entries = entries
    var node: ChainNode<State>?
    for entry in entries.reversed() { node = ChainNode(entry: entry, next: node) }
    first = node
    recordings = entries.compactMap(\.recording)
    checks = recordings.reversed().filter { $0.willCommit != nil }
    afterTurn = recordings.filter { $0.afterTurn != nil }
  }

  var names: [String] { entries.map(\.name) }
}

/// One middleware of a chain and the ones after it: what a `next` holds.
///
/// So a dispatch in
/// progress, and a `next` called late, finish with the chain they started with. It holds only
/// the middleware after the one it was given to: a middleware that keeps its `next` does not
/// keep itself alive.
@usableFromInline
final class ChainNode<State: Sendable>: Sendable {
  @usableFromInline let entry: Chain<State>.Entry
  @usableFromInline let next: ChainNode<State>?

  init(entry: Chain<State>.Entry, next: ChainNode<State>?) {
    self.entry = entry
    self.next = next
  }
}
