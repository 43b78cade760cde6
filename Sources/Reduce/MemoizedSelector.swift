import Synchronization

/// A derived value of a state, memoized: computed again only when one of its inputs changed,
/// and shared by every reader (reselect's `createSelector`).
///
/// Inputs are cheap reads of the state (key paths, usually); `compute` derives the value from
/// them. However many observers subscribe to one selector, or views read it, the value is
/// computed once per change of its inputs.
///
/// ```swift
/// let openCount = MemoizedSelector(\TodoState.todos) { todos in
///   todos.filter { !$0.isDone }.count
/// }
/// let subscription = store.subscribe(to: openCount) { count in print(count, "open") }
/// let now = store.select(openCount)
/// ```
///
/// A selector may be shared by several stores and read from any thread. It keeps the inputs
/// and value of its last computation; two threads that read it with new inputs at once may both
/// compute.
public final class MemoizedSelector<State: Sendable, Value: Sendable>: Sendable {
  /// The value for a state, and the number of the computation that made it.
  let evaluate: @Sendable (State) -> (value: Value, generation: UInt64)
  private let tally: Tally

  /// Creates a selector from one input.
  ///
  /// - Parameters:
  ///   - input: Reads the input from a state; compared with `==` to the last one.
  ///   - compute: Derives the value from the input; runs only when the input changed.
  public init<Input: Equatable & Sendable>(
    _ input: @escaping @Sendable (State) -> Input,
    compute: @escaping @Sendable (Input) -> Value
  ) {
    let tally = Tally()
    let memo = Locked<Memo<Input, Value>?>(nil)
    self.tally = tally
    evaluate = { state in
      let input = input(state)
      // Decided outside the lock: `==` and `compute` are user code.
      let cached = memo.withLock { $0 }
      if let cached, cached.input == input { return (cached.value, cached.generation) }
      let value = compute(input)
      let generation = tally.computed()
      let replaced = memo.withLock { memo in
        defer { memo = Memo(input: input, value: value, generation: generation) }
        return memo
      }
      _ = consume replaced
      return (value, generation)
    }
  }

  /// Creates a selector from two inputs.
  ///
  /// - Parameters:
  ///   - first: Reads the first input from a state.
  ///   - second: Reads the second input from a state.
  ///   - compute: Derives the value from the inputs; runs only when one of them changed.
  public convenience init<First: Equatable & Sendable, Second: Equatable & Sendable>(
    _ first: @escaping @Sendable (State) -> First,
    _ second: @escaping @Sendable (State) -> Second,
    compute: @escaping @Sendable (First, Second) -> Value
  ) {
    self.init(
      { Pair(first: first($0), second: second($0)) }, compute: { compute($0.first, $0.second) })
  }

  /// Creates a selector from three inputs.
  ///
  /// - Parameters:
  ///   - first: Reads the first input from a state.
  ///   - second: Reads the second input from a state.
  ///   - third: Reads the third input from a state.
  ///   - compute: Derives the value from the inputs; runs only when one of them changed.
  public convenience init<
    First: Equatable & Sendable, Second: Equatable & Sendable, Third: Equatable & Sendable
  >(
    _ first: @escaping @Sendable (State) -> First,
    _ second: @escaping @Sendable (State) -> Second,
    _ third: @escaping @Sendable (State) -> Third,
    compute: @escaping @Sendable (First, Second, Third) -> Value
  ) {
    self.init(
      { Pair(first: Pair(first: first($0), second: second($0)), second: third($0)) },
      compute: { compute($0.first.first, $0.first.second, $0.second) })
  }

  /// The value for a state: the last one when the inputs are unchanged, else computed.
  ///
  /// - Parameter state: The state.
  /// - Returns: The derived value.
  public func callAsFunction(_ state: State) -> Value {
    evaluate(state).value
  }

  /// How many times the value was computed so far.
  public var computations: Int { Int(tally.count.load(ordering: .relaxed)) }
}

/// Counts a selector's computations; each computation gets the next number.
final class Tally: Sendable {
  let count = Atomic<UInt64>(0)

  func computed() -> UInt64 {
    count.add(1, ordering: .relaxed).newValue
  }
}

/// A selector's last inputs and value.
struct Memo<Input: Sendable, Value: Sendable>: Sendable {
  let input: Input
  let value: Value
  let generation: UInt64
}

/// Two inputs compared as one.
struct Pair<First: Equatable & Sendable, Second: Equatable & Sendable>: Equatable, Sendable {
  let first: First
  let second: Second
}
