import Foundation

/// The JSON file the list is saved to and reloaded from (`--state FILE`).
///
/// `ReducePersistence` restores and saves it (see `DemoApp.persistence(for:settings:)`), in its
/// `.flat` layout: the list's own keys and `"version": 1`, the layout the demo has always
/// written. This type checks the directory before a session starts, and, when the persistence
/// refuses a file, reads it again to say exactly what is wrong with it and on which line.
struct StateFile: Sendable {
  /// What went wrong reading or writing the file, in one sentence.
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// The file's contents: a version, so that a later demo can read old files.
  struct Contents: Codable {
    var version: Int
    var nextID: Int
    var items: [Todo]
  }

  let path: String

  /// The list saved in the file, or nil when there is no file yet: the demo's own reading,
  /// which says what is wrong with a file the persistence refused.
  ///
  /// A file is read only when it is a whole, consistent list: version 1, every id from 1 to
  /// `TodoList.idLimit - 1` and used once, and a `nextID` above every id and at most the limit.
  ///
  /// - Throws: ``Failure`` when the file exists but cannot be read or is not a saved list; its
  ///   description names the file, the line and what is wrong there.
  func load() throws(Failure) -> TodoList? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw Failure(description: "cannot read \(path): \(Self.reason(error))")
    }
    let contents: Contents
    do {
      contents = try JSONDecoder().decode(Contents.self, from: data)
    } catch let error as DecodingError {
      throw notAList(Self.problem(error, in: data))
    } catch {
      throw notAList("it cannot be read as JSON")
    }
    guard contents.version == 1 else {
      throw Failure(description: "\(path) has version \(contents.version); this demo reads 1")
    }
    if let problem = Self.problem(with: contents) {
      let line = (try? JSONOutline(Array(data)))?.line(at: problem.path)
      throw notAList(line.map { "line \($0), " + problem.text } ?? problem.text)
    }
    return TodoList(items: contents.items, nextID: contents.nextID)
  }

  private func notAList(_ problem: String) -> Failure {
    Failure(description: "\(path) is not a saved to-do list: \(problem)")
  }

  /// Checks that the file's directory exists and is writable, so that a session is not lost
  /// to a save that fails at the end.
  ///
  /// - Throws: ``Failure`` when the list could not be saved there.
  func checkWritable() throws(Failure) {
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw Failure(description: "cannot save the list to \(path): \(directory) is not a directory")
    }
    guard FileManager.default.isWritableFile(atPath: directory) else {
      throw Failure(description: "cannot save the list to \(path): \(directory) is not writable")
    }
  }

  /// Why a file operation failed, in words: the system's message for an errno when there is one.
  static func reason(_ error: any Error) -> String {
    let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
    if let posix = underlying, posix.domain == NSPOSIXErrorDomain {
      return String(cString: strerror(Int32(posix.code))).lowercased()
    }
    return error.localizedDescription
  }
}
