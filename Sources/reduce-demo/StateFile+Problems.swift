import Foundation

// What is wrong with a state file that is not a saved list, in words: which value, on which
// line, and what it should be. Printed after "FILE is not a saved to-do list: ".

extension StateFile {
  /// A key of a path into the file, for the values the decoder did not name.
  struct PathKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
      self.stringValue = stringValue
    }

    init(intValue: Int) {
      self.stringValue = "Index \(intValue)"
      self.intValue = intValue
    }
  }

  /// What a decoding error says is wrong, with the line of the value at fault.
  ///
  /// - Parameters:
  ///   - error: What `JSONDecoder` threw.
  ///   - data: The file's contents, scanned again for the line.
  /// - Returns: A clause such as `line 3, the value for "items" is missing`.
  static func problem(_ error: DecodingError, in data: Data) -> String {
    let outline: JSONOutline
    do throws(JSONOutline.SyntaxError) {
      outline = try JSONOutline(Array(data))
    } catch {
      if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) { return "the file is empty" }
      return "it is not JSON at line \(error.line), column \(error.column) (\(error.problem))"
    }
    switch error {
    case .keyNotFound(let key, let context):
      let container = context.codingPath.isEmpty ? "" : " in " + name(of: context.codingPath)
      return "line \(outline.line(at: context.codingPath)), the value for \"\(key.stringValue)\""
        + " is missing\(container)"
    case .valueNotFound(let type, let context):
      return "line \(outline.line(at: context.codingPath)), the value for "
        + "\(name(of: context.codingPath)) is null instead of \(kind(type))"
    case .typeMismatch(let type, let context) where context.codingPath.isEmpty:
      return "line \(outline.root.line), the file should hold \(kind(type))"
    case .typeMismatch(let type, let context):
      return "line \(outline.line(at: context.codingPath)), the value for "
        + "\(name(of: context.codingPath)) is not \(kind(type))"
    case .dataCorrupted(let context) where !context.codingPath.isEmpty:
      return "line \(outline.line(at: context.codingPath)), the value for "
        + "\(name(of: context.codingPath)) cannot be read"
    default:
      // The text is JSON but the decoder refused it as a whole: a number out of every range.
      return "it holds a value that cannot be read, such as a number too large for any id"
    }
  }

  /// What is inconsistent in a list that decoded, or nil when nothing is.
  ///
  /// - Parameter contents: The decoded file.
  /// - Returns: The path of the value at fault and a clause saying what is wrong with it.
  static func problem(with contents: Contents) -> (path: [PathKey], text: String)? {
    let limit = TodoList.idLimit
    var positions: [Int: Int] = [:]
    for (index, item) in contents.items.enumerated() {
      let path = [
        PathKey(stringValue: "items"), PathKey(intValue: index), PathKey(stringValue: "id"),
      ]
      guard (1..<limit).contains(item.id) else {
        return (path, "item \(index + 1) has the id \(item.id); ids run from 1 to \(limit - 1)")
      }
      if let earlier = positions[item.id] {
        return (
          path, "items \(earlier + 1) and \(index + 1) both have the id \(item.id); ids must differ"
        )
      }
      positions[item.id] = index
    }
    let nextID = [PathKey(stringValue: "nextID")]
    guard (1...limit).contains(contents.nextID) else {
      return (nextID, "nextID is \(contents.nextID); it must be from 1 to \(limit)")
    }
    if let (highest, index) = positions.max(by: { $0.key < $1.key }), contents.nextID <= highest {
      return (
        nextID,
        "nextID is \(contents.nextID), but item \(index + 1) has the id \(highest); "
          + "nextID must be greater than every id"
      )
    }
    return nil
  }

  /// A value's place in words: `"nextID"`, `item 3 of "items"`, `"title" of item 3 of "items"`.
  private static func name(of path: [any CodingKey]) -> String {
    path.reversed().map { key in
      key.intValue.map { "item \($0 + 1)" } ?? "\"\(key.stringValue)\""
    }
    .joined(separator: " of ")
  }

  /// What a value of a type looks like in JSON.
  private static func kind(_ type: Any.Type) -> String {
    switch type {
    case is Bool.Type: "true or false"
    case is any BinaryInteger.Type: "a whole number"
    case is String.Type: "a text in quotes"
    case is [Any].Type: "a list in [ ]"
    default: "an object in { }"
    }
  }
}
