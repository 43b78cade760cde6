import Reduce
import Testing

@Suite struct ErrorDescriptionTests {
  static let registrationErrors: [(RegistrationError, [String])] = [
    (.duplicateKey("k1"), ["k1"]),
    (.overlappingSubstate(key: "k2", existing: "k3"), ["k2", "k3"]),
    (.duplicateHandler(key: "k4", action: "Increment"), ["k4", "Increment"]),
    (.substateMismatch(key: "k5", expected: "Int", found: "String"), ["k5", "Int", "String"]),
    (.builtInAction(key: "k6", action: "Batch"), ["k6", "Batch"]),
    (.keyRequired(path: "\\S.p"), ["\\S.p"]),
    (.duplicateMiddleware("m1"), ["m1"]),
    (.middlewareRefused(name: "m2", reason: "nope"), ["m2", "nope"]),
    (.missingMutators(["a", "b"]), ["a", "b"]),
  ]

  @Test(
    "every RegistrationError description is non-empty and names what it is about",
    arguments: registrationErrors)
  func registrationErrorDescription(error: RegistrationError, names: [String]) {
    #expect(!error.description.isEmpty)
    for name in names {
      #expect(error.description.contains(name))
    }
  }

  /// Made for each test, not kept in a global: a `DispatchError` is a pointer to its payload's
  /// box with the case in the pointer's spare bits, which leak detection does not recognize, so
  /// it reported the errors a global kept alive at exit as leaks.
  static var dispatchErrors: [(DispatchError, String)] {
    [
      (.reducerFailed(key: "k1", action: Increment(), underlying: TestError()), "k1"),
      (.rejected(by: "m1", action: Increment(), underlying: TestError()), "m1"),
      (.middlewareFailed(name: "m2", action: Increment(), underlying: TestError()), "m2"),
    ]
  }

  @Test(
    "every DispatchError description is non-empty and names the key or middleware, the action and the cause",
    arguments: dispatchErrors)
  func dispatchErrorDescription(error: DispatchError, name: String) {
    #expect(!error.description.isEmpty)
    #expect(error.description.contains(name))
    #expect(error.description.contains("Increment"))
    #expect(error.description.contains("boom"))
  }

  @Test(
    "DispatchError exposes the action and the underlying error of every case",
    arguments: dispatchErrors.map(\.0))
  func dispatchErrorAccessors(error: DispatchError) {
    #expect(error.action is Increment)
    #expect(error.underlying as? TestError == TestError())
  }
}
