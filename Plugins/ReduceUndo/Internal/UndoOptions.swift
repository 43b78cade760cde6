import Reduce

/// The options of an undo middleware: user code, called outside every lock.
struct UndoOptions: Sendable {
  let limit: Int
  let filter: (@Sendable (any Action) -> Bool)?
  let groupBy: (@Sendable (any Action) -> (any Hashable & Sendable)?)?
  /// The longest pause between two changes that merge into one step; nil for no such grouping.
  let groupWithin: Duration?
  let label: (@Sendable (any Action) -> String?)?
  /// The time since the middleware was made, on its clock.
  let now: @Sendable () -> Duration

  init(
    limit: Int,
    filter: (@Sendable (any Action) -> Bool)?,
    groupBy: (@Sendable (any Action) -> (any Hashable & Sendable)?)?,
    groupWithin: Duration?,
    label: (@Sendable (any Action) -> String?)?,
    clock: some Clock<Duration>
  ) {
    self.limit = limit
    self.filter = filter
    self.groupBy = groupBy
    self.groupWithin = groupWithin
    self.label = label
    let origin = clock.now
    self.now = { origin.duration(to: clock.now) }
  }

  /// How changes merge into steps outside an explicit group.
  var rule: GroupingRule {
    GroupingRule(keyed: groupBy != nil, window: groupWithin)
  }
}
