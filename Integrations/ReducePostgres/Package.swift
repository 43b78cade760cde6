// swift-tools-version: 6.0
import PackageDescription

// The PostgreSQL journal of Reduce's audit trail: its own package, so that Reduce itself keeps
// no dependencies. Reduce is named explicitly, since a path dependency's name would otherwise be
// its directory's, whatever the clone is called.
let package = Package(
  name: "ReducePostgres",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "ReducePostgres", targets: ["ReducePostgres"]),
    // A throwaway PostgreSQL cluster, for the tests of a package that uses ReducePostgres (the
    // example server's): not for production.
    .library(name: "ReducePostgresCluster", targets: ["ReducePostgresCluster"]),
  ],
  dependencies: [
    .package(name: "Reduce", path: "../.."),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
  ],
  targets: [
    .target(
      name: "ReducePostgres",
      dependencies: [
        .product(name: "Reduce", package: "Reduce"),
        .product(name: "ReduceLogging", package: "Reduce"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    // Makes, starts, stops and removes a throwaway PostgreSQL cluster: for the tests and the
    // benchmark, and the product of the same name.
    .target(
      name: "ReducePostgresCluster",
      dependencies: [.product(name: "PostgresNIO", package: "postgres-nio")],
      path: "Tests/ReducePostgresCluster"),
    // The benchmark: durable dispatches per second with 1 and 8 clients, standby lag.
    .executableTarget(
      name: "reduce-postgres-bench",
      dependencies: [
        "ReducePostgres", "ReducePostgresCluster",
        .product(name: "Reduce", package: "Reduce"),
        .product(name: "ReduceLogging", package: "Reduce"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ]),
    // Keeps a journal in PostgreSQL until it is killed: the crash and failover tests' child.
    .executableTarget(
      name: "ReducePostgresCrashWriter",
      dependencies: [
        "ReducePostgres",
        .product(name: "Reduce", package: "Reduce"),
        .product(name: "ReduceLogging", package: "Reduce"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ],
      path: "Tests/ReducePostgresCrashWriter"),
    .testTarget(
      name: "ReducePostgresTests",
      dependencies: [
        "ReducePostgres", "ReducePostgresCluster", "ReducePostgresCrashWriter",
        "reduce-postgres-bench",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Reduce", package: "Reduce"),
        .product(name: "ReduceLogging", package: "Reduce"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)

for target in package.targets {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [.enableUpcomingFeature("InternalImportsByDefault")]
}
