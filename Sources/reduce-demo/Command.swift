import Foundation

/// One line of input, parsed.
enum Command: Equatable {
  case add(String)
  case done(Int)
  case undoDone(Int)
  case rename(Int, String)
  case remove(Int)
  case filter(Filter)
  case undo
  case redo
  case history
  case load(file: String?)
  case log(count: Int)
  case help
  case quit

  /// A line that is not a command, and why: printed as `error: <description>`.
  struct ParseError: Error, Equatable, CustomStringConvertible {
    var description: String
  }

  /// What `help` prints: one line per command.
  static let helpText = """
    Commands (N is an item's number in the list as shown):
      add TEXT           add an item
      done N             mark an item done
      undo-done N        mark an item not done
      rename N TEXT      rename an item (renames of one item in a row undo as one step)
      remove N           remove an item
      filter all|open|done
                         choose which items the list shows (not undoable)
      undo, redo         step through the history of the list
      history            what undo and redo would do
      load [FILE]        add the starter list, or the lines of FILE (a thunk, with progress)
      log [N]            the last N entries of the audit log (5 by default)
      help               this text
      quit               save and leave (end of input does the same)
    Control characters in titles and file names are shown escaped: ESC as \\u{1B}.
    """

  /// Parses a line; nil for a blank line or a `#` comment.
  ///
  /// - Parameter line: The line, without its newline.
  /// - Returns: The command, or nil when the line holds none.
  /// - Throws: ``ParseError`` for an unknown command, a missing or malformed number, an empty
  ///   text, or an argument a command does not take.
  static func parse(_ line: String) throws(ParseError) -> Command? {
    let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
    if trimmed.isEmpty || trimmed.hasPrefix("#") { return nil }
    let word: String
    let rest: String
    if let space = trimmed.firstIndex(where: \.isWhitespace) {
      word = String(trimmed[..<space]).lowercased()
      rest = trimmed[space...].trimmingCharacters(in: .whitespaces)
    } else {
      word = trimmed.lowercased()
      rest = ""
    }
    switch word {
    case "add":
      return .add(try text(rest, for: "add", usage: "add TEXT"))
    case "done":
      return .done(try number(rest, for: "done"))
    case "undo-done":
      return .undoDone(try number(rest, for: "undo-done"))
    case "rename":
      let (numberText, title) = split(rest)
      let index = try number(numberText, for: "rename", usage: "rename N TEXT")
      return .rename(index, try text(title, for: "rename", usage: "rename N TEXT"))
    case "remove":
      return .remove(try number(rest, for: "remove"))
    case "filter":
      guard let filter = Filter(rawValue: rest.lowercased()) else {
        throw ParseError(
          description: rest.isEmpty
            ? "filter needs all, open or done"
            : "filter takes all, open or done, not \(quoted(rest))")
      }
      return .filter(filter)
    case "load":
      return .load(file: rest.isEmpty ? nil : rest)
    case "log":
      if rest.isEmpty { return .log(count: 5) }
      guard let count = Int(rest), count > 0 else {
        throw ParseError(description: "log takes a number of entries, like log 10")
      }
      return .log(count: count)
    case "undo", "redo", "history", "help", "quit", "exit", "?":
      guard rest.isEmpty else { throw ParseError(description: "\(word) takes no argument") }
      switch word {
      case "undo": return .undo
      case "redo": return .redo
      case "history": return .history
      case "quit", "exit": return .quit
      default: return .help
      }
    default:
      throw ParseError(description: "unknown command \(quoted(word)); type help for the list")
    }
  }

  private static func split(_ text: String) -> (String, String) {
    guard let space = text.firstIndex(where: \.isWhitespace) else { return (text, "") }
    return (String(text[..<space]), text[space...].trimmingCharacters(in: .whitespaces))
  }

  private static func text(_ text: String, for command: String, usage: String)
    throws(ParseError) -> String
  {
    guard !text.isEmpty else {
      throw ParseError(description: "\(command) needs a text: \(usage)")
    }
    return text
  }

  private static func number(_ text: String, for command: String, usage: String? = nil)
    throws(ParseError) -> Int
  {
    let usage = usage ?? "\(command) N"
    guard !text.isEmpty else {
      throw ParseError(description: "\(command) needs an item number: \(usage)")
    }
    guard let number = Int(text) else {
      throw ParseError(description: "\(quoted(text)) is not an item number: \(usage)")
    }
    return number
  }
}
