/// One step of an undo history: a tracked state to restore, and the step's label.
///
/// Not generic: the state is boxed as `any Sendable`, so that recording a step asks for no
/// generic type's metadata at run time (see ``UndoLedger``). Only ``UndoRecorder`` puts values in
/// and takes them out, always of its tracked type.
struct UndoStep: Sendable {
  /// The state to restore: before the step while it is in the past, after it in the future.
  var snapshot: any Sendable
  /// The step's name, for "Undo Typing" menus.
  var label: String?
}

/// A `groupBy` key, compared by value.
///
/// The comparison runs the key type's `==`, which is user code: never under a lock.
final class GroupKey: Equatable, Sendable {
  let base: any Hashable & Sendable

  init(_ base: any Hashable & Sendable) {
    self.base = base
  }

  static func == (lhs: GroupKey, rhs: GroupKey) -> Bool {
    AnyHashable(lhs.base) == AnyHashable(rhs.base)
  }
}

/// How changes merge into the newest step outside an explicit group: by `groupBy` key, by time
/// (`groupWithin`), or both (then a change merges when both say so).
struct GroupingRule: Sendable {
  /// Whether the middleware has a `groupBy` option.
  let keyed: Bool
  /// The `groupWithin` option: the longest pause between two changes of one step.
  let window: Duration?
}

/// What recording an action needs to know about the open group, read under the lock to decide
/// outside it.
struct Grouping: Sendable {
  /// The `groupBy` key of the newest step, while later actions with that key may merge into it.
  let openKey: GroupKey?
  /// Whether the change comes within the window of the newest step's last change; nil without
  /// a `groupWithin` option.
  let windowOpen: Bool?
  let rule: GroupingRule
  /// How many explicit groups are open.
  let depth: Int
  /// Whether the open explicit group already made the step that later changes merge into.
  let groupHasStep: Bool
  /// The label of the open explicit group.
  let groupLabel: String?
}

/// History taken out of an ``UndoHistory``, to be released after the lock is given up: the
/// tracked state's deinitialisers are user code.
///
/// Made in one piece, not filled in field by field: assigning to a field that holds an
/// `any Sendable` first destroys its old value through the value witnesses. Every commit makes,
/// moves and destroys one, so it has as few fields as will do.
struct Released: Sendable {
  /// A step dropped: the oldest, to keep to the limit, or the newest recorded state as a step
  /// without a label, replaced by a change that merged into its step; never both at once.
  let step: UndoStep?
  /// The redo future, dropped by a new change or a clear.
  let future: [UndoStep]?
  /// The steps to undo, dropped by a clear.
  let past: RingBuffer<UndoStep>?

  init(step: UndoStep? = nil, future: [UndoStep]? = nil, past: RingBuffer<UndoStep>? = nil) {
    self.step = step
    self.future = future
    self.past = past
  }
}

/// The undo history of one tracked value: a pure state machine, guarded by its owner's lock.
///
/// `past` holds, for each step that can be undone, the state before it; `future` (newest last)
/// holds, for each step that can be redone, the state after it; `recorded` is the state of the
/// newest recorded step. The current state may differ from `recorded` by filtered-out changes:
/// undo and redo land on recorded states only. `past.count + future.count <= limit` always.
/// The states are boxed as in ``UndoStep``.
struct UndoHistory: Sendable {
  var past: RingBuffer<UndoStep>
  var future: [UndoStep] = []
  /// The tracked state of the newest recorded step; nil until the first action was seen.
  var recorded: (any Sendable)?
  var openKey: GroupKey?
  /// When the newest step last changed, while a change within the `groupWithin` window may
  /// merge into it; nil once the step is sealed.
  var lastChange: Duration?
  var depth = 0
  var groupLabel: String?
  var groupHasStep = false
  /// The label of the newest past step and of the newest future step, kept up to date by every
  /// change so that `status` copies no step.
  var undoLabel: String?
  var redoLabel: String?

  /// Creates an empty history.
  ///
  /// - Parameter limit: The most steps kept, past and future together.
  init(limit: Int) {
    past = RingBuffer(capacity: limit)
  }

  /// The counts and labels for the UI.
  var status: UndoStatus {
    UndoStatus(
      pastCount: past.count, futureCount: future.count, undoLabel: undoLabel,
      redoLabel: redoLabel)
  }

  /// Whether `status` differs from `published`; cheaper than building the status to compare.
  func status(differsFrom published: UndoStatus) -> Bool {
    past.count != published.pastCount || future.count != published.futureCount
      || !Self.same(undoLabel, published.undoLabel) || !Self.same(redoLabel, published.redoLabel)
  }

  /// Whether two labels are equal, without a call when both are nil (the common case).
  static func same(_ lhs: String?, _ rhs: String?) -> Bool {
    switch (lhs, rhs) {
    case (nil, nil): true
    case (let lhs?, let rhs?): lhs == rhs
    default: false
    }
  }

  /// Reads the labels of the newest steps again, after a change of more than the newest step.
  mutating func refreshLabels() {
    undoLabel = past.last?.label
    redoLabel = future.last?.label
  }

  /// The facts about the open group that decide whether a change merges into the newest step.
  ///
  /// - Parameters:
  ///   - time: When the change came, on the middleware's clock; nil without `groupWithin`.
  ///   - rule: How changes merge outside an explicit group.
  /// - Returns: The open group, the open key and whether the window is open.
  func grouping(at time: Duration?, rule: GroupingRule) -> Grouping {
    Grouping(
      openKey: openKey, windowOpen: windowOpen(at: time, rule: rule), rule: rule, depth: depth,
      groupHasStep: groupHasStep, groupLabel: groupLabel)
  }

  /// Whether a change at `time` comes within the window of the newest step's last change; nil
  /// without a window.
  func windowOpen(at time: Duration?, rule: GroupingRule) -> Bool? {
    guard let window = rule.window else { return nil }
    guard let time, let lastChange else { return false }
    return time - lastChange < window
  }

  /// Whether a change merges into the newest step, and the label of the step it starts, when
  /// that can be decided without user code; nil when it takes comparing two `groupBy` keys or
  /// running the `label` option (``UndoRecorder/decide(_:key:action:)`` does that, outside the
  /// lock).
  ///
  /// - Parameters:
  ///   - key: The action's `groupBy` key.
  ///   - time: When the change came; nil without `groupWithin`.
  ///   - rule: How changes merge outside an explicit group.
  ///   - labelled: Whether the middleware has a `label` option.
  /// - Returns: The decision, or nil when it needs user code.
  func decision(key: GroupKey?, at time: Duration?, rule: GroupingRule, labelled: Bool) -> (
    merging: Bool, label: String?
  )? {
    if depth > 0 {
      if groupHasStep { return (true, nil) }
      if let groupLabel { return (false, groupLabel) }
    } else if windowOpen(at: time, rule: rule) != false {
      if rule.keyed {
        if key != nil, openKey != nil { return nil }
      } else if rule.window != nil {
        return (true, nil)
      }
    }
    return labelled ? nil : (false, nil)
  }

  /// Takes the state first seen as the starting point of the history.
  mutating func noteBaseline(_ state: () -> any Sendable) {
    // Moved out and back: testing an `any Sendable?` for nil in place would copy the value.
    recorded = recorded.take() ?? state()
  }

  /// Records a change made by an action that makes steps.
  ///
  /// The change makes a new step or extends the newest one; either way the redo future is
  /// cleared.
  ///
  /// - Parameters:
  ///   - after: The tracked state after the action.
  ///   - before: The tracked state before it: the starting point when the history has none.
  ///   - merging: Whether the change extends the newest step (same group).
  ///   - label: The new step's label (ignored when merging).
  ///   - key: The action's `groupBy` key.
  ///   - time: When the change came; nil without `groupWithin`.
  /// - Returns: The steps dropped: the redo future, and the oldest step when over the limit.
  mutating func record(
    _ after: any Sendable, from before: () -> any Sendable, merging: Bool, label: String?,
    key: GroupKey?, at time: Duration?
  ) -> Released {
    var dropped: [UndoStep]?
    if !future.isEmpty {
      dropped = takeFuture()
      redoLabel = nil
    }
    // Moved out, not copied: a copy of an `any Sendable` runs its type's value witnesses.
    let replaced: UndoStep?
    if merging {
      if let previous = recorded.take() {
        replaced = UndoStep(snapshot: previous)
      } else {
        replaced = nil
      }
    } else {
      let base = recorded.take() ?? before()
      replaced = past.append(UndoStep(snapshot: consume base, label: label))
      // Most changes have no label to put in place of none, and then no retain and release.
      if label != nil || undoLabel != nil { undoLabel = label }
    }
    recorded = after
    if depth > 0 {
      groupHasStep = true
      openKey = nil
      lastChange = nil
    } else {
      openKey = key
      lastChange = time
    }
    return Released(step: replaced, future: dropped)
  }

  /// Empties the redo future and returns what it held.
  mutating func takeFuture() -> [UndoStep] {
    var taken: [UndoStep] = []
    swap(&taken, &future)
    return taken
  }

  /// Ends the current step: the next change starts a new one, even inside an open group.
  mutating func seal() {
    openKey = nil
    lastChange = nil
    groupHasStep = false
  }

  /// Opens an explicit group; nested groups fold into the outermost.
  ///
  /// The group's step is named by the first label given to the group (outermost first), even
  /// when a nested group gives it after the step started; without one, by the label of the
  /// action that started the step.
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
  func destination(ofJump offset: Int) -> (steps: Int, snapshot: any Sendable)? {
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
  mutating func clear(keeping present: any Sendable) -> Released {
    let released = Released(future: takeFuture(), past: past.removeAll())
    refreshLabels()
    recorded = present
    seal()
    return released
  }
}
