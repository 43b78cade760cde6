#!/usr/bin/env bash
# Builds, in release, a package of its own that depends on this one by path and uses every
# library product, as an app would: code inlined from the package into a client (the dispatch
# path, the plugins' initialisers) is compiled there, and only a client's build can show that it
# compiles. It once did not: an inlinable initialiser of UndoMiddleware set private properties,
# and the compiler stopped with "Global is external, but doesn't have external or weak linkage".
# It then builds and runs the package's `reduce-audit` executable product from the client.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sources/Consumer"
cat >"$work/Package.swift" <<MANIFEST
// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "Consumer",
  platforms: [.macOS(.v15)],
  dependencies: [.package(name: "Reduce", path: "$root")],
  targets: [
    .executableTarget(
      name: "Consumer",
      dependencies: [
        .product(name: "Reduce", package: "Reduce"),
        .product(name: "ReduceLogging", package: "Reduce"),
        .product(name: "ReducePersistence", package: "Reduce"),
        .product(name: "ReduceTesting", package: "Reduce"),
        .product(name: "ReduceThrottle", package: "Reduce"),
        .product(name: "ReduceThunk", package: "Reduce"),
        .product(name: "ReduceUndo", package: "Reduce"),
      ])
  ],
  swiftLanguageModes: [.v6]
)
MANIFEST
cat >"$work/Sources/Consumer/main.swift" <<'SOURCE'
import Foundation
import Reduce
import ReduceLogging
import ReducePersistence
import ReduceTesting
import ReduceThrottle
import ReduceThunk
import ReduceUndo

struct AppState: Equatable, Sendable {
  var count = 0
  var title = ""
}
let statePath = NSTemporaryDirectory() + "/reduce-consumer-\(getpid()).json"
let persistence = try PersistenceMiddleware<AppState, String>(
  file: statePath, scope: \AppState.title)

enum AppAction: Action {
  case incremented
  case titled(String)
}

let count = Mutator(\AppState.count) { (count: inout Int, action: AppAction) in
  if case .incremented = action { count += 1 }
}
let title = Mutator(\AppState.title) { (title: inout String, action: AppAction) in
  if case .titled(let text) = action { title = text }
}
let store = try Store(
  initialState: AppState(), mutators: [count, title],
  middleware: [
    ThunkMiddleware<AppState, Void>(),
    try ThrottleMiddleware<AppState>(rules: [.debounce(AppAction.self, for: .milliseconds(10))]),
    LoggingMiddleware<AppState>(format: .jsonLines, sink: .standardError),
    try UndoMiddleware<AppState>(scope: \.title),
    persistence,
  ])
store.dispatch(Batch([AppAction.incremented, AppAction.incremented]))
store.dispatch(Thunk<AppState, Void> { context in context.dispatch(AppAction.titled("a")) })
store.dispatch(UndoAction.undo)
let recorder = RecordingMiddleware<AppState>()
_ = recorder
let state = await store.send(AppAction.incremented)
print("consumer:", (try? state.get())?.count ?? -1)
if try persistence.flush() { try FileManager.default.removeItem(atPath: statePath) }
SOURCE
swift build -c release --package-path "$work" >&2
"$work/.build/release/Consumer"
# The `reduce-audit` executable product, built and run from the client, as a server's operator
# would check its audit log with `swift run reduce-audit verify audit.log`.
swift build -c release --package-path "$work" --product reduce-audit >&2
"$work/.build/release/reduce-audit" --help >/dev/null
