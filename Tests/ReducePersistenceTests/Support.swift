import Foundation
import Reduce
import ReducePersistence
import ReduceTesting
import Testing

/// The state of the tests: a document with a title and a body, and a cursor that is not kept.
struct Editor: Codable, Equatable, Sendable {
  var document = Document()
  var cursor = 0
}

struct Document: Codable, Equatable, Sendable {
  var title = ""
  var body = ""
}

enum Edit: Action, Equatable {
  case titled(String)
  case typed(String)
  case moved(to: Int)
}

/// What the app dispatches after each save, for the tests that check `onSave`.
enum SaveNote: Action, Equatable {
  case saved(title: String)
  case failed
}

let editorMutators: [Mutator<Editor>] = [
  Mutator(\Editor.document) { (document: inout Document, action: Edit) in
    switch action {
    case .titled(let title): document.title = title
    case .typed(let text): document.body += text
    case .moved: break
    }
  },
  Mutator(\Editor.cursor) { (cursor: inout Int, action: Edit) in
    if case .moved(let position) = action { cursor = position }
  },
]

/// A fresh directory in the temporary directory, removed by `remove()`.
struct TemporaryDirectory {
  let path: String

  init() throws {
    path =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("reduce-persistence-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  /// A path in the directory.
  func file(_ name: String) -> String { path + "/" + name }

  /// The names in the directory, sorted.
  func names() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: path).sorted()
  }

  func write(_ text: String, to name: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
  }

  func read(_ name: String) throws -> String {
    try String(contentsOfFile: file(name), encoding: .utf8)
  }

  func remove() {
    try? FileManager.default.removeItem(atPath: path)
  }
}

/// The document as the `.envelope` layout writes it, for the tests that read the file.
struct SavedDocument: Decodable, Equatable {
  var state: Document
  var version: Int
}

func savedDocument(at path: String) throws -> SavedDocument {
  try JSONDecoder().decode(SavedDocument.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
}

func ms(_ value: Int) -> ManualClock.Instant { .init(offset: .milliseconds(value)) }

/// A persistence of the document with a manual clock, and a store that uses it.
func makeEditor(
  in directory: TemporaryDirectory, file: String = "editor.json",
  debounce: Duration = .milliseconds(500), maxWait: Duration? = .seconds(2),
  onSave: (@Sendable (SaveOutcome<Document>) -> (any Action)?)? = nil
) throws -> (Store<Editor>, PersistenceMiddleware<Editor, Document>, ManualClock) {
  let clock = ManualClock()
  let persistence = try PersistenceMiddleware(
    file: directory.file(file), scope: \Editor.document, debounce: debounce, maxWait: maxWait,
    clock: clock, onSave: onSave)
  let store = try Store(
    initialState: persistence.restoring(Editor()), mutators: editorMutators,
    middleware: [persistence])
  return (store, persistence, clock)
}
