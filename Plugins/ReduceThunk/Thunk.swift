public import Reduce

/// An action that carries work instead of data: redux-thunk's action creator.
///
/// A thunk's body gets a ``ThunkContext``: the store's current `state`, `dispatch`, and the
/// dependencies given to the store's ``ThunkMiddleware``. The middleware runs the body and passes
/// the thunk no further, so thunks never reach the reducers.
///
/// - A **synchronous** body (one with no `await`) runs while the thunk is dispatched. What it
///   dispatches is queued and runs right after it, before the outer `dispatch` returns.
/// - An **async** body runs in a task of its own. Each of its dispatches enters the chain at the
///   top and has finished when `dispatch` returns, so `context.state` then includes it.
///
/// `store.dispatch(thunk)` starts a thunk and returns at once; `try await store.perform(thunk)`
/// waits for its value.
///
/// ```swift
/// typealias AppThunkContext = ThunkContext<AppState, AppDependencies>
///
/// let loadTodos = Thunk(id: LoadID.todos, cancelInFlight: true) { (context: AppThunkContext) in
///   context.dispatch(TodoAction.loadStarted)
///   do {
///     let todos = try await context.dependencies.api.fetchTodos()
///     context.dispatch(TodoAction.loaded(todos))
///     return todos.count
///   } catch {
///     context.dispatch(TodoAction.loadFailed("\(error)"))
///     throw error
///   }
/// }
/// ```
///
/// The dependency type is read from the type of the body's context. A body whose context is
/// `ThunkContext<State, Void>` (the type inferred when the closure is not annotated) needs no
/// dependencies and runs with any ``ThunkMiddleware``.
public struct Thunk<State: Sendable, Value: Sendable>: Action {
  /// What the middleware gives a thunk besides the store's context.
  typealias Environment = ThunkEnvironment<MiddlewareContext<State>>

  /// The work: given the store's context and the middleware's environment, makes the body's
  /// context (resolving the dependencies) and runs the body.
  ///
  /// A synchronous body is run at once; an async one is returned bound to its context, to be
  /// run in a task.
  enum Work: Sendable {
    case sync(@Sendable (MiddlewareContext<State>, Environment) throws -> Value)
    case async(
      @Sendable (MiddlewareContext<State>, Environment) throws
        -> @Sendable () async throws -> Value)
  }

  /// What the thunk does, shared by its copies.
  ///
  /// One reference, so that a thunk fits in an `any Action` without a box of its own and is
  /// copied by a retain.
  final class Definition: Sendable {
    let id: (any Hashable & Sendable)?
    let cancellationID: CancellationID?
    let cancelInFlight: Bool
    let work: Work
    /// Set on the copy `perform` dispatches: where the outcome goes.
    let ticket: PerformTicket<Value>?

    init(id: (any Hashable & Sendable)?, cancelInFlight: Bool, work: Work) {
      self.id = id
      self.cancellationID = id.map { CancellationID($0) }
      self.cancelInFlight = cancelInFlight
      self.work = work
      self.ticket = nil
    }

    /// A copy of a definition, with a ticket.
    init(_ definition: Definition, ticket: PerformTicket<Value>) {
      id = definition.id
      cancellationID = definition.cancellationID
      cancelInFlight = definition.cancelInFlight
      work = definition.work
      self.ticket = ticket
    }
  }

  let definition: Definition

  /// The cancellation id, when the thunk has one.
  public var id: (any Hashable & Sendable)? { definition.id }
  /// Whether starting this thunk cancels the thunks in flight with the same id.
  public var cancelInFlight: Bool { definition.cancelInFlight }
  /// Whether the body is async (runs in a task) rather than synchronous.
  public var isAsync: Bool {
    if case .async = definition.work { true } else { false }
  }

  var cancellationID: CancellationID? { definition.cancellationID }

  private init(definition: Definition) {
    self.definition = definition
  }

  /// A copy of the thunk that delivers its outcome to a `perform`.
  func tracked(by ticket: PerformTicket<Value>) -> Thunk {
    Thunk(definition: Definition(definition, ticket: ticket))
  }

  init(
    id: (any Hashable & Sendable)?, cancelInFlight: Bool, work: Work
  ) {
    definition = Definition(id: id, cancelInFlight: cancelInFlight, work: work)
  }

  /// Creates a thunk with a synchronous body that needs no dependencies.
  ///
  /// - Parameters:
  ///   - id: A cancellation id. Only async thunks are ever in flight, so it matters here only
  ///     with `cancelInFlight`.
  ///   - cancelInFlight: Whether to cancel the async thunks in flight with the same `id` first.
  ///   - body: The work; it runs while the thunk is dispatched.
  public init(
    id: (any Hashable & Sendable)? = nil, cancelInFlight: Bool = false,
    _ body: @escaping @Sendable (ThunkContext<State, Void>) throws -> Value
  ) {
    self.init(
      id: id, cancelInFlight: cancelInFlight,
      work: .sync { base, environment in
        try body(ThunkContext(base, environment, dependencies: noDependencies))
      })
  }

  /// Creates a thunk with an async body that needs no dependencies.
  ///
  /// - Parameters:
  ///   - id: A cancellation id, for ``CancelThunks`` and `cancelInFlight`.
  ///   - cancelInFlight: Whether to cancel the thunks in flight with the same `id` first.
  ///   - body: The work; it runs in a task of its own.
  public init(
    id: (any Hashable & Sendable)? = nil, cancelInFlight: Bool = false,
    _ body: @escaping @Sendable (ThunkContext<State, Void>) async throws -> Value
  ) {
    self.init(
      id: id, cancelInFlight: cancelInFlight,
      work: .async { base, environment in
        let context = ThunkContext(base, environment, dependencies: noDependencies)
        return { try await body(context) }
      })
  }

  /// Creates a thunk with a synchronous body that uses the store's dependencies.
  ///
  /// - Parameters:
  ///   - id: A cancellation id. Only async thunks are ever in flight, so it matters here only
  ///     with `cancelInFlight`.
  ///   - cancelInFlight: Whether to cancel the async thunks in flight with the same `id` first.
  ///   - body: The work; its context's type names the dependencies it needs.
  public init<Dependencies: Sendable>(
    id: (any Hashable & Sendable)? = nil, cancelInFlight: Bool = false,
    _ body: @escaping @Sendable (ThunkContext<State, Dependencies>) throws -> Value
  ) {
    self.init(
      id: id, cancelInFlight: cancelInFlight,
      work: .sync { base, environment in
        let dependencies = try environment.dependencies(as: Dependencies.self)
        return try body(ThunkContext(base, environment, dependencies: dependencies))
      })
  }

  /// Creates a thunk with an async body that uses the store's dependencies.
  ///
  /// - Parameters:
  ///   - id: A cancellation id, for ``CancelThunks`` and `cancelInFlight`.
  ///   - cancelInFlight: Whether to cancel the thunks in flight with the same `id` first.
  ///   - body: The work; its context's type names the dependencies it needs.
  public init<Dependencies: Sendable>(
    id: (any Hashable & Sendable)? = nil, cancelInFlight: Bool = false,
    _ body: @escaping @Sendable (ThunkContext<State, Dependencies>) async throws -> Value
  ) {
    self.init(
      id: id, cancelInFlight: cancelInFlight,
      work: .async { base, environment in
        let dependencies = try environment.dependencies(as: Dependencies.self)
        let context = ThunkContext(base, environment, dependencies: dependencies)
        return { try await body(context) }
      })
  }
}

extension Thunk: CustomStringConvertible {
  /// The thunk's value type, kind and id, for logs: `Thunk<Int>(async, id: todos)`.
  public var description: String {
    let kind = isAsync ? "async" : "sync"
    let idText = cancellationID.map { ", id: \($0)" } ?? ""
    let value = Value.self == Void.self ? "Void" : String(describing: Value.self)
    return "Thunk<\(value)>(\(kind)\(idText))"
  }
}
