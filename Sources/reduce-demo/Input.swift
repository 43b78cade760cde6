import Foundation

/// Where commands come from: a script's lines, or standard input (with a prompt on a terminal).
struct Input {
  let isInteractive: Bool
  private var script: [Substring]?

  /// Reads standard input, prompting when it is a terminal.
  static func standardInput() -> Input {
    Input(isInteractive: isatty(0) != 0, script: nil)
  }

  private init(isInteractive: Bool, script: [Substring]?) {
    self.isInteractive = isInteractive
    self.script = script
  }

  /// Reads the lines of a script, without prompts.
  init(script text: String) {
    self.init(
      isInteractive: false,
      script: text.split(separator: "\n", omittingEmptySubsequences: false).reversed())
  }

  /// The next line, or nil at the end.
  mutating func nextLine() -> String? {
    if script != nil {
      return script?.popLast().map(String.init)
    }
    if isInteractive { print("> ", terminator: "") }
    // Everything printed so far goes out before the wait for input, so that whoever drives
    // the demo through a pipe sees the answer to each command before sending the next.
    fflush(nil)  // all streams: `stdout` itself is not concurrency-safe to name
    guard let line = readLine() else {
      if isInteractive { print("") }
      return nil
    }
    return line
  }
}
