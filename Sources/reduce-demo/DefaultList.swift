import Foundation

/// Where the list lives when no `--state FILE` is given: `todos.json` in a directory of the
/// user's own, so that two users of one machine never read or overwrite each other's list.
///
/// The directory is, in order:
///
/// - `$REDUCE_DEMO_DATA_DIR`, when set and not empty (tests use it; so may you);
/// - on Darwin, `reduce-demo` in the user's Application Support directory;
/// - elsewhere, `reduce-demo` in `$XDG_STATE_HOME` when it is an absolute path, else in
///   `~/.local/state` (the XDG Base Directory defaults: the list is state an app keeps between
///   runs, not a document the user handles).
///
/// It is created when missing, with its missing parents, readable and writable by the user only
/// (mode 0700). An existing directory is used as it is.
enum DefaultList {
  /// The name of the list's file in the directory.
  static let fileName = "todos.json"

  /// The directory the list lives in.
  ///
  /// - Parameter environment: The process's environment.
  /// - Returns: The directory, which may not exist yet.
  /// - Throws: ``StateFile/Failure`` when there is no home directory to put it in.
  static func directory(environment: [String: String]) throws(StateFile.Failure) -> URL {
    if let custom = environment["REDUCE_DEMO_DATA_DIR"], !custom.isEmpty {
      return URL(fileURLWithPath: custom, isDirectory: true)
    }
    #if canImport(Darwin)
      guard
        let support = try? FileManager.default.url(
          for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil,
          create: false)
      else {
        throw StateFile.Failure(description: "cannot find the Application Support directory")
      }
      return support.appendingPathComponent("reduce-demo", isDirectory: true)
    #else
      if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
        return URL(fileURLWithPath: state, isDirectory: true)
          .appendingPathComponent("reduce-demo", isDirectory: true)
      }
      let home =
        environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        ?? FileManager.default.homeDirectoryForCurrentUser.path
      guard home.hasPrefix("/") else {
        throw StateFile.Failure(description: "cannot find a home directory for the list")
      }
      return URL(fileURLWithPath: home, isDirectory: true)
        .appendingPathComponent(".local/state/reduce-demo", isDirectory: true)
    #endif
  }

  /// Creates the directory when it is missing, and returns the path of the list.
  ///
  /// - Parameter environment: The process's environment.
  /// - Returns: The path of `todos.json` in the directory.
  /// - Throws: ``StateFile/Failure`` when the directory cannot be found or created.
  static func prepare(environment: [String: String]) throws(StateFile.Failure) -> String {
    let directory = try directory(environment: environment)
    var isDirectory: ObjCBool = false
    if !FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
      do {
        try FileManager.default.createDirectory(
          at: directory, withIntermediateDirectories: true,
          attributes: [.posixPermissions: 0o700])
      } catch {
        throw StateFile.Failure(
          description: "cannot create \(directory.path) for the list: \(StateFile.reason(error))")
      }
    } else if !isDirectory.boolValue {
      throw StateFile.Failure(
        description: "cannot keep the list in \(directory.path): it is not a directory")
    }
    return directory.appendingPathComponent(fileName).path
  }
}
