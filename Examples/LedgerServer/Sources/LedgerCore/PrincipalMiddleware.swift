public import Hummingbird

/// Takes a request's principal from its `X-Principal` header and runs the rest of the request
/// with it as ``Principal/current``.
///
/// A request without the header runs with no principal (reads need none; a change is refused
/// with 401); one with a header that is no principal is answered 400.
public struct PrincipalMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The header's name, as it is compared: lowercased.
  public static var headerName: String { "x-principal" }

  /// Creates the middleware.
  public init() {}

  /// Runs the request with its principal.
  ///
  /// - Parameters:
  ///   - input: The request.
  ///   - context: The request's context.
  ///   - next: The rest of the middleware and the route.
  /// - Returns: The response.
  /// - Throws: What `next` throws.
  public func handle(
    _ input: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard let field = input.headers.first(where: { $0.name.canonicalName == Self.headerName })
    else {
      return try await next(input, context)
    }
    let principal: String
    do {
      principal = try Principal.validated(field.value)
    } catch {
      return LedgerAPI.json(error, status: .init(code: error.status))
    }
    return try await Principal.$current.withValue(principal) {
      try await next(input, context)
    }
  }
}
