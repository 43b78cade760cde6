import Reduce

/// A body's context as the middleware's run of a thunk makes it: ``ThunkContext``.
///
/// The work of a thunk is made in functions generic over the context's whole type rather than
/// over its `State` and `Dependencies`: this module's code is compiled unspecialised, and there a
/// type built from generic parameters (`ThunkContext<State, Void>`) is looked up in the runtime's
/// cache at each use, while a generic parameter comes with the closure that captured it.
protocol BodyContext: Sendable {
  associatedtype State: Sendable
  associatedtype Dependencies: Sendable

  /// A context with the dependencies given.
  init(
    _ base: MiddlewareContext<State>, _ environment: ThunkEnvironment, dependencies: Dependencies)

  /// A context with the middleware's dependencies, cast to `Dependencies`.
  init(_ base: MiddlewareContext<State>, resolving environment: ThunkEnvironment)
    throws(ThunkError)
}

extension ThunkContext: BodyContext {}

extension Thunk.Work {
  /// The work of a synchronous body that needs no dependencies.
  static func sync<Context: BodyContext>(_ body: @escaping @Sendable (Context) throws -> Value)
    -> Self
  where Context.State == State, Context.Dependencies == Void {
    .sync { base, environment in try body(Context(base, environment, dependencies: ())) }
  }

  /// The work of a synchronous body that uses the middleware's dependencies.
  static func sync<Context: BodyContext>(
    resolving body: @escaping @Sendable (Context) throws -> Value
  ) -> Self where Context.State == State {
    .sync { base, environment in try body(Context(base, resolving: environment)) }
  }

  /// The work of an async body that needs no dependencies.
  static func async<Context: BodyContext>(
    _ body: @escaping @Sendable (Context) async throws -> Value
  ) -> Self where Context.State == State, Context.Dependencies == Void {
    .async { base, environment in
      let context = Context(base, environment, dependencies: ())
      return { try await body(context) }
    }
  }

  /// The work of an async body that uses the middleware's dependencies.
  static func async<Context: BodyContext>(
    resolving body: @escaping @Sendable (Context) async throws -> Value
  ) -> Self where Context.State == State {
    .async { base, environment throws(ThunkError) in
      let context = try Context(base, resolving: environment)
      return { try await body(context) }
    }
  }
}
