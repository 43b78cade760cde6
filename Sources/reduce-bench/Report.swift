func format(_ value: Double) -> String {
  if value >= 100 { return String(Int(value.rounded())) }
  let scaled = (value * 10).rounded() / 10
  return scaled == scaled.rounded() ? String(Int(scaled)) : String(scaled)
}

/// Whether a measurement meets its target, given the other measurements of the run;
/// nil when there is no target or the workload it refers to was not run.
func verdict(_ measurement: Measurement, among all: [Measurement]) -> Bool? {
  guard let target = measurement.target else { return nil }
  switch target {
  case .nanoseconds(let limit):
    return measurement.storeNanoseconds <= limit
  case .relative(let other, let factor):
    guard let reference = all.first(where: { $0.name == other }) else { return nil }
    return measurement.storeNanoseconds <= reference.storeNanoseconds * factor
  case .overhead(let other, let limit):
    guard let reference = all.first(where: { $0.name == other }) else { return nil }
    return measurement.storeNanoseconds - reference.storeNanoseconds <= limit
  case .flat(let factor):
    guard let first = measurement.segmentNanoseconds.first else { return nil }
    return measurement.segmentNanoseconds.allSatisfy { $0 <= first * factor }
  }
}

func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
  let padding = String(repeating: " ", count: max(0, width - text.count))
  return right ? padding + text : text + padding
}

func tableReport(_ results: [Measurement], quick: Bool, repetitions: Int) -> String {
  let header = ["workload", "dispatches", "store ns", "bare ns", "ratio", "target", "met"]
  var rows: [[String]] = []
  for result in results {
    let met = verdict(result, among: results).map { $0 ? "yes" : "NO" } ?? ""
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
  lines.append(
    "median of \(repetitions) runs per side after a warm-up; ns per dispatch"
      + (quick ? "; --quick: counts are 1/1000, not a measurement" : ""))
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
