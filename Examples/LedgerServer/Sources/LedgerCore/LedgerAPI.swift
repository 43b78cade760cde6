import Foundation
public import Hummingbird

/// The ledger's JSON HTTP API, as a Hummingbird router over a ``LedgerBook``.
///
/// | Request | Body | Answer |
/// | --- | --- | --- |
/// | `POST /accounts/{id}/deposit` | `{"amount":N}` | 200 ``AccountBalance`` |
/// | `POST /accounts/{id}/withdraw` | `{"amount":N}` | 200 ``AccountBalance`` |
/// | `POST /transfers` | `{"from":A,"to":B,"amount":N,"reference":R}` (`reference` optional) | 200 ``TransferReceipt`` |
/// | `GET /accounts/{id}` | | 200 ``AccountBalance`` |
/// | `GET /accounts/{id}/history` | | 200 ``AccountHistory`` |
/// | `GET /health` | | 200 `{"status":"ok"}` |
///
/// A change takes its principal from the `X-Principal` header (``PrincipalMiddleware``). A
/// refusal answers with a ``LedgerError`` as its JSON body and its status: 400 for a body that
/// is not the JSON asked for (nothing is changed), 401 with no principal, 404 for an unknown
/// account, 409 for an overdraft, 503 when the journal could not record the change.
public enum LedgerAPI {
  /// The largest request body accepted, in bytes.
  public static let maximumBodySize = 16 * 1024

  /// Builds the router.
  ///
  /// - Parameter book: The ledger the API changes and reads.
  /// - Returns: A router whose middleware reads the principal header.
  public static func router(book: LedgerBook) -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: PrincipalMiddleware())
    router.get("/health") { _, _ in
      json(["status": "ok"])
    }
    router.post("/accounts/:id/deposit") { request, context in
      await answer {
        let id = try context.parameters.require("id")
        let body = try await decode(AmountBody.self, from: request)
        return json(try await book.deposit(body.amount, into: id))
      }
    }
    router.post("/accounts/:id/withdraw") { request, context in
      await answer {
        let id = try context.parameters.require("id")
        let body = try await decode(AmountBody.self, from: request)
        return json(try await book.withdraw(body.amount, from: id))
      }
    }
    router.post("/transfers") { request, _ in
      await answer {
        let body = try await decode(TransferBody.self, from: request)
        return json(
          try await book.transfer(
            body.amount, from: body.from, to: body.to, reference: body.reference))
      }
    }
    router.get("/accounts/:id") { _, context in
      await answer {
        json(try book.balance(of: try context.parameters.require("id")))
      }
    }
    router.get("/accounts/:id/history") { _, context in
      await answer {
        json(try book.history(of: try context.parameters.require("id")))
      }
    }
    return router
  }

  /// The body of a deposit or a withdrawal.
  struct AmountBody: Decodable {
    var amount: Int
  }

  /// The body of a transfer.
  struct TransferBody: Decodable {
    var from: String
    var to: String
    var amount: Int
    var reference: String?
  }

  /// Runs a handler, and answers with its error's JSON body and status when it throws one.
  static func answer(_ handler: () async throws -> Response) async -> Response {
    do {
      return try await handler()
    } catch let error as LedgerError {
      return json(error, status: .init(code: error.status))
    } catch {
      // The router's parameters are there for every route that names them: nothing else
      // throws here.
      let failure = LedgerError.badRequest(reason: "\(error)")
      return json(failure, status: .init(code: failure.status))
    }
  }

  /// Reads a request's JSON body.
  static func decode<Body: Decodable>(_ type: Body.Type, from request: Request)
    async throws(LedgerError) -> Body
  {
    let buffer: ByteBuffer
    do {
      buffer = try await request.body.collect(upTo: maximumBodySize)
    } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
      throw .payloadTooLarge(limit: maximumBodySize)
    } catch {
      throw .badRequest(reason: "the body could not be read: \(error)")
    }
    do {
      return try JSONDecoder().decode(Body.self, from: Data(buffer.readableBytesView))
    } catch let error as DecodingError {
      throw .badRequest(reason: describe(error))
    } catch {
      throw .badRequest(reason: "\(error)")
    }
  }

  /// A short sentence for a decoding error: what is missing or mistyped, and where.
  static func describe(_ error: DecodingError) -> String {
    func path(_ context: DecodingError.Context) -> String {
      let keys = context.codingPath.map(\.stringValue).joined(separator: ".")
      return keys.isEmpty ? "" : " at \(keys)"
    }
    switch error {
    case .keyNotFound(let key, _): return "the member \"\(key.stringValue)\" is missing"
    case .typeMismatch(let type, let context):
      return "expected \(type)\(path(context))"
    case .valueNotFound(let type, let context):
      return "expected \(type)\(path(context)), found null"
    case .dataCorrupted(let context):
      return context.codingPath.isEmpty ? "not JSON" : "a bad value\(path(context))"
    @unknown default:
      return "\(error)"
    }
  }

  /// A JSON response.
  static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    // The API's own values always encode; the fallback keeps a failure visible all the same.
    let data =
      (try? encoder.encode(value)) ?? Data(#"{"error":"internal","message":"encoding"}"#.utf8)
    return Response(
      status: status, headers: [.contentType: "application/json"],
      body: .init(byteBuffer: ByteBuffer(bytes: data)))
  }
}
