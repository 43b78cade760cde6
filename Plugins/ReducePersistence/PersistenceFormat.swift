public import Foundation

/// How a ``PersistenceMiddleware`` lays its value out in the file, which version the layout has,
/// and how files of older versions are brought up to it.
///
/// ```swift
/// // Version 2 renamed "name" to "title"; files of version 1 are migrated when read.
/// let format = PersistenceFormat(
///   version: 2,
///   migrations: [
///     .init(from: 1) { old in
///       var object = try JSONSerialization.jsonObject(with: old) as? [String: Any] ?? [:]
///       object["title"] = object.removeValue(forKey: "name")
///       return try JSONSerialization.data(withJSONObject: object)
///     }
///   ])
/// ```
public struct PersistenceFormat: Sendable {
  /// Where the version sits in the file.
  public enum Layout: Sendable, Equatable {
    /// `{"state": VALUE, "version": N}`: any `Codable` value.
    case envelope
    /// The value's own JSON object with a `"version": N` member added: the layout of files that
    /// kept their version beside their data. The value must encode as a JSON object without a
    /// `version` key of its own; saving anything else fails with
    /// ``PersistenceError/encodingFailed(reason:)``.
    case flat
  }

  /// The version files are written with; 1 or more.
  public var version: Int
  /// Where the version sits.
  public var layout: Layout
  /// The migrations from older versions, at most one from each version.
  public var migrations: [PersistenceMigration]

  /// Creates a format.
  ///
  /// - Parameters:
  ///   - version: The version files are written with; 1 or more.
  ///   - layout: Where the version sits; `.envelope` by default.
  ///   - migrations: The migrations from older versions, at most one from each version below
  ///     `version`.
  public init(
    version: Int = 1, layout: Layout = .envelope, migrations: [PersistenceMigration] = []
  ) {
    self.version = version
    self.layout = layout
    self.migrations = migrations
  }

  /// Checks the version and the migrations.
  func validate() throws(PersistenceError) {
    guard version >= 1 else { throw .invalidVersion(version) }
    var seen = Set<Int>()
    for migration in migrations {
      guard migration.from < version, seen.insert(migration.from).inserted else {
        throw .invalidMigration(from: migration.from, version: version)
      }
    }
  }
}

/// A step that turns the JSON of a value saved with one version into the JSON of the next
/// version.
///
/// It is given the value's JSON only: for the `.envelope` layout the `state` member, for the
/// `.flat` layout the object without its `version` member. It returns the value's JSON for
/// version `from + 1`. Migrations run in order, one version at a time, when a file is restored;
/// the migrated value is written back with the current version at the next save.
public struct PersistenceMigration: Sendable {
  /// The version this migration reads.
  public let from: Int
  let migrate: @Sendable (Data) throws -> Data

  /// Creates a migration.
  ///
  /// - Parameters:
  ///   - version: The version it reads; it returns the JSON of `version + 1`.
  ///   - migrate: Turns the older JSON into the newer; throw when the data cannot be migrated
  ///     (restoring then fails with ``StateFileProblem/migrationFailed(from:underlying:)``).
  public init(from version: Int, _ migrate: @escaping @Sendable (Data) throws -> Data) {
    self.from = version
    self.migrate = migrate
  }
}
