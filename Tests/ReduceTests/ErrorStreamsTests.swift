import Testing

@testable import Reduce

/// The store's error sequences on their own: every open one gets each failure, and closing
/// finishes them.
@Suite(.timeLimit(.minutes(1))) struct ErrorStreamsTests {
  private struct Tap: Action {}

  private static func failure(_ key: String) -> DispatchError {
    .reducerFailed(key: MutatorKey(key), action: Tap(), underlying: CancellationError())
  }

  /// The mutator keys of the failures a sequence delivered before it finished.
  private static func keys(of stream: AsyncStream<DispatchError>) async -> [String] {
    var keys: [String] = []
    for await failure in stream {
      if case .reducerFailed(let key, _, _) = failure { keys.append(key.rawValue) }
    }
    return keys
  }

  @Test("every open sequence gets each failure, in order; closing finishes them")
  func publishAndClose() async {
    let errors = ErrorStreams()
    let first = errors.makeStream()
    let second = errors.makeStream()
    errors.publish(Self.failure("a"))
    errors.publish(Self.failure("b"))
    errors.close()
    #expect(await Self.keys(of: first) == ["a", "b"])
    #expect(await Self.keys(of: second) == ["a", "b"])
  }

  @Test("a sequence made after closing has already finished, and gets nothing")
  func afterClose() async {
    let errors = ErrorStreams()
    errors.close()
    let late = errors.makeStream()
    errors.publish(Self.failure("a"))
    #expect(await Self.keys(of: late).isEmpty)
  }

  @Test("a sequence gets only the failures published after it was made")
  func fromNowOn() async {
    let errors = ErrorStreams()
    errors.publish(Self.failure("early"))
    let stream = errors.makeStream()
    errors.publish(Self.failure("late"))
    errors.close()
    #expect(await Self.keys(of: stream) == ["late"])
  }
}
