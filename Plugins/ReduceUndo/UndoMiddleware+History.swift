// Exporting and importing an undo history, so that an app can save it with its document and
// reopen with its undo steps (with ReducePersistence: a `PersistenceAttachment`).

/// An undo history in a form that can be saved and restored: the steps to undo, the steps to
/// redo, and the tracked value they lead from.
///
/// Made by ``UndoMiddleware/exportHistory(of:)`` and given back to
/// ``UndoMiddleware/importHistory(_:)``. It is `Codable` when the tracked value is.
public struct UndoHistoryRecord<Value: Codable & Equatable & Sendable>: Codable, Equatable,
  Sendable
{
  /// One step: the tracked value it restores, and its label.
  public struct Step: Codable, Equatable, Sendable {
    /// The tracked value that undoing (or redoing) this step restores.
    public var value: Value
    /// The step's label, for "Undo Typing" menus; nil when it has none.
    public var label: String?

    /// Creates a step.
    ///
    /// - Parameters:
    ///   - value: The tracked value the step restores.
    ///   - label: The step's label.
    public init(value: Value, label: String? = nil) {
      self.value = value
      self.label = label
    }
  }

  /// The steps undo restores, oldest first: the next undo restores the last one.
  public var past: [Step]
  /// The steps redo restores, in redo order: the next redo restores the first one.
  public var future: [Step]
  /// The tracked value the history leads from: the value in the store when it was exported, or
  /// nil when the middleware had seen no change yet (the history is then empty).
  public var present: Value?

  /// Creates a history.
  ///
  /// - Parameters:
  ///   - past: The steps undo restores, oldest first.
  ///   - future: The steps redo restores, in redo order.
  ///   - present: The tracked value the history leads from; required when there are steps.
  public init(past: [Step] = [], future: [Step] = [], present: Value?) {
    self.past = past
    self.future = future
    self.present = present
  }
}

/// Why an ``UndoMiddleware`` could not export or import a history.
public enum UndoHistoryError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The middleware does not track values of the type asked for (`requested`: its name).
  case valueTypeMismatch(requested: String)
  /// The history has steps but no present value to lead from.
  case missingPresent
  /// The middleware has recorded changes since the store was created, and the history's present
  /// value is not the tracked value now: import a history before dispatching.
  case presentMismatch

  /// A sentence that says what is wrong and how to fix it.
  public var description: String {
    switch self {
    case .valueTypeMismatch(let requested):
      "This UndoMiddleware does not track values of type \(requested); ask for the type of its scope."
    case .missingPresent:
      "The undo history has steps but no present value; export it with exportHistory(of:)."
    case .presentMismatch:
      "The undo history leads from another value than the one tracked now; import it before dispatching."
    }
  }
}

extension UndoMiddleware {
  /// The history as it is now, for saving.
  ///
  /// A group in progress is exported as the steps recorded so far; the group itself is not.
  ///
  /// - Parameter type: The tracked value's type: the type of the middleware's scope, or `State`
  ///   for a middleware that tracks the whole state.
  /// - Returns: The steps to undo and redo, with their labels, and the present value.
  /// - Throws: ``UndoHistoryError/valueTypeMismatch(requested:)`` when the middleware tracks
  ///   another type.
  /// - Complexity: O(*n*), where *n* is the number of steps.
  public func exportHistory<Value: Codable & Equatable & Sendable>(of type: Value.Type)
    throws(UndoHistoryError) -> UndoHistoryRecord<Value>
  {
    guard engine is UndoRecorder<State, Value> else {
      throw .valueTypeMismatch(requested: String(describing: Value.self))
    }
    // A copy, converted after the lock; the ledger holds only values of the recorder's type.
    let history = ledger.book.withLock { $0.history }
    let past = (0..<history.past.count).compactMap { history.past.element(at: $0) }
    return UndoHistoryRecord(
      past: past.compactMap(Self.recordStep),
      future: history.future.reversed().compactMap(Self.recordStep),
      present: history.recorded as? Value)
  }

  /// A step of the history as a step of a record; nil when it holds another type than `Value`.
  private static func recordStep<Value>(_ step: UndoStep) -> UndoHistoryRecord<Value>.Step? {
    guard let value = step.snapshot as? Value else { return nil }
    return .init(value: value, label: step.label)
  }

  /// Replaces the history with a saved one: after it, undo restores the saved steps.
  ///
  /// Import it right after creating the store from the state the history was saved with, before
  /// dispatching: the store's tracked value should be the history's `present`. When the
  /// middleware has already recorded a change, a history whose `present` is not the value it
  /// recorded last is refused. A history longer than the middleware's `limit` keeps the newest
  /// steps to undo first, then the nearest steps to redo. An open group is closed.
  ///
  /// - Parameter record: The history, as ``exportHistory(of:)`` made it.
  /// - Throws: ``UndoHistoryError/valueTypeMismatch(requested:)`` when the middleware tracks
  ///   another type, ``UndoHistoryError/missingPresent`` for steps without a present value,
  ///   ``UndoHistoryError/presentMismatch`` when the store has moved on from it.
  /// - Complexity: O(*n*), where *n* is the number of steps.
  public func importHistory<Value: Codable & Equatable & Sendable>(
    _ record: UndoHistoryRecord<Value>
  ) throws(UndoHistoryError) {
    guard engine is UndoRecorder<State, Value> else {
      throw .valueTypeMismatch(requested: String(describing: Value.self))
    }
    guard let present = record.present else {
      guard record.past.isEmpty, record.future.isEmpty else { throw .missingPresent }
      return
    }
    // Compared outside the lock: `==` is user code.
    let recorded = ledger.book.withLock { $0.history.recorded }
    if let recorded, !ledger.isEqual(recorded, present) { throw .presentMismatch }
    let future = Array(record.future.prefix(limit))
    let past = record.past.suffix(limit - future.count)
    var history = UndoHistory(limit: limit)
    for step in past { _ = history.past.append(UndoStep(snapshot: step.value, label: step.label)) }
    history.future = future.reversed().map { UndoStep(snapshot: $0.value, label: $0.label) }
    history.recorded = present
    history.refreshLabels()
    if ledger.replaceHistory(with: history) { statusDidChange() }
  }
}

// Saving the history beside the document, in one line with ReducePersistence:
//
//   PersistenceAttachment(
//     key: "undo", save: { undo.historyToSave(of: Document.self) }, restore: undo.restoreHistory)
extension UndoMiddleware {
  /// The history as it is now, for saving; nil when the middleware tracks another type.
  ///
  /// ``exportHistory(of:)`` without the error, in the shape a `PersistenceAttachment`'s `save`
  /// takes.
  ///
  /// - Parameter type: The tracked value's type.
  /// - Returns: The steps to undo and redo, with their labels, and the present value.
  public func historyToSave<Value: Codable & Equatable & Sendable>(of type: Value.Type)
    -> UndoHistoryRecord<Value>?
  {
    try? exportHistory(of: type)
  }

  /// Imports a saved history if it leads from `value`, the tracked value restored with it.
  ///
  /// ``importHistory(_:)`` in the shape a `PersistenceAttachment`'s `restore` takes: the
  /// attachment hands over the value restored from the same file. An empty history imports
  /// nothing.
  ///
  /// - Parameters:
  ///   - record: The history, as ``historyToSave(of:)`` made it.
  ///   - value: The tracked value restored with it; nil when none was.
  /// - Throws: ``UndoHistoryError/presentMismatch`` when the history leads from another value
  ///   (the persistence then keeps the error in its `attachmentErrors`, and restores the
  ///   document without its steps), and what ``importHistory(_:)`` throws.
  public func restoreHistory<Value: Codable & Equatable & Sendable>(
    _ record: UndoHistoryRecord<Value>, leadingFrom value: Value?
  ) throws(UndoHistoryError) {
    guard record.present != nil || !record.past.isEmpty || !record.future.isEmpty else { return }
    guard let value, record.present == value else { throw .presentMismatch }
    try importHistory(record)
  }
}
