import Reduce

/// The dependencies a body's ``ThunkContext`` holds, in a box of their own.
///
/// This module's code runs unspecialised, where a struct whose layout depends on a generic
/// parameter needs its metadata, looked up in the runtime's cache, to be made, copied or
/// destroyed. Boxed, the dependencies are one reference whatever their type, and a context is
/// laid out the same for every `State` and `Dependencies`.
final class DependencyBox<Value: Sendable>: Sendable {
  let value: Value

  init(_ value: Value) {
    self.value = value
  }
}

/// The box of a body that needs no dependencies, shared by all of them.
let noDependencies = DependencyBox(())

extension ThunkEnvironment {
  /// The middleware's dependencies as the type a body asks for, boxed for its context.
  ///
  /// - Throws: ``ThunkError/dependenciesMismatch(expected:found:)`` when they are not of it.
  func dependencies<Dependencies: Sendable>(as _: Dependencies.Type) throws(ThunkError)
    -> DependencyBox<Dependencies>
  {
    // The common case: the body asks for the middleware's own type, whose box is made once
    // (thunk-sync with `Int` dependencies: 6,980 -> 6,405 instructions per dispatch).
    if let box = dependencyBox as? DependencyBox<Dependencies> { return box }
    guard let value = dependencies as? Dependencies else {
      throw .dependenciesMismatch(
        expected: String(describing: Dependencies.self),
        found: String(describing: type(of: dependencies)))
    }
    return DependencyBox(value)
  }
}

/// A body's context as the work of a thunk makes it: ``ThunkContext``.
///
/// The work is made in functions generic over the context's whole type rather than over its
/// `State` and `Dependencies`: this module's code is compiled unspecialised, and there a type
/// built from generic parameters (`ThunkContext<State, Void>`) is looked up in the runtime's
/// cache at each use (to destroy it), while a generic parameter comes with the closure that
/// captured it.
protocol BodyContext: Sendable {
  associatedtype State: Sendable
  associatedtype Dependencies: Sendable

  /// A context with the dependencies given, holding a copy of the store's context.
  init(
    _ base: borrowing MiddlewareContext<State>,
    _ environment: ThunkEnvironment<MiddlewareContext<State>>,
    dependencies: DependencyBox<Dependencies>)
}

extension ThunkContext: BodyContext {}

extension Thunk.Work {
  /// The work of a synchronous body that needs no dependencies.
  static func sync<Context: BodyContext>(_ body: @escaping @Sendable (Context) throws -> Value)
    -> Self
  where Context.State == State, Context.Dependencies == Void {
    .sync { base, environment in
      try body(Context(base, environment, dependencies: noDependencies))
    }
  }

  /// The work of a synchronous body that uses the middleware's dependencies.
  static func sync<Context: BodyContext>(
    resolving body: @escaping @Sendable (Context) throws -> Value
  ) -> Self where Context.State == State {
    .sync { base, environment in
      let dependencies = try environment.dependencies(as: Context.Dependencies.self)
      return try body(Context(base, environment, dependencies: dependencies))
    }
  }

  /// The work of an async body that needs no dependencies.
  static func async<Context: BodyContext>(
    _ body: @escaping @Sendable (Context) async throws -> Value
  ) -> Self where Context.State == State, Context.Dependencies == Void {
    .async { base, environment in
      let context = Context(base, environment, dependencies: noDependencies)
      return { try await body(context) }
    }
  }

  /// The work of an async body that uses the middleware's dependencies.
  static func async<Context: BodyContext>(
    resolving body: @escaping @Sendable (Context) async throws -> Value
  ) -> Self where Context.State == State {
    .async { base, environment throws(ThunkError) in
      let dependencies = try environment.dependencies(as: Context.Dependencies.self)
      let context = Context(base, environment, dependencies: dependencies)
      return { try await body(context) }
    }
  }
}
