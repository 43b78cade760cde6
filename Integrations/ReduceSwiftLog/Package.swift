// swift-tools-version: 6.0
import PackageDescription

// Sends Reduce's log and audit entries to a swift-log `Logger`. Its own package, so that the
// root package keeps no dependencies: only an app that uses swift-log depends on this one.

let package = Package(
  name: "ReduceSwiftLog",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "ReduceSwiftLog", targets: ["ReduceSwiftLog"])
  ],
  dependencies: [
    .package(name: "Reduce", path: "../.."),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
  ],
  targets: [
    .target(
      name: "ReduceSwiftLog",
      dependencies: [
        .product(name: "Reduce", package: "Reduce"),
        .product(name: "ReduceLogging", package: "Reduce"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(
      name: "ReduceSwiftLogTests",
      dependencies: [
        "ReduceSwiftLog",
        .product(name: "Reduce", package: "Reduce"),
        .product(name: "ReduceLogging", package: "Reduce"),
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
