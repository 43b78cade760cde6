/// One benchmark: the same work done through a store and by a bare loop.
struct Workload {
  /// The workload's name, as `--filter` matches it.
  let name: String
  /// The number of dispatches of a full run.
  let dispatches: Int
  /// What it is for, printed in the table.
  let target: Target?
  /// Who dispatches at once, for a workload of many threads or tasks ("8 threads"): its table
  /// adds a line with its throughput in all, against `counter`'s on one thread.
  let concurrency: String?
  /// Builds a store and returns the timed part: `count` dispatches.
  let store: (_ count: Int) throws -> () -> Void
  /// Builds a plain value and returns the timed part: the same reducers, called `count` times.
  let baseline: (_ count: Int) -> () -> Void
  /// For growing workloads: the store's and the baseline's time per segment of the run.
  let segments: ((_ count: Int) throws -> (store: [Double], baseline: [Double]))?
  /// For durable workloads: the entries and flushes of each run, which its `store` closure adds.
  let flushes: FlushTally?

  init(
    _ name: String, dispatches: Int = 1_000_000, target: Target? = nil,
    concurrency: String? = nil,
    store: @escaping (Int) throws -> () -> Void,
    baseline: @escaping (Int) -> () -> Void,
    segments: ((Int) throws -> (store: [Double], baseline: [Double]))? = nil,
    flushes: FlushTally? = nil
  ) {
    self.name = name
    self.dispatches = dispatches
    self.target = target
    self.concurrency = concurrency
    self.store = store
    self.baseline = baseline
    self.segments = segments
    self.flushes = flushes
  }
}

/// The entries a durable workload's runs wrote and the flushes (`fsync` calls) that put them on
/// disk: how many dispatches a flush served.
final class FlushTally {
  private(set) var entries = 0
  private(set) var flushes = 0

  /// Adds a run's entries and flushes.
  func add(entries: Int, flushes: Int) {
    self.entries += entries
    self.flushes += flushes
  }

  /// Forgets the runs so far (the warm-up's).
  func reset() {
    entries = 0
    flushes = 0
  }

  /// Entries per flush; nil before any flush.
  var entriesPerFlush: Double? {
    flushes > 0 ? Double(entries) / Double(flushes) : nil
  }
}

/// A performance target from the project's compass.
///
/// Costs on one thread are budgets of instructions per dispatch, counted by callgrind
/// (`Scripts/callgrind.sh --budgets`): they do not depend on the machine or its load. A timed
/// run prints them and leaves their verdict to that script. What only a clock can tell (many
/// threads at once, flatness as a run grows) is a target on times of the same run.
enum Target {
  /// At most this many instructions per dispatch through the store.
  case instructions(Int)
  /// At most this many times another workload's instructions per dispatch.
  case instructionsRelative(to: String, factor: Double)
  /// At most another workload's instructions per dispatch plus this many.
  case instructionsAbove(String, by: Int)
  /// At most this many times another workload's store time per dispatch, in the same run.
  case relative(to: String, factor: Double)
  /// Flat as the run grows: no tenth of the run costs more than this many times the first
  /// tenth, per dispatch (an O(n) copy per dispatch would grow with the size).
  case flat(Double)
  /// Concurrent durable writers share their flushes: at least this many entries a flush, and
  /// at most `factor` times another workload's store time per dispatch, in the same run.
  case sharedFlushes(entriesPerFlush: Double, relativeTo: String, factor: Double)

  var text: String {
    switch self {
    case .instructions(let limit): "≤ \(grouped(limit)) instructions"
    case .instructionsRelative(let other, let factor):
      "≤ \(formatFactor(factor))× \(other) instructions"
    case .instructionsAbove(let other, let extra): "≤ \(other) + \(grouped(extra)) instructions"
    case .relative(let other, let factor): "≤ \(formatFactor(factor))× \(other)"
    case .flat(let factor): "flat: every tenth ≤ \(format(factor))× the first"
    case .sharedFlushes(let entries, let other, let factor):
      "≥ \(format(entries)) entries a flush, ≤ \(formatFactor(factor))× \(other)"
    }
  }

  /// Whether callgrind checks it, rather than a timed run.
  var countsInstructions: Bool {
    switch self {
    case .instructions, .instructionsRelative, .instructionsAbove: true
    case .relative, .flat, .sharedFlushes: false
    }
  }

  /// The workload it compares with, if any.
  var reference: String? {
    switch self {
    case .instructionsRelative(let other, _), .relative(let other, _),
      .instructionsAbove(let other, _), .sharedFlushes(_, let other, _):
      other
    case .instructions, .flat: nil
    }
  }
}

/// The result of one workload.
struct Measurement {
  let name: String
  let dispatches: Int
  let storeNanoseconds: Double
  let baselineNanoseconds: Double
  let target: Target?
  let concurrency: String?
  /// For growing workloads: the store's time per dispatch in each tenth of the run.
  let segmentNanoseconds: [Double]
  /// For growing workloads: the store's time over the baseline's in each tenth of the run.
  let segmentRatios: [Double]
  /// For durable workloads: the timed runs' entries per flush.
  let entriesPerFlush: Double?

  var ratio: Double { storeNanoseconds / max(baselineNanoseconds, 0.001) }
  /// Dispatches per second through the store, all threads or tasks together.
  var dispatchesPerSecond: Double { 1e9 / max(storeNanoseconds, 0.001) }
}

/// Elapsed wall-clock nanoseconds of `body`.
func time(_ body: () -> Void) -> Double {
  let clock = ContinuousClock()
  let elapsed = clock.measure(body)
  let (seconds, attoseconds) = elapsed.components
  return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Runs a workload and returns its median times.
///
/// One warm-up of each side, then `repetitions` timed runs of each, alternating, each on a
/// freshly built store or value. Setup is not timed.
func measure(_ workload: Workload, quick: Bool, repetitions: Int) throws -> Measurement {
  let count = quick ? max(workload.dispatches / 1000, 100) : workload.dispatches
  let warmUp = max(count / 10, 10)
  try workload.store(warmUp)()
  workload.baseline(warmUp)()
  workload.flushes?.reset()
  var storeTimes: [Double] = []
  var baselineTimes: [Double] = []
  for _ in 0..<repetitions {
    let storeRun = try workload.store(count)
    storeTimes.append(time(storeRun) / Double(count))
    let baselineRun = workload.baseline(count)
    baselineTimes.append(time(baselineRun) / Double(count))
  }
  var segmentNanoseconds: [Double] = []
  var segmentRatios: [Double] = []
  if let segments = workload.segments {
    let (store, baseline) = try segments(count)
    segmentNanoseconds = store
    segmentRatios = zip(store, baseline).map { $0 / max($1, 0.001) }
  }
  return Measurement(
    name: workload.name, dispatches: count, storeNanoseconds: median(storeTimes),
    baselineNanoseconds: median(baselineTimes), target: workload.target,
    concurrency: workload.concurrency,
    segmentNanoseconds: segmentNanoseconds, segmentRatios: segmentRatios,
    entriesPerFlush: workload.flushes?.entriesPerFlush)
}

/// Keeps a value alive and opaque to the optimiser, so measured work is not removed.
@inline(never)
func blackHole<T>(_ value: T) {
  withUnsafePointer(to: value) { pointer in
    if UInt(bitPattern: pointer) == 1 { print("unreachable") }
  }
}

/// Returns its argument through a call the optimiser cannot see into, so that a baseline calls
/// the reducer closure as a function, as the store does, rather than inlining its body.
@inline(never)
func opaque<T>(_ value: T) -> T {
  value
}
