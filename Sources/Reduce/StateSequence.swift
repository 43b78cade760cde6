/// An async sequence of a store's state, or of one value in it: the current value first, then
/// each new distinct value.
///
/// A slow consumer gets the newest value: older ones are dropped, so memory stays bounded and
/// dispatch never waits for a consumer. Each iterator observes from its creation; the sequence
/// ends when the store is deinitialised, or when the iterating task is cancelled.
///
/// ```swift
/// for await count in store.states(of: \.counter) {
///   label.text = "\(count)"
/// }
/// ```
public struct StateSequence<Element: Sendable>: AsyncSequence, Sendable {
  /// The sequence never throws.
  public typealias Failure = Never

  private let makeStream: @Sendable () -> AsyncStream<Element>
  private let isDuplicate: (@Sendable (Element, Element) -> Bool)?

  /// Creates a sequence whose each iterator observes with `observe`, which yields into the
  /// continuation and returns the subscription (nil when the store is gone).
  init(
    isDuplicate: (@Sendable (Element, Element) -> Bool)?,
    observe: @escaping @Sendable (AsyncStream<Element>.Continuation) -> Subscription?
  ) {
    self.makeStream = {
      let (stream, continuation) = AsyncStream.makeStream(
        of: Element.self, bufferingPolicy: .bufferingNewest(1))
      if let subscription = observe(continuation) {
        continuation.onTermination = { _ in subscription.cancel() }
      } else {
        continuation.finish()
      }
      return stream
    }
    self.isDuplicate = isDuplicate
  }

  /// Starts observing.
  ///
  /// - Returns: An iterator that yields the current value first.
  public func makeAsyncIterator() -> Iterator {
    Iterator(base: makeStream().makeAsyncIterator(), isDuplicate: isDuplicate)
  }

  /// The iterator of a ``StateSequence``.
  public struct Iterator: AsyncIteratorProtocol {
    var base: AsyncStream<Element>.Iterator
    let isDuplicate: (@Sendable (Element, Element) -> Bool)?
    var last: Element?

    /// The next distinct value, or nil once the store is gone or the task is cancelled.
    ///
    /// - Returns: The value.
    public mutating func next() async -> Element? {
      await next(isolation: nil)
    }

    /// The next distinct value, or nil once the store is gone or the task is cancelled.
    ///
    /// - Parameter actor: The caller's isolation.
    /// - Returns: The value.
    public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
      while let value = await base.next(isolation: actor) {
        if let last, let isDuplicate, isDuplicate(last, value) { continue }
        last = value
        return value
      }
      return nil
    }
  }
}

/// An async sequence of the failures of a store's dispatches, from its creation on.
///
/// Each iterator receives every ``DispatchError`` published after it was made: failed
/// dispatches (also queued ones), errors reported by middleware, failing fallback actions. An
/// iterator that falls behind keeps the newest ``bufferLimit`` errors. The sequence ends when
/// the store is deinitialised.
public struct ErrorSequence: AsyncSequence, Sendable {
  /// The sequence never throws.
  public typealias Failure = Never
  /// The number of unread errors an iterator keeps; older ones are dropped.
  public static let bufferLimit = 256

  private let makeStream: @Sendable () -> AsyncStream<DispatchError>

  init(makeStream: @escaping @Sendable () -> AsyncStream<DispatchError>) {
    self.makeStream = makeStream
  }

  /// Starts listening.
  ///
  /// - Returns: An iterator of the errors published from now on.
  public func makeAsyncIterator() -> Iterator {
    Iterator(base: makeStream().makeAsyncIterator())
  }

  /// The iterator of an ``ErrorSequence``.
  public struct Iterator: AsyncIteratorProtocol {
    var base: AsyncStream<DispatchError>.Iterator

    /// The next error, or nil once the store is gone or the task is cancelled.
    ///
    /// - Returns: The error.
    public mutating func next() async -> DispatchError? {
      await next(isolation: nil)
    }

    /// The next error, or nil once the store is gone or the task is cancelled.
    ///
    /// - Parameter actor: The caller's isolation.
    /// - Returns: The error.
    public mutating func next(isolation actor: isolated (any Actor)?) async -> DispatchError? {
      await base.next(isolation: actor)
    }
  }
}
