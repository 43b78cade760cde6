/// One step of an undo history: a tracked state to restore, and the step's label.
@usableFromInline
struct UndoStep<Snapshot: Sendable>: Sendable {
  /// The state to restore: before the step while it is in the past, after it in the future.
  @usableFromInline var snapshot: Snapshot
  /// The step's name, for "Undo Typing" menus.
  @usableFromInline var label: String?

  @inlinable
  init(snapshot: Snapshot, label: String?) {
    self.snapshot = snapshot
    self.label = label
  }
}

/// A `groupBy` key, compared by value.
///
/// The comparison runs the key type's `==`, which is user code: never under a lock.
///
/// A class, so that the values holding one (`Grouping`, the history) are copied by retaining it,
/// not through the runtime's generic copy of an existential.
@usableFromInline
final class GroupKey: Equatable, Sendable {
  @usableFromInline let base: any Hashable & Sendable

  @usableFromInline
  init(_ base: any Hashable & Sendable) {
    self.base = base
  }

  @usableFromInline
  static func == (lhs: GroupKey, rhs: GroupKey) -> Bool {
    AnyHashable(lhs.base) == AnyHashable(rhs.base)
  }
}

/// What recording an action needs to know about the open group, read before the action runs.
@usableFromInline
struct Grouping: Sendable {
  /// The `groupBy` key of the newest step, while later actions with that key may merge into it.
  @usableFromInline let openKey: GroupKey?
  /// How many explicit groups are open.
  @usableFromInline let depth: Int
  /// Whether the open explicit group already made the step that later changes merge into.
  @usableFromInline let groupHasStep: Bool
  /// The label of the open explicit group.
  @usableFromInline let groupLabel: String?

  @inlinable
  init(openKey: GroupKey?, depth: Int, groupHasStep: Bool, groupLabel: String?) {
    self.openKey = openKey
    self.depth = depth
    self.groupHasStep = groupHasStep
    self.groupLabel = groupLabel
  }
}

/// History taken out of an ``UndoHistory``, to be released after the lock is given up: the
/// tracked state's deinitialisers are user code.
@usableFromInline
struct Released<Snapshot: Sendable>: Sendable {
  @usableFromInline var oldest: UndoStep<Snapshot>?
  @usableFromInline var future: [UndoStep<Snapshot>]?
  @usableFromInline var past: RingBuffer<UndoStep<Snapshot>>?

  @inlinable
  init() {}
}

/// The undo history of one tracked value: a pure state machine, guarded by its owner's lock.
///
/// It is generic over the tracked value and `@inlinable`, like the recorder that drives it: an
/// app compiles both for its own state type, so recording a step copies the value itself, with
/// no existential box and no generic metadata looked up at run time.
///
/// `past` holds, for each step that can be undone, the state before it; `future` (newest last)
/// holds, for each step that can be redone, the state after it; `recorded` is the state of the
/// newest recorded step. The current state may differ from `recorded` by filtered-out changes:
/// undo and redo land on recorded states only. `past.count + future.count <= limit` always.
@usableFromInline
struct UndoHistory<Snapshot: Sendable>: Sendable {
  @usableFromInline var past: RingBuffer<UndoStep<Snapshot>>
  @usableFromInline var future: [UndoStep<Snapshot>] = []
  /// The tracked state of the newest recorded step; nil until the first action was seen.
  @usableFromInline var recorded: Snapshot?
  @usableFromInline var openKey: GroupKey?
  @usableFromInline var depth = 0
  @usableFromInline var groupLabel: String?
  @usableFromInline var groupHasStep = false
  /// The label of the newest past step and of the newest future step, kept up to date by every
  /// change so that `status` copies no step (a generic copy of the tracked state).
  @usableFromInline var undoLabel: String?
  @usableFromInline var redoLabel: String?

  /// Creates an empty history.
  ///
  /// - Parameter limit: The most steps kept, past and future together.
  @inlinable
  init(limit: Int) {
    past = RingBuffer(capacity: limit)
  }

  /// The counts and labels for the UI.
  @inlinable
  var status: UndoStatus {
    UndoStatus(
      pastCount: past.count, futureCount: future.count, undoLabel: undoLabel,
      redoLabel: redoLabel)
  }

  /// Whether `status` differs from `published`; cheaper than building the status to compare.
  @inlinable
  func status(differsFrom published: UndoStatus) -> Bool {
    past.count != published.pastCount || future.count != published.futureCount
      || !Self.same(undoLabel, published.undoLabel) || !Self.same(redoLabel, published.redoLabel)
  }

  /// Whether two labels are equal, without a call when both are nil (the common case).
  @inlinable
  static func same(_ lhs: String?, _ rhs: String?) -> Bool {
    switch (lhs, rhs) {
    case (nil, nil): true
    case (let lhs?, let rhs?): lhs == rhs
    default: false
    }
  }

  /// Reads the labels of the newest steps again, after a change of more than the newest step.
  @inlinable
  mutating func refreshLabels() {
    undoLabel = past.last?.label
    redoLabel = future.last?.label
  }

  /// The facts about the open group that decide whether a change merges into the newest step.
  @inlinable
  var grouping: Grouping {
    Grouping(openKey: openKey, depth: depth, groupHasStep: groupHasStep, groupLabel: groupLabel)
  }

  /// Whether a change merges into the newest step, and the label of the step it starts, when
  /// that can be decided without user code; nil when it takes comparing two `groupBy` keys or
  /// running the `label` option (``UndoRecorder/decide(_:key:action:)`` does that, outside the
  /// lock).
  ///
  /// - Parameters:
  ///   - key: The action's `groupBy` key.
  ///   - labelled: Whether the middleware has a `label` option.
  /// - Returns: The decision, or nil when it needs user code.
  @inlinable
  func decision(key: GroupKey?, labelled: Bool) -> (merging: Bool, label: String?)? {
    if depth > 0 {
      if groupHasStep { return (true, nil) }
      if let groupLabel { return (false, groupLabel) }
    } else if key != nil, openKey != nil {
      return nil
    }
    return labelled ? nil : (false, nil)
  }

  /// Takes the state first seen as the starting point of the history.
  @inlinable
  mutating func noteBaseline(_ state: Snapshot) {
    if recorded == nil { recorded = state }
  }

  /// Records a change made by an action that makes steps.
  ///
  /// The change makes a new step or extends the newest one; either way the redo future is
  /// cleared.
  ///
  /// - Parameters:
  ///   - after: The tracked state after the action.
  ///   - merging: Whether the change extends the newest step (same group).
  ///   - label: The new step's label (ignored when merging).
  ///   - key: The action's `groupBy` key.
  /// - Returns: The steps dropped: the redo future, and the oldest step when over the limit.
  @inlinable
  mutating func record(_ after: Snapshot, merging: Bool, label: String?, key: GroupKey?)
    -> Released<Snapshot>
  {
    var released = Released<Snapshot>()
    if !future.isEmpty {
      released.future = takeFuture()
      redoLabel = nil
    }
    if !merging, let base = recorded {
      released.oldest = past.append(UndoStep(snapshot: base, label: label))
      undoLabel = label
    }
    recorded = after
    if depth > 0 {
      groupHasStep = true
      openKey = nil
    } else {
      openKey = key
    }
    return released
  }

  /// Empties the redo future and returns what it held.
  @inlinable
  mutating func takeFuture() -> [UndoStep<Snapshot>] {
    var taken: [UndoStep<Snapshot>] = []
    swap(&taken, &future)
    return taken
  }

  /// Ends the current step: the next change starts a new one, even inside an open group.
  @inlinable
  mutating func seal() {
    openKey = nil
    groupHasStep = false
  }

  /// Opens an explicit group; nested groups fold into the outermost.
  ///
  /// The group's step is named by the first label given to the group (outermost first), even
  /// when a nested group gives it after the step started; without one, by the label of the
  /// action that started the step.
  @inlinable
  mutating func beginGroup(label: String?) {
    if depth == 0 {
      seal()
      groupLabel = label
    } else if groupLabel == nil, let label {
      groupLabel = label
      if groupHasStep {
        past.updateLast { $0.label = label }
        refreshLabels()
      }
    }
    depth += 1
  }

  /// Closes the innermost open group.
  ///
  /// - Returns: False when no group was open (the call changed nothing).
  @inlinable
  mutating func endGroup() -> Bool {
    guard depth > 0 else { return false }
    depth -= 1
    if depth == 0 {
      seal()
      groupLabel = nil
    }
    return true
  }

  /// Where a jump lands.
  ///
  /// - Parameter offset: Negative into the past, positive into the future.
  /// - Returns: The number of steps the jump moves, clamped to those that exist, and the
  ///   tracked state it restores; nil when it moves no step.
  @inlinable
  func destination(ofJump offset: Int) -> (steps: Int, snapshot: Snapshot)? {
    if offset < 0 {
      let steps = Int(min(UInt(past.count), offset.magnitude))
      guard steps > 0, let step = past.element(at: past.count - steps) else { return nil }
      return (steps, step.snapshot)
    }
    let steps = min(future.count, offset)
    guard steps > 0 else { return nil }
    return (steps, future[future.count - steps].snapshot)
  }

  /// Moves steps between past and future, as ``destination(ofJump:)`` planned.
  ///
  /// - Parameter offset: Negative into the past, positive into the future; clamped.
  @inlinable
  mutating func jump(_ offset: Int) {
    guard let steps = destination(ofJump: offset)?.steps else { return }
    defer { refreshLabels() }
    for _ in 0..<steps {
      guard let current = recorded else { return }
      if offset < 0 {
        guard let step = past.removeLast() else { return }
        future.append(UndoStep(snapshot: current, label: step.label))
        recorded = step.snapshot
      } else {
        guard let step = future.popLast() else { return }
        // Never drops: past and future together hold at most `limit` steps.
        _ = past.append(UndoStep(snapshot: current, label: step.label))
        recorded = step.snapshot
      }
    }
  }

  /// Forgets every step; the present becomes the starting point.
  ///
  /// - Parameter present: The tracked state now.
  /// - Returns: The steps forgotten.
  @inlinable
  mutating func clear(keeping present: Snapshot) -> Released<Snapshot> {
    var released = Released<Snapshot>()
    released.past = past.removeAll()
    released.future = takeFuture()
    refreshLabels()
    recorded = present
    seal()
    return released
  }
}
