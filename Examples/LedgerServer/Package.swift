// swift-tools-version: 6.0
import PackageDescription

// The ledger of Guides/AuditTrail.md served over HTTP: `LedgerCore` holds everything that talks
// to Reduce and to Hummingbird's router, so the tests drive it without a socket; `ledger-server`
// is the command line around it. Its journal is a file (Reduce's audit trail) or a PostgreSQL
// stream (Integrations/ReducePostgres, by path, named explicitly as path dependencies must be).

let package = Package(
  name: "LedgerServer",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "ledger-server", targets: ["ledger-server"])
  ],
  dependencies: [
    .package(name: "Reduce", path: "../.."),
    .package(name: "ReducePostgres", path: "../../Integrations/ReducePostgres"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
  ],
  targets: [
    .target(
      name: "LedgerCore",
      dependencies: [
        .product(name: "Reduce", package: "Reduce"),
        .product(name: "ReduceLogging", package: "Reduce"),
        .product(name: "ReducePostgres", package: "ReducePostgres"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ]),
    .executableTarget(
      name: "ledger-server",
      dependencies: [
        "LedgerCore",
        .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(
      name: "LedgerServerTests",
      dependencies: [
        "LedgerCore",
        // Built for the tests that run it as a process.
        "ledger-server",
        .product(name: "Reduce", package: "Reduce"),
        .product(name: "ReduceLogging", package: "Reduce"),
        .product(name: "ReducePostgres", package: "ReducePostgres"),
        .product(name: "ReducePostgresCluster", package: "ReducePostgres"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)

// Settings every target shares, as in the root package.
for target in package.targets {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("InternalImportsByDefault")
    ]
}
