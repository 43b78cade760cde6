// reduce-bench: the store against a bare loop calling the same reducers, in one process.
//
//   swift run -c release reduce-bench [--json] [--filter NAME] [--quick] [--repetitions N]
//
// Instruction budgets are checked under callgrind by Scripts/callgrind.sh --budgets, which
// counts with --profile and judges with --check-instructions.
//
// Measure release builds only: a debug build measures the optimiser's absence.

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

let usage = """
  usage: reduce-bench [--json] [--filter NAME] [--quick] [--repetitions N] [--list] [--help]
    --json           print one JSON object instead of the table
    --filter NAME    run only the workloads whose name contains NAME (repeatable), and
                     those their timed targets compare with
    --quick          run 1/1000 of the dispatches (a smoke run, not a measurement)
    --repetitions N  timed repetitions per side after the warm-up (default 5, at least 1)
    --list           print the workload names and exit
    --help           print this help and exit
    --profile NAME --dispatches N
                     set up the workload NAME and dispatch N actions through its store once,
                     with no warm-up, baseline or timing: for instruction counts under
                     callgrind (Scripts/callgrind.sh)
    --list-budgets   print the workloads that Scripts/callgrind.sh --budgets counts: those
                     with an instruction budget and those the budgets compare with
    --check-instructions NAME=COUNT
                     (repeatable) print the budgets table for these instructions per
                     dispatch; exit 1 when a budget is missed
  """

struct Options {
  var json = false
  var filters: [String] = []
  var quick = false
  var repetitions = 5
  var list = false
  var help = false
  var profile: String?
  var dispatches: Int?
  var listBudgets = false
  var instructions: [String: Int] = [:]
}

enum ArgumentError: Error, CustomStringConvertible {
  case unknown(String)
  case missingValue(String)
  case invalidRepetitions(String)
  case invalidCount(String)
  case invalidInstructions(String)

  var description: String {
    switch self {
    case .unknown(let argument): "unknown argument '\(argument)'"
    case .missingValue(let option): "\(option) needs a value"
    case .invalidRepetitions(let value): "--repetitions takes a whole number from 1, not '\(value)'"
    case .invalidCount(let value): "--dispatches takes a whole number from 0, not '\(value)'"
    case .invalidInstructions(let value):
      "--check-instructions takes NAME=COUNT with a whole COUNT, not '\(value)'"
    }
  }
}

func parse(_ arguments: [String]) throws(ArgumentError) -> Options {
  var options = Options()
  var rest = arguments[...]
  while let argument = rest.popFirst() {
    switch argument {
    case "--json": options.json = true
    case "--quick": options.quick = true
    case "--list": options.list = true
    case "--list-budgets": options.listBudgets = true
    case "--help", "-h": options.help = true
    case "--filter":
      guard let value = rest.popFirst() else { throw .missingValue(argument) }
      options.filters.append(value)
    case "--profile":
      guard let value = rest.popFirst() else { throw .missingValue(argument) }
      options.profile = value
    case "--dispatches":
      guard let value = rest.popFirst() else { throw .missingValue(argument) }
      guard let count = Int(value), count >= 0 else { throw .invalidCount(value) }
      options.dispatches = count
    case "--check-instructions":
      guard let value = rest.popFirst() else { throw .missingValue(argument) }
      let parts = value.split(separator: "=", maxSplits: 1)
      guard parts.count == 2, let count = Int(parts[1]), count >= 0 else {
        throw .invalidInstructions(value)
      }
      options.instructions[String(parts[0])] = count
    case "--repetitions":
      guard let value = rest.popFirst() else { throw .missingValue(argument) }
      guard let count = Int(value), count >= 1 else { throw .invalidRepetitions(value) }
      options.repetitions = count
    default: throw .unknown(argument)
    }
  }
  return options
}

/// Writes a line to standard error.
func printError(_ message: String) {
  var line = message + "\n"
  line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}

func fail(_ message: String) -> Never {
  printError("reduce-bench: \(message)\n\(usage)")
  exit(64)
}

let options: Options
do {
  options = try parse(Array(CommandLine.arguments.dropFirst()))
} catch {
  fail(error.description)
}

if options.help {
  print(usage)
  exit(0)
}

let workloads = allWorkloads()
if options.list {
  for workload in workloads { print(workload.name) }
  exit(0)
}
if options.listBudgets {
  for name in budgetedNames(workloads) { print(name) }
  exit(0)
}
if !options.instructions.isEmpty {
  if let unknown = options.instructions.keys.first(where: { name in
    !workloads.contains { $0.name == name }
  }) {
    fail("no workload is named '\(unknown)'")
  }
  let report = budgetReport(options.instructions, workloads: workloads)
  print(report.text)
  exit(report.met ? 0 : 1)
}
if let name = options.profile {
  guard let workload = workloads.first(where: { $0.name == name }) else {
    fail("no workload is named '\(name)'")
  }
  do {
    try workload.store(options.dispatches ?? workload.dispatches)()
  } catch {
    fail("\(name) could not be set up: \(error)")
  }
  exit(0)
}

let matching = workloads.filter { workload in
  options.filters.isEmpty || options.filters.contains { workload.name.contains($0) }
}
// A timed target compares with another workload of the same run: run that one too.
let references = Set(
  matching.compactMap { workload in
    workload.target?.countsInstructions == false ? workload.target?.reference : nil
  })
let selected = workloads.filter { workload in
  references.contains(workload.name) || matching.contains { $0.name == workload.name }
}
if selected.isEmpty { fail("no workload matches \(options.filters)") }

var results: [Measurement] = []
for workload in selected {
  do {
    let result = try measure(workload, quick: options.quick, repetitions: options.repetitions)
    results.append(result)
    if !options.json { printError("measured \(workload.name)") }
  } catch {
    fail("\(workload.name) could not be set up: \(error)")
  }
}

if options.json {
  print(jsonReport(results))
} else {
  print(tableReport(results, quick: options.quick, repetitions: options.repetitions))
}
