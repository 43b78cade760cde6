import Foundation
import Reduce
import ReduceTesting
import ReduceThrottle

struct Editor: Equatable, Sendable {
  var query = ""
  var saves: [String] = []
  var scroll = 0
  var taps = 0
}

enum SearchAction: Action, Equatable {
  case queryChanged(String)
}

enum SaveAction: Action, Equatable {
  case save(doc: String, text: String)

  var doc: String {
    switch self {
    case .save(let doc, _): doc
    }
  }
}

enum ScrollAction: Action, Equatable {
  case scrolled(to: Int)
}

enum TapAction: Action, Equatable {
  case tapped
}

let editorMutators: [Mutator<Editor>] = [
  Mutator(\Editor.query) { (query: inout String, action: SearchAction) in
    if case .queryChanged(let text) = action { query = text }
  },
  Mutator(\Editor.saves) { (saves: inout [String], action: SaveAction) in
    if case .save(let doc, let text) = action { saves.append("\(doc):\(text)") }
  },
  Mutator(\Editor.scroll) { (scroll: inout Int, action: ScrollAction) in
    if case .scrolled(let offset) = action { scroll = offset }
  },
  Mutator(\Editor.taps) { (taps: inout Int, _: TapAction) in taps += 1 },
]

/// A short label of an action: `q:text`, `doc:text`, `scroll:n`, `tap`.
func label(_ action: any Action) -> String {
  switch action {
  case SearchAction.queryChanged(let text): "q:\(text)"
  case SaveAction.save(let doc, let text): "\(doc):\(text)"
  case ScrollAction.scrolled(let offset): "scroll:\(offset)"
  case TapAction.tapped: "tap"
  default: "\(action)"
  }
}

/// The instant `milliseconds` after a manual clock's origin.
func ms(_ milliseconds: Int) -> ManualClock.Instant {
  .zero.advanced(by: .milliseconds(milliseconds))
}

/// A thread-safe list of values, for tests to collect what happened.
final class Collector<Value: Sendable>: Sendable {
  // NSLock rather than Mutex: ThreadSanitizer sees through pthread locks only.
  private let lock = NSLock()
  nonisolated(unsafe) private var storage: [Value] = []

  func append(_ value: Value) {
    lock.withLock { storage.append(value) }
  }

  var values: [Value] {
    lock.withLock { storage }
  }
}

/// What reached the reducers, and when: `label@milliseconds`.
final class Timeline: Sendable {
  private let entries = Collector<String>()

  func append(_ entry: String) {
    entries.append(entry)
  }

  var values: [String] {
    entries.values
  }

  /// A middleware that writes each action it sees with the clock's time.
  func recorder(_ clock: ManualClock) -> AnyMiddleware<Editor> {
    AnyMiddleware(name: "timeline") { action, _, next in
      let milliseconds = Int((clock.now.offset / .milliseconds(1)).rounded())
      self.append("\(label(action))@\(milliseconds)")
      try next(action)
    }
  }
}

/// A store with a throttle middleware on a manual clock, and a timeline after the throttle.
struct Harness {
  let clock = ManualClock()
  let timeline = Timeline()
  let throttle: ThrottleMiddleware<Editor>
  let store: Store<Editor>

  init(_ rules: [ThrottleRule]) throws {
    throttle = try ThrottleMiddleware(rules: rules, clock: clock)
    store = try Store(
      initialState: Editor(), mutators: editorMutators,
      middleware: [throttle, timeline.recorder(clock)])
  }

  /// Moves the clock to `milliseconds` after its origin.
  func advance(to milliseconds: Int) async {
    await clock.advance(to: ms(milliseconds))
  }

  /// Moves the clock, then dispatches.
  func dispatch(_ action: some Action, at milliseconds: Int) async {
    await advance(to: milliseconds)
    store.dispatch(action)
  }
}
