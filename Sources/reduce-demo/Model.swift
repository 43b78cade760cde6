import Reduce

// The demo's state and actions: a to-do list (`todos`, undoable and saved to disk) and the
// terminal's view of it (`ui`: filter, selection, status line, loading progress).

/// One item of the list.
struct Todo: Codable, Equatable, Sendable {
  /// A number that stays with the item while it lives; the numbers shown are positions.
  var id: Int
  var title: String
  var isDone = false

  enum CodingKeys: String, CodingKey {
    case id
    case title
    case isDone = "done"
  }
}

/// The undoable, saved part of the state.
///
/// Decoding checks that the list is whole and consistent (see `StateFile.problem(with:)`), so
/// that the persistence refuses a file whose ids could overflow or collide.
struct TodoList: Codable, Equatable, Sendable {
  var items: [Todo] = []
  /// The id the next added item gets.
  var nextID = 1

  /// One more than the largest id an item can have, and the largest `nextID`.
  ///
  /// Far beyond any list a person keeps, and far below `Int.max`, so that no arithmetic on ids
  /// can overflow; a state file outside the bound is refused when it is loaded.
  static let idLimit = 1_000_000_000

  /// How many more items the list can take before its ids run out.
  var room: Int { Self.idLimit - nextID }

  /// The item with an id, if the list has it.
  func item(_ id: Int) -> Todo? { items.first { $0.id == id } }

  /// Appends an item with a fresh id, unless the ids ran out (see ``room``).
  mutating func append(_ title: String) {
    guard room > 0 else { return }
    items.append(Todo(id: nextID, title: title))
    nextID += 1
  }
}

/// Which items the list shows.
enum Filter: String, CaseIterable, Codable, Sendable {
  case all
  case open
  case done

  /// Whether an item is shown.
  func shows(_ todo: Todo) -> Bool {
    switch self {
    case .all: true
    case .open: !todo.isDone
    case .done: todo.isDone
    }
  }
}

/// Where a `load` is.
enum LoadPhase: Equatable, Sendable {
  case idle
  case loading(source: String, step: Int, of: Int)
}

/// What the last autosave did.
enum SaveOutcome: Equatable, Sendable {
  case none
  case saved(items: Int)
  case failed(reason: String)
}

/// The terminal's state: not undoable, not saved.
struct UIState: Equatable, Sendable {
  var filter = Filter.all
  /// The id of the item the last command touched, marked in the list.
  var selection: Int?
  /// What the last command did, in a sentence.
  var status = "Ready."
  var loading = LoadPhase.idle
  var autosave = SaveOutcome.none
}

/// The whole state of the demo's store.
struct AppState: Equatable, Sendable {
  var todos = TodoList()
  var ui = UIState()
}

// MARK: Actions

/// Edits of the list: what the user did to it.
enum TodoAction: Action, Equatable, Encodable {
  case added(title: String)
  case completed(id: Int)
  case reopened(id: Int)
  case renamed(id: Int, title: String)
  case removed(id: Int, title: String)
}

/// Changes of the terminal's view.
enum UIAction: Action, Equatable, Encodable {
  case filterChanged(Filter)
  /// A status line set by the app for things no reducer sees (undo and redo).
  case noted(String)
}

/// What the `load` thunk reports as it goes.
enum LoadAction: Action, Equatable, Encodable {
  case started(source: String, steps: Int)
  case progressed(step: Int, of: Int)
  case succeeded(source: String, titles: [String])
  case failed(source: String, reason: String)
}

/// What a save of the list did: dispatched by the persistence after each save it makes once
/// edits pause, and after a flush (at the end of the input, or for a stop signal).
enum AutosaveAction: Action, Equatable, Encodable {
  case saved(items: Int)
  case failed(reason: String)
}

extension TodoList {
  private enum CodingKeys: String, CodingKey {
    case items
    case nextID
  }

  /// Decodes a list and refuses one that is not consistent: ids from 1 to `idLimit - 1`, each
  /// used once, and a `nextID` above every id and at most the limit.
  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let items = try container.decode([Todo].self, forKey: .items)
    let nextID = try container.decode(Int.self, forKey: .nextID)
    let contents = StateFile.Contents(version: 1, nextID: nextID, items: items)
    if let problem = StateFile.problem(with: contents) {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath + problem.path, debugDescription: problem.text))
    }
    self.init(items: items, nextID: nextID)
  }
}
