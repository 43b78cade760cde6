// swift-tools-version: 6.0
import PackageDescription

// `Plugins/` holds ordinary library targets: one module per built-in middleware plugin, each its
// own product so an app imports only what it uses. SwiftPM's default use of a `Plugins/` folder
// is for package plugins, so every target there is declared with an explicit `path:`.

let package = Package(
  name: "Reduce",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Reduce", targets: ["Reduce"]),
    .library(name: "ReduceTesting", targets: ["ReduceTesting"]),
    .library(name: "ReduceThrottle", targets: ["ReduceThrottle"]),
    .library(name: "ReduceThunk", targets: ["ReduceThunk"]),
    .library(name: "ReduceUndo", targets: ["ReduceUndo"]),
    .library(name: "ReduceLogging", targets: ["ReduceLogging"]),
    .library(name: "ReducePersistence", targets: ["ReducePersistence"]),
    // So that a package depending on Reduce can `swift run reduce-audit` to check its logs.
    .executable(name: "reduce-audit", targets: ["reduce-audit"]),
  ],
  targets: [
    .target(name: "Reduce"),
    .testTarget(
      name: "ReduceTests", dependencies: ["Reduce", "ReduceMisuse", "ReduceExecutableSupport"]),
    // Makes a mistake the store stops for: the child process of the tests of its messages.
    .executableTarget(name: "ReduceMisuse", dependencies: ["Reduce"], path: "Tests/ReduceMisuse"),
    .executableTarget(
      name: "reduce-bench",
      dependencies: ["Reduce", "ReduceLogging", "ReduceThrottle", "ReduceThunk", "ReduceUndo"]),
    .testTarget(
      name: "ReduceBenchTests", dependencies: ["reduce-bench", "ReduceExecutableSupport"]),
    // Runs the built executables for the tests that smoke-run them; not a product.
    .target(name: "ReduceExecutableSupport", path: "Tests/ReduceExecutableSupport"),
    .target(name: "ReduceTesting", dependencies: ["Reduce"]),
    .testTarget(name: "ReduceTestingTests", dependencies: ["ReduceTesting", "Reduce"]),
    .target(name: "ReduceThrottle", dependencies: ["Reduce"], path: "Plugins/ReduceThrottle"),
    .testTarget(
      name: "ReduceThrottleTests", dependencies: ["ReduceThrottle", "ReduceTesting", "Reduce"]),
    .target(name: "ReduceThunk", dependencies: ["Reduce"], path: "Plugins/ReduceThunk"),
    .testTarget(
      name: "ReduceThunkTests", dependencies: ["ReduceThunk", "ReduceTesting", "Reduce"]),
    .target(name: "ReduceUndo", dependencies: ["Reduce"], path: "Plugins/ReduceUndo"),
    .testTarget(name: "ReduceUndoTests", dependencies: ["ReduceUndo", "ReduceTesting", "Reduce"]),
    .target(name: "ReduceLogging", dependencies: ["Reduce"], path: "Plugins/ReduceLogging"),
    // The inspector page's HTML, CSS and JavaScript are embedded in the executable at build time.
    .executableTarget(
      name: "reduce-audit",
      dependencies: ["ReduceLogging"],
      resources: [
        .embedInCode("Resources/inspector.html"), .embedInCode("Resources/inspector.css"),
        .embedInCode("Resources/inspector.js"),
      ]),
    // Figures of the file journal: standby lag while 8 clients write, replay from a snapshot.
    .executableTarget(name: "reduce-journal-bench", dependencies: ["Reduce", "ReduceLogging"]),
    // Keeps a durable audit log until it is killed: the crash test's child process.
    .executableTarget(
      name: "AuditCrashWriter", dependencies: ["Reduce", "ReduceLogging"],
      path: "Tests/AuditCrashWriter"),
    // Writes ledger audit logs with the real AuditTrail for the inspector page's checks.
    .executableTarget(
      name: "InspectorLogWriter", dependencies: ["Reduce", "ReduceLogging"],
      path: "Tests/InspectorLogWriter"),
    .testTarget(
      name: "ReduceLoggingTests",
      dependencies: [
        "ReduceLogging", "Reduce", "reduce-audit", "AuditCrashWriter", "InspectorLogWriter",
        "ReduceExecutableSupport", "reduce-journal-bench",
      ]),
    .target(
      name: "ReducePersistence", dependencies: ["Reduce"], path: "Plugins/ReducePersistence"),
    // Saves a changing state until it is killed: the persistence crash test's child process.
    .executableTarget(
      name: "PersistenceCrashWriter", dependencies: ["Reduce", "ReducePersistence"],
      path: "Tests/PersistenceCrashWriter"),
    .testTarget(
      name: "ReducePersistenceTests",
      dependencies: [
        "ReducePersistence", "ReduceTesting", "Reduce", "ReduceUndo", "PersistenceCrashWriter",
        "ReduceExecutableSupport",
      ]),
    .executableTarget(
      name: "reduce-demo",
      dependencies: ["Reduce", "ReduceThunk", "ReducePersistence", "ReduceLogging", "ReduceUndo"]),
    .testTarget(
      name: "ReduceDemoTests",
      dependencies: [
        "reduce-demo", "reduce-audit", "Reduce", "ReduceThunk", "ReduceExecutableSupport",
      ]),
  ],
  swiftLanguageModes: [.v6]
)

// Settings every target shares.
for target in package.targets {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("InternalImportsByDefault")
    ]
}
