// The only file of ReduceTesting that knows a test framework. Where Swift Testing is available,
// failures are recorded as Swift Testing issues and assertions take `sourceLocation:
// SourceLocation = #_sourceLocation`; elsewhere they take `fileID:filePath:line:column:` and the
// default reporter writes to standard error. XCTest users pass their own reporter.

#if canImport(Testing)
  public import Reduce
  public import Testing

  extension TestFailure {
    /// Records a failure as a Swift Testing issue at its location: the default reporter of a
    /// ``TestStore``.
    public static let recordIssue: @Sendable (TestFailure) -> Void = { failure in
      Issue.record(
        Comment(rawValue: failure.message),
        sourceLocation: SourceLocation(
          fileID: failure.location.fileID, filePath: failure.location.filePath,
          line: failure.location.line, column: failure.location.column))
    }
  }

  extension TestFailure.Location {
    /// Creates a location from Swift Testing's.
    ///
    /// - Parameter sourceLocation: The location.
    public init(_ sourceLocation: SourceLocation) {
      self.init(
        fileID: sourceLocation.fileID, filePath: sourceLocation.filePath,
        line: sourceLocation.line, column: sourceLocation.column)
    }
  }

  extension TestStore {
    /// Sends an action and asserts the exact state change it makes.
    ///
    /// The expectation starts from the state before the action; the closure changes it into
    /// the state the action should produce. Without a closure the action must leave the state
    /// unchanged. It fails when actions received earlier were not asserted, and when the
    /// dispatch fails (a middleware rejects the action, a reducer throws): to send an action
    /// that should fail, use ``send(_:failsWith:sourceLocation:assert:)``.
    ///
    /// - Parameters:
    ///   - action: The action to dispatch.
    ///   - sourceLocation: Where failures are reported; the call's location by default.
    ///   - expectedChange: Changes the state before the action into the expected state after
    ///     it (the action's own reduction, not that of actions it caused: those are received).
    /// - Returns: The result of the dispatch.
    @discardableResult
    public func send(
      _ action: some Action,
      sourceLocation: SourceLocation = #_sourceLocation,
      assert expectedChange: ((inout State) throws -> Void)? = nil
    ) -> Result<State, DispatchError> {
      send(action, at: TestFailure.Location(sourceLocation), assert: expectedChange)
    }

    /// Sends an action that should fail, and returns the error it fails with.
    ///
    /// It fails when the dispatch succeeds, or fails with a cause of another type. `E` is the
    /// type the reducer or middleware threw, as in `DispatchError.underlying(as:)`; pass
    /// `DispatchError.self` to accept any failure and get the whole error (which middleware
    /// rejected the action, which mutator threw). The state is checked as by
    /// ``send(_:sourceLocation:assert:)``: a failed dispatch usually changes nothing, so the
    /// closure is usually left out.
    ///
    /// ```swift
    /// let refusal = store.send(LedgerAction.withdrew("ada", 500), failsWith: LedgerError.self)
    /// #expect(refusal == .insufficientFunds)
    /// ```
    ///
    /// - Parameters:
    ///   - action: The action to dispatch.
    ///   - type: The error type the dispatch should fail with, such as `LedgerError.self`.
    ///   - sourceLocation: Where failures are reported; the call's location by default.
    ///   - expectedChange: Changes the state before the action into the expected state after
    ///     it.
    /// - Returns: The error, or nil when the dispatch did not fail with an `E` (a failure is
    ///   then reported).
    @discardableResult
    public func send<E: Error>(
      _ action: some Action,
      failsWith type: E.Type,
      sourceLocation: SourceLocation = #_sourceLocation,
      assert expectedChange: ((inout State) throws -> Void)? = nil
    ) -> E? {
      send(
        action, failsWith: type, at: TestFailure.Location(sourceLocation),
        assert: expectedChange)
    }

    /// Asserts that the oldest unasserted received action has a type, and the exact state change
    /// it made.
    ///
    /// When no action is waiting, it waits up to `timeout` for one (an async thunk's); actions a
    /// `ManualClock` delivered are there when its `advance` returns.
    ///
    /// - Parameters:
    ///   - type: The expected action type.
    ///   - timeout: How long to wait for an action when none is waiting.
    ///   - sourceLocation: Where failures are reported; the call's location by default.
    ///   - expectedChange: Changes the state before the received action into the expected state
    ///     after it.
    public func receive<A: Action>(
      _ type: A.Type,
      timeout: Duration = .seconds(5),
      sourceLocation: SourceLocation = #_sourceLocation,
      assert expectedChange: ((inout State) throws -> Void)? = nil
    ) async {
      await receive(
        matching: { $0 is A }, expecting: "an action of type \(type)", timeout: timeout,
        at: TestFailure.Location(sourceLocation), assert: expectedChange)
    }

    /// Asserts that the oldest unasserted received action satisfies a predicate, and the exact
    /// state change it made.
    ///
    /// - Parameters:
    ///   - predicate: Whether the received action is the expected one.
    ///   - timeout: How long to wait for an action when none is waiting.
    ///   - sourceLocation: Where failures are reported; the call's location by default.
    ///   - expectedChange: Changes the state before the received action into the expected state
    ///     after it.
    public func receive(
      where predicate: (any Action) -> Bool,
      timeout: Duration = .seconds(5),
      sourceLocation: SourceLocation = #_sourceLocation,
      assert expectedChange: ((inout State) throws -> Void)? = nil
    ) async {
      await receive(
        matching: predicate, expecting: "an action matching the predicate", timeout: timeout,
        at: TestFailure.Location(sourceLocation), assert: expectedChange)
    }

    /// Asserts that the oldest unasserted received action equals `action`, and the exact state
    /// change it made.
    ///
    /// - Parameters:
    ///   - action: The expected action.
    ///   - timeout: How long to wait for an action when none is waiting.
    ///   - sourceLocation: Where failures are reported; the call's location by default.
    ///   - expectedChange: Changes the state before the received action into the expected state
    ///     after it.
    public func receive<A: Action & Equatable>(
      _ action: A,
      timeout: Duration = .seconds(5),
      sourceLocation: SourceLocation = #_sourceLocation,
      assert expectedChange: ((inout State) throws -> Void)? = nil
    ) async {
      await receive(
        matching: { ($0 as? A) == action }, expecting: "the action \(action)", timeout: timeout,
        at: TestFailure.Location(sourceLocation), assert: expectedChange)
    }

    /// Fails if any received action was not asserted.
    ///
    /// - Parameter sourceLocation: Where the failure is reported; the call's location by
    ///   default.
    public func finish(sourceLocation: SourceLocation = #_sourceLocation) {
      finish(at: TestFailure.Location(sourceLocation))
    }
  }
#else
  public import Reduce
  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #elseif canImport(Darwin)
    import Darwin
  #endif

  extension TestFailure {
    /// Writes a failure to standard error: the default reporter where Swift Testing is missing.
    ///
    /// Pass a reporter that fails the test instead.
    public static let recordIssue: @Sendable (TestFailure) -> Void = { failure in
      let line = "error: \(failure)\n"
      _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    }
  }

  extension TestStore {
    /// Sends an action and asserts the exact state change it makes.
    ///
    /// - Parameters:
    ///   - action: The action to dispatch.
    ///   - fileID: The caller's file, for failures.
    ///   - filePath: The caller's file path, for failures.
    ///   - line: The caller's line, for failures.
    ///   - column: The caller's column, for failures.
    ///   - expectedChange: Changes the state before the action into the expected state after it.
    /// - Returns: The result of the dispatch.
    @discardableResult
    public func send(
      _ action: some Action,
      fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
      column: Int = #column,
      assert expectedChange: ((inout State) throws -> Void)? = nil
    ) -> Result<State, DispatchError> {
      send(
        action,
        at: TestFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column),
        assert: expectedChange)
    }

    /// Sends an action that should fail, and returns the error it fails with.
    ///
    /// - Parameters:
    ///   - action: The action to dispatch.
    ///   - type: The error type the dispatch should fail with; `DispatchError.self` for any.
    ///   - fileID: The caller's file, for failures.
    ///   - filePath: The caller's file path, for failures.
    ///   - line: The caller's line, for failures.
    ///   - column: The caller's column, for failures.
    ///   - expectedChange: Changes the state before the action into the expected state after it.
    /// - Returns: The error, or nil when the dispatch did not fail with an `E`.
    @discardableResult
    public func send<E: Error>(
      _ action: some Action,
      failsWith type: E.Type,
      fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
      column: Int = #column,
      assert expectedChange: ((inout State) throws -> Void)? = nil
    ) -> E? {
      send(
        action, failsWith: type,
        at: TestFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column),
        assert: expectedChange)
    }

    /// Asserts that the oldest unasserted received action has a type, and its state change.
    ///
    /// - Parameters:
    ///   - type: The expected action type.
    ///   - timeout: How long to wait for an action when none is waiting.
    ///   - fileID: The caller's file, for failures.
    ///   - filePath: The caller's file path, for failures.
    ///   - line: The caller's line, for failures.
    ///   - column: The caller's column, for failures.
    ///   - expectedChange: Changes the state before the received action into the expected
    ///     state after it.
    public func receive<A: Action>(
      _ type: A.Type,
      timeout: Duration = .seconds(5),
      fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
      column: Int = #column,
      assert expectedChange: ((inout State) throws -> Void)? = nil
    ) async {
      await receive(
        matching: { $0 is A }, expecting: "an action of type \(type)", timeout: timeout,
        at: TestFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column),
        assert: expectedChange)
    }

    /// Asserts that the oldest unasserted received action satisfies a predicate, and its state
    /// change.
    ///
    /// - Parameters:
    ///   - predicate: Whether the received action is the expected one.
    ///   - timeout: How long to wait for an action when none is waiting.
    ///   - fileID: The caller's file, for failures.
    ///   - filePath: The caller's file path, for failures.
    ///   - line: The caller's line, for failures.
    ///   - column: The caller's column, for failures.
    ///   - expectedChange: Changes the state before the received action into the expected
    ///     state after it.
    public func receive(
      where predicate: (any Action) -> Bool,
      timeout: Duration = .seconds(5),
      fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
      column: Int = #column,
      assert expectedChange: ((inout State) throws -> Void)? = nil
    ) async {
      await receive(
        matching: predicate, expecting: "an action matching the predicate", timeout: timeout,
        at: TestFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column),
        assert: expectedChange)
    }

    /// Asserts that the oldest unasserted received action equals `action`, and the exact state
    /// change it made.
    ///
    /// - Parameters:
    ///   - action: The expected action.
    ///   - timeout: How long to wait for an action when none is waiting.
    ///   - fileID: The caller's file, for failures.
    ///   - filePath: The caller's file path, for failures.
    ///   - line: The caller's line, for failures.
    ///   - column: The caller's column, for failures.
    ///   - expectedChange: Changes the state before the received action into the expected state
    ///     after it.
    public func receive<A: Action & Equatable>(
      _ action: A,
      timeout: Duration = .seconds(5),
      fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
      column: Int = #column,
      assert expectedChange: ((inout State) throws -> Void)? = nil
    ) async {
      await receive(
        matching: { ($0 as? A) == action }, expecting: "the action \(action)", timeout: timeout,
        at: TestFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column),
        assert: expectedChange)
    }

    /// Fails if any received action was not asserted.
    ///
    /// - Parameters:
    ///   - fileID: The caller's file, for failures.
    ///   - filePath: The caller's file path, for failures.
    ///   - line: The caller's line, for failures.
    ///   - column: The caller's column, for failures.
    public func finish(
      fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
      column: Int = #column
    ) {
      finish(
        at: TestFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column))
    }
  }
#endif
