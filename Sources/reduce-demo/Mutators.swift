import Reduce

/// The reducers of the demo: one mutator per substate.
enum Mutators {
  /// Reduces the list: edits, and the items a load brings.
  static let todos = Mutator(\AppState.todos) { (list: inout TodoList, action: TodoAction) in
    switch action {
    case .added(let title):
      list.append(title)
    case .completed(let id):
      if let index = list.items.firstIndex(where: { $0.id == id }) {
        list.items[index].isDone = true
      }
    case .reopened(let id):
      if let index = list.items.firstIndex(where: { $0.id == id }) {
        list.items[index].isDone = false
      }
    case .renamed(let id, let title):
      if let index = list.items.firstIndex(where: { $0.id == id }) {
        list.items[index].title = title
      }
    case .removed(let id, _):
      list.items.removeAll { $0.id == id }
    }
  }
  .on(LoadAction.self) { (list: inout TodoList, action) in
    if case .succeeded(_, let titles) = action {
      for title in titles { list.append(title) }
    }
  }

  /// Reduces the terminal's view.
  ///
  /// Registered after `todos`, so that its pure handler for edits sees the list as the edit left
  /// it (to name the item and select it).
  static let ui = Mutator(\AppState.ui) { (state: AppState, action: TodoAction) -> UIState in
    var ui = state.ui
    let list = state.todos
    func named(_ id: Int) -> String { list.item(id).map { quoted($0.title) } ?? "item" }
    switch action {
    case .added(let title):
      ui.selection = list.items.last?.id
      ui.status = "Added \(quoted(title))."
    case .completed(let id):
      ui.selection = id
      ui.status = "Done: \(named(id))."
    case .reopened(let id):
      ui.selection = id
      ui.status = "Not done: \(named(id))."
    case .renamed(let id, let title):
      ui.selection = id
      ui.status = "Renamed to \(quoted(title))."
    case .removed(_, let title):
      ui.selection = nil
      ui.status = "Removed \(quoted(title))."
    }
    return ui
  }
  .on(UIAction.self) { (ui: inout UIState, action) in
    switch action {
    case .filterChanged(let filter):
      ui.filter = filter
      ui.status = filter == .all ? "Showing all items." : "Showing \(filter.rawValue) items."
    case .noted(let text):
      ui.status = text
    }
  }
  .on(LoadAction.self) { (ui: inout UIState, action) in
    switch action {
    case .started(let source, let steps):
      ui.loading = .loading(source: source, step: 0, of: steps)
    case .progressed(let step, let steps):
      if case .loading(let source, _, _) = ui.loading {
        ui.loading = .loading(source: source, step: step, of: steps)
      }
    case .succeeded(let source, let titles):
      ui.loading = .idle
      ui.status =
        "Loaded \(count(titles.count, "item")) from \(source.escapingControlCharacters())."
    case .failed(let source, let reason):
      ui.loading = .idle
      ui.status = "Could not load \(source.escapingControlCharacters()): \(reason)."
    }
  }
  .on(AutosaveAction.self) { (ui: inout UIState, action) in
    switch action {
    case .saved(let items): ui.autosave = .saved(items: items)
    case .failed(let reason): ui.autosave = .failed(reason: reason)
    }
  }
}

/// A title (or any text the user typed) in quotation marks, its control characters escaped.
func quoted(_ title: String) -> String { "\"\(title.escapingControlCharacters())\"" }

/// A count with its noun: `1 item`, `3 items`, `2 entries`.
func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
  "\(number) \(number == 1 ? noun : plural ?? noun + "s")"
}
