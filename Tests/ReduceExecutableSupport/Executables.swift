public import Foundation

/// What a run of one of the package's executables printed, and how it ended.
public struct ExecutableRun: Sendable {
  /// The exit status.
  public var status: Int32
  /// Everything written to standard output.
  public var standardOutput: String
  /// Everything written to standard error.
  public var standardError: String
}

/// Why an executable could not be run.
public enum ExecutableError: Error, CustomStringConvertible {
  /// The executable was not found next to the test binary.
  case notFound(String)

  /// A sentence naming the executable and how to get it built.
  public var description: String {
    switch self {
    case .notFound(let name):
      "\(name) was not found next to the tests; `swift test` builds it when a test target depends on it"
    }
  }
}

/// Runs the package's built executables (`reduce-audit`, `reduce-bench`, `reduce-demo`) from
/// the tests that smoke-run them.
public enum Executables {
  /// The executable with a name, found next to the test binary in the build products directory.
  ///
  /// - Parameter name: The executable's name.
  /// - Returns: Its location.
  /// - Throws: ``ExecutableError/notFound(_:)`` when it was not built.
  public static func url(_ name: String) throws(ExecutableError) -> URL {
    var directory = Bundle.main.bundleURL
    for _ in 0..<4 {
      let candidate = directory.appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      directory.deleteLastPathComponent()
    }
    let fromArgument = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent(name)
    guard FileManager.default.isExecutableFile(atPath: fromArgument.path) else {
      throw .notFound(name)
    }
    return fromArgument
  }

  /// Runs an executable to its end.
  ///
  /// Standard output and standard error are read at the same time, so that neither can fill
  /// its pipe and block the program.
  ///
  /// - Parameters:
  ///   - name: The executable's name.
  ///   - arguments: Its arguments.
  ///   - input: What it reads on standard input (nothing when nil).
  ///   - environment: Variables added to this process's environment for the run.
  /// - Returns: Its exit status and output.
  /// - Throws: ``ExecutableError/notFound(_:)``, or the error of starting the process.
  public static func run(
    _ name: String, _ arguments: [String], input: String? = nil,
    environment: [String: String] = [:]
  ) throws -> ExecutableRun {
    let process = Process()
    process.executableURL = try url(name)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let standardInput = Pipe()
    let output = Pipe()
    let error = Pipe()
    process.standardInput = standardInput
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let errorText = ErrorText()
    let finished = DispatchSemaphore(value: 0)
    Thread {
      errorText.set(error.fileHandleForReading.readDataToEndOfFile())
      finished.signal()
    }.start()
    try standardInput.fileHandleForWriting.write(contentsOf: Data((input ?? "").utf8))
    try standardInput.fileHandleForWriting.close()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    finished.wait()
    return ExecutableRun(
      status: process.terminationStatus,
      standardOutput: String(decoding: outputData, as: UTF8.self),
      standardError: String(decoding: errorText.value, as: UTF8.self))
  }
}

/// Standard error of a run, written by the thread that reads it.
final class ErrorText: @unchecked Sendable {
  // `@unchecked`: every access holds `lock`.
  private let lock = NSLock()
  private var data = Data()

  func set(_ value: Data) {
    lock.withLock { data = value }
  }

  var value: Data { lock.withLock { data } }
}
