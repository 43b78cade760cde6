func format(_ value: Double) -> String {
  if value >= 100 { return String(Int(value.rounded())) }
  let scaled = (value * 10).rounded() / 10
  return scaled == scaled.rounded() ? String(Int(scaled)) : String(scaled)
}

/// A factor with up to two decimals: 2.5, 3.33.
func formatFactor(_ value: Double) -> String {
  let scaled = (value * 100).rounded() / 100
  return scaled == scaled.rounded() ? String(Int(scaled)) : String(scaled)
}

/// A whole number with its thousands grouped: 12,345.
func grouped(_ value: Int) -> String {
  let digits = String(value.magnitude)
  var text = ""
  for (index, digit) in digits.enumerated() {
    if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
    text.append(digit)
  }
  return value < 0 ? "-" + text : text
}

/// Whether a measurement meets its target, given the other measurements of the run;
/// nil when there is no target, the workload it refers to was not run, or the target is an
/// instruction budget (callgrind checks those: `Scripts/callgrind.sh --budgets`).
func verdict(_ measurement: Measurement, among all: [Measurement]) -> Bool? {
  guard let target = measurement.target else { return nil }
  switch target {
  case .instructions, .instructionsRelative, .instructionsAbove:
    return nil
  case .relative(let other, let factor):
    return isWithin(measurement, factor, of: other, among: all)
  case .flat(let factor):
    guard let first = measurement.segmentNanoseconds.first else { return nil }
    return measurement.segmentNanoseconds.allSatisfy { $0 <= first * factor }
  case .sharedFlushes(let entries, let other, let factor):
    guard let entriesPerFlush = measurement.entriesPerFlush,
      let withinTime = isWithin(measurement, factor, of: other, among: all)
    else { return nil }
    return entriesPerFlush >= entries && withinTime
  }
}

/// Whether a measurement's store time per dispatch is at most `factor` times that of the
/// workload named `other` in the same run; nil when that workload was not run.
private func isWithin(
  _ measurement: Measurement, _ factor: Double, of other: String, among all: [Measurement]
) -> Bool? {
  guard let reference = all.first(where: { $0.name == other }) else { return nil }
  return measurement.storeNanoseconds <= reference.storeNanoseconds * factor
}

/// The table's "met" cell: yes, NO, "callgrind" for an instruction budget, or nothing.
func metText(_ measurement: Measurement, among all: [Measurement]) -> String {
  if measurement.target?.countsInstructions == true { return "callgrind" }
  return verdict(measurement, among: all).map { $0 ? "yes" : "NO" } ?? ""
}

/// A line on a workload of many threads or tasks: its throughput in all, and the share of
/// `counter`'s throughput on one thread that it reaches, when `counter` ran too.
func throughputLine(_ measurement: Measurement, among all: [Measurement]) -> String? {
  guard let concurrency = measurement.concurrency else { return nil }
  var line =
    "\(measurement.name) (\(concurrency)): \(millions(measurement.dispatchesPerSecond)) dispatches/s in all"
  if let counter = all.first(where: { $0.name == "counter" }) {
    let share = measurement.dispatchesPerSecond / counter.dispatchesPerSecond
    line +=
      ", \(format(share * 100))% of counter's \(millions(counter.dispatchesPerSecond))/s on one thread"
  }
  return line
}

/// Dispatches per second in millions ("38.2 M"), or in thousands below a million ("6.3 K").
func millions(_ perSecond: Double) -> String {
  perSecond >= 1e6 ? format(perSecond / 1e6) + " M" : format(perSecond / 1e3) + " K"
}

func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
  let padding = String(repeating: " ", count: max(0, width - text.count))
  return right ? padding + text : text + padding
}

func tableReport(_ results: [Measurement], quick: Bool, repetitions: Int) -> String {
  let header = ["workload", "dispatches", "store ns", "bare ns", "ratio", "target", "met"]
  var rows: [[String]] = []
  for result in results {
    let met = metText(result, among: results)
    rows.append([
      result.name, String(result.dispatches), format(result.storeNanoseconds),
      format(result.baselineNanoseconds), format(result.ratio) + "×",
      result.target?.text ?? "", met,
    ])
  }
  let widths = header.indices.map { column in
    ([header] + rows).map { $0[column].count }.max() ?? 0
  }
  func line(_ cells: [String]) -> String {
    cells.enumerated().map { index, cell in
      pad(cell, widths[index], right: (1...4).contains(index))
    }.joined(separator: "  ")
  }
  var lines = [
    line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "),
  ]
  lines += rows.map(line)
  for result in results where !result.segmentRatios.isEmpty {
    let times = result.segmentNanoseconds.map(format).joined(separator: " ")
    let ratios = result.segmentRatios.map { format($0) + "×" }.joined(separator: " ")
    lines.append("\(result.name) ns per dispatch in each tenth of the run: \(times)")
    lines.append("\(result.name) ratio to the baseline in each tenth: \(ratios)")
  }
  lines += results.compactMap { throughputLine($0, among: results) }
  for result in results {
    guard let entriesPerFlush = result.entriesPerFlush else { continue }
    lines.append("\(result.name): entries per flush (fsync) \(formatFactor(entriesPerFlush))")
  }
  lines.append(
    "median of \(repetitions) runs per side after a warm-up; ns per dispatch (of many threads:"
      + " wall time over all their dispatches)"
      + (quick ? "; --quick: counts are 1/1000, not a measurement" : ""))
  if results.contains(where: { $0.target?.countsInstructions == true }) {
    lines.append(
      "instruction budgets (met: callgrind) are checked by Scripts/callgrind.sh --budgets")
  }
  return lines.joined(separator: "\n")
}

func jsonString(_ text: String) -> String {
  var escaped = "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": escaped += "\\\""
    case "\\": escaped += "\\\\"
    case "\n": escaped += "\\n"
    default:
      if scalar.value < 0x20 {
        let hex = String(scalar.value, radix: 16)
        escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      } else {
        escaped.unicodeScalars.append(scalar)
      }
    }
  }
  return escaped + "\""
}

func jsonNumber(_ value: Double) -> String {
  value.isFinite ? String((value * 1000).rounded() / 1000) : "null"
}

func jsonReport(_ results: [Measurement]) -> String {
  let objects = results.map { result in
    var fields = [
      "\"name\":\(jsonString(result.name))",
      "\"store_ns\":\(jsonNumber(result.storeNanoseconds))",
      "\"baseline_ns\":\(jsonNumber(result.baselineNanoseconds))",
      "\"ratio\":\(jsonNumber(result.ratio))",
      "\"dispatches\":\(result.dispatches)",
    ]
    if let target = result.target {
      fields.append("\"target\":\(jsonString(target.text))")
      let met = verdict(result, among: results).map { $0 ? "true" : "false" } ?? "null"
      fields.append("\"met\":\(met)")
    }
    if let entriesPerFlush = result.entriesPerFlush {
      fields.append("\"entries_per_flush\":\(jsonNumber(entriesPerFlush))")
    }
    if result.concurrency != nil {
      fields.append("\"dispatches_per_second\":\(jsonNumber(result.dispatchesPerSecond))")
    }
    if !result.segmentRatios.isEmpty {
      fields.append(
        "\"segment_ns\":[\(result.segmentNanoseconds.map(jsonNumber).joined(separator: ","))]")
      fields.append(
        "\"segment_ratios\":[\(result.segmentRatios.map(jsonNumber).joined(separator: ","))]")
    }
    return "{" + fields.joined(separator: ",") + "}"
  }
  return "{\"workloads\":[" + objects.joined(separator: ",") + "]}"
}

// MARK: Instruction budgets

/// The names of the workloads with an instruction budget and of the workloads those budgets
/// refer to, in the order of `workloads`: what `Scripts/callgrind.sh --budgets` counts.
func budgetedNames(_ workloads: [Workload]) -> [String] {
  let budgeted = workloads.compactMap { workload in
    workload.target?.countsInstructions == true ? workload : nil
  }
  let needed = Set(budgeted.map(\.name) + budgeted.compactMap { $0.target?.reference })
  return workloads.map(\.name).filter(needed.contains)
}

/// The instruction budgets table: each counted workload's instructions per dispatch against its
/// budget.
///
/// - Parameters:
///   - counts: Instructions per dispatch by workload name, as callgrind counted them.
///   - workloads: The workloads, for their budgets and their order.
/// - Returns: The table, and whether every budget of a counted workload is met (a budget whose
///   reference was not counted is missed).
func budgetReport(_ counts: [String: Int], workloads: [Workload]) -> (text: String, met: Bool) {
  var rows: [[String]] = []
  var allMet = true
  for workload in workloads {
    guard let count = counts[workload.name] else { continue }
    var budget = ""
    var met = ""
    switch workload.target {
    case .instructions(let limit)?:
      budget = "≤ \(grouped(limit))"
      met = count <= limit ? "yes" : "NO"
    case .instructionsRelative(let other, let factor)?:
      if let reference = counts[other] {
        let limit = Double(reference) * factor
        budget = "≤ \(formatFactor(factor))× \(other) = \(grouped(Int(limit)))"
        met = Double(count) <= limit ? "yes" : "NO"
      } else {
        budget = "≤ \(formatFactor(factor))× \(other) (not counted)"
        met = "NO"
      }
    case .instructionsAbove(let other, let extra)?:
      if let reference = counts[other] {
        budget = "≤ \(other) + \(grouped(extra)) = \(grouped(reference + extra))"
        met = count <= reference + extra ? "yes" : "NO"
      } else {
        budget = "≤ \(other) + \(grouped(extra)) (not counted)"
        met = "NO"
      }
    default:
      budget = "(reference)"
    }
    if met == "NO" { allMet = false }
    rows.append([workload.name, grouped(count), budget, met])
  }
  let header = ["workload", "instructions", "budget", "met"]
  let widths = header.indices.map { column in
    ([header] + rows).map { $0[column].count }.max() ?? 0
  }
  func line(_ cells: [String]) -> String {
    cells.enumerated().map { index, cell in pad(cell, widths[index], right: index == 1) }
      .joined(separator: "  ")
  }
  let lines =
    [line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
    + rows.map(line) + ["instructions per dispatch, counted by callgrind"]
  return (lines.joined(separator: "\n"), allMet)
}
