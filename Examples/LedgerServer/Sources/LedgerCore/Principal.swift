/// Who a request acts for: the requester's name, taken from the `X-Principal` header and
/// carried through a task-local value to the ``LedgerBook``, which records it in each action.
///
/// ```swift
/// try await Principal.$current.withValue("teller-1") {
///   try await book.deposit(80, into: "ada")  // recorded with "by":"teller-1"
/// }
/// ```
///
/// The book reads it in the request's own task, when it makes the action, and the action
/// carries it from there: a store that is busy carries out a queued action on the thread of
/// the dispatcher that holds its turn, whose task-local values are not the requester's.
///
/// This example trusts the header. A real server sets the principal from what authenticated
/// the request (a verified token, a client certificate), in the same place.
public enum Principal {
  /// The principal of the current task, if the request had one.
  @TaskLocal public static var current: String?

  /// The longest principal accepted, in characters.
  public static let maximumLength = 64

  /// Checks that `name` can be a principal: 1 to 64 characters, none of them a control
  /// character.
  ///
  /// - Parameter name: The principal, as the request gave it.
  /// - Returns: `name`.
  /// - Throws: ``LedgerError/invalidPrincipal(_:)`` when it cannot.
  public static func validated(_ name: String) throws(LedgerError) -> String {
    guard !name.isEmpty, name.count <= maximumLength,
      !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    else { throw .invalidPrincipal(name) }
    return name
  }
}
