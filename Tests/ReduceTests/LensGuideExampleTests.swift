import Reduce
import Testing

/// The types of the Concepts guide's "Lenses in the checks" example.
enum LensGuideExample {
  struct EditorState: Equatable, Sendable {
    var title = ""
    var body = ""
  }

  struct Draft: Equatable, Sendable {
    var title = ""
    var body = ""
  }

  enum DraftAction: Action {
    case cleared
  }
}

@Suite struct LensGuideExampleTests {
  @Test("Concepts, Lenses in the checks: a declared lens covers its paths and refuses overlap")
  func lensInTheChecks() throws {
    typealias EditorState = LensGuideExample.EditorState
    typealias Draft = LensGuideExample.Draft
    typealias DraftAction = LensGuideExample.DraftAction

    let draft = Lens<EditorState, Draft>(
      covering: [\EditorState.title, \EditorState.body],
      get: { Draft(title: $0.title, body: $0.body) },
      set: { state, draft in
        state.title = draft.title
        state.body = draft.body
      })

    let drafting = Mutator(key: "draft", lens: draft) { (draft: inout Draft, action: DraftAction) in
      if case .cleared = action { draft = Draft() }
    }
    let store = try Store(initialState: EditorState(), mutators: [drafting])
    try store.validateCoverage()  // title and body are covered by the lens

    // A second mutator of the title, in any form, is refused:
    // RegistrationError.overlappingSubstate(key: "\EditorState.title", existing: "draft")
    let title = Mutator(\EditorState.title) { (title: inout String, action: DraftAction) in }
    #expect(throws: RegistrationError.self) { try store.register(title) }

    #expect(
      throws: RegistrationError.overlappingSubstate(key: "\\EditorState.title", existing: "draft")
    ) {
      try store.register(title)
    }
    #expect(store.mutatorKeys == ["draft"])
  }
}
