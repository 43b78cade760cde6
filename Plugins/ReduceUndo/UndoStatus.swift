/// What an ``UndoMiddleware`` can do next: the facts an Undo and a Redo button need.
///
/// ```swift
/// undoButton.isEnabled = status.canUndo
/// undoButton.title = status.undoLabel.map { "Undo \($0)" } ?? "Undo"
/// ```
public struct UndoStatus: Equatable, Hashable, Sendable {
  /// The number of steps that can be undone.
  public let pastCount: Int
  /// The number of steps that can be redone.
  public let futureCount: Int
  /// The label of the step the next undo reverts, if it has one.
  public let undoLabel: String?
  /// The label of the step the next redo restores, if it has one.
  public let redoLabel: String?

  /// Creates a status; the default is an empty history.
  ///
  /// - Parameters:
  ///   - pastCount: The number of steps that can be undone.
  ///   - futureCount: The number of steps that can be redone.
  ///   - undoLabel: The label of the next step to undo.
  ///   - redoLabel: The label of the next step to redo.
  public init(
    pastCount: Int = 0, futureCount: Int = 0, undoLabel: String? = nil, redoLabel: String? = nil
  ) {
    self.pastCount = pastCount
    self.futureCount = futureCount
    self.undoLabel = undoLabel
    self.redoLabel = redoLabel
  }

  /// Whether there is a step to undo.
  public var canUndo: Bool { pastCount > 0 }

  /// Whether there is a step to redo.
  public var canRedo: Bool { futureCount > 0 }
}

/// An async sequence of an ``UndoMiddleware``'s status: the current status first, then each new
/// distinct status.
///
/// A slow consumer gets the newest status: older ones are dropped, so memory stays bounded and
/// dispatch never waits for a consumer. Each iterator observes from its creation; the sequence
/// ends when the middleware is deinitialised or the iterating task is cancelled.
///
/// ```swift
/// for await status in undo.statuses {
///   undoButton.isEnabled = status.canUndo
/// }
/// ```
public struct UndoStatusSequence: AsyncSequence, Sendable {
  /// The sequence never throws.
  public typealias Failure = Never

  private let makeStream: @Sendable () -> AsyncStream<UndoStatus>

  init(makeStream: @escaping @Sendable () -> AsyncStream<UndoStatus>) {
    self.makeStream = makeStream
  }

  /// Starts observing.
  ///
  /// - Returns: An iterator that yields the current status first.
  public func makeAsyncIterator() -> Iterator {
    Iterator(base: makeStream().makeAsyncIterator())
  }

  /// The iterator of an ``UndoStatusSequence``.
  public struct Iterator: AsyncIteratorProtocol {
    var base: AsyncStream<UndoStatus>.Iterator
    var last: UndoStatus?

    /// The next distinct status, or nil once the middleware is gone or the task is cancelled.
    ///
    /// - Returns: The status.
    public mutating func next() async -> UndoStatus? {
      await next(isolation: nil)
    }

    /// The next distinct status, or nil once the middleware is gone or the task is cancelled.
    ///
    /// - Parameter actor: The caller's isolation.
    /// - Returns: The status.
    public mutating func next(isolation actor: isolated (any Actor)?) async -> UndoStatus? {
      while let status = await base.next(isolation: actor) {
        if status == last { continue }
        last = status
        return status
      }
      return nil
    }
  }
}
