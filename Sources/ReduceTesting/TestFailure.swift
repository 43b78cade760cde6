/// A failed expectation of a ``TestStore``: what went wrong, and where the test asserted it.
///
/// A test store hands each failure to its failure reporter. The default reporter records a Swift
/// Testing issue at ``location``; an XCTest suite passes a reporter of its own:
///
/// ```swift
/// let store = try TestStore(
///   initialState: Counter(), mutators: [counter],
///   reportFailure: { failure in XCTFail(failure.description) })
/// ```
public struct TestFailure: Error, Sendable, CustomStringConvertible {
  /// A place in a test's source, as the compiler's `#fileID`, `#filePath`, `#line` and
  /// `#column` give it.
  public struct Location: Hashable, Sendable, CustomStringConvertible {
    /// The file's module-qualified name, such as `MyAppTests/CounterTests.swift`.
    public var fileID: String
    /// The file's full path.
    public var filePath: String
    /// The line, counting from 1.
    public var line: Int
    /// The column, counting from 1.
    public var column: Int

    /// Creates a source location.
    ///
    /// - Parameters:
    ///   - fileID: The file's module-qualified name.
    ///   - filePath: The file's full path.
    ///   - line: The line.
    ///   - column: The column.
    public init(fileID: String, filePath: String, line: Int, column: Int) {
      self.fileID = fileID
      self.filePath = filePath
      self.line = line
      self.column = column
    }

    /// The location as `fileID:line:column`.
    public var description: String {
      "\(fileID):\(line):\(column)"
    }
  }

  /// What went wrong, with a diff of the state where one applies.
  public var message: String
  /// Where the failing assertion is in the test.
  public var location: Location

  /// Creates a failure.
  ///
  /// - Parameters:
  ///   - message: What went wrong.
  ///   - location: Where the failing assertion is.
  public init(message: String, location: Location) {
    self.message = message
    self.location = location
  }

  /// The location, then the message: `CounterTests.swift:12:5: State changed ...`.
  public var description: String {
    "\(location): \(message)"
  }
}
