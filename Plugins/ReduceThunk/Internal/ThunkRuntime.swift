import Reduce

/// The shared, mutable part of a ``ThunkMiddleware``: the stores it serves and the async thunks
/// in flight in each, by key and cancellation id.
///
/// Decided under the lock, acted on after it: the methods return the runs to cancel, and the
/// caller cancels them (which runs task cancellation handlers, user code) after the lock is
/// released.
final class ThunkRuntime: Sendable {
  private struct Entry {
    let store: ObjectIdentifier
    let id: CancellationID?
    let run: ThunkRun
  }

  private struct Storage {
    var stores: Set<ObjectIdentifier> = []
    var entries: [UInt64: Entry] = [:]
    var lastKey: UInt64 = 0
  }

  private let storage = Locked(Storage())
  /// The executor the thunks' tasks prefer, when one was given (a test's `ManualClock`).
  let executor: (any TaskExecutor)?

  init(executor: (any TaskExecutor)? = nil) {
    self.executor = executor
  }

  /// Whether the middleware serves a store.
  func isAttached(to store: ObjectIdentifier) -> Bool {
    storage.withLock { $0.stores.contains(store) }
  }

  /// Starts serving a store.
  func attach(to store: ObjectIdentifier) {
    _ = storage.withLock { $0.stores.insert(store) }
  }

  /// Stops serving a store and returns its runs in flight, to be cancelled.
  func detach(from store: ObjectIdentifier) -> [ThunkRun] {
    storage.withLock { storage in
      guard storage.stores.remove(store) != nil else { return [] }
      return Self.removeLocked(&storage) { $0.store == store }
    }
  }

  /// Registers a run in a store; returns its key and the runs it replaces (same id,
  /// `cancelInFlight`), or nil when the middleware no longer serves the store.
  func insert(
    _ run: ThunkRun, in store: ObjectIdentifier, id: CancellationID?, cancelInFlight: Bool
  ) -> (key: UInt64, replaced: [ThunkRun])? {
    storage.withLock { storage in
      guard storage.stores.contains(store) else { return nil }
      var replaced: [ThunkRun] = []
      if cancelInFlight, let id {
        replaced = Self.removeLocked(&storage) { $0.store == store && $0.id == id }
      }
      storage.lastKey &+= 1
      storage.entries[storage.lastKey] = Entry(store: store, id: id, run: run)
      return (storage.lastKey, replaced)
    }
  }

  /// Forgets a run whose body returned.
  func remove(_ key: UInt64) {
    _ = storage.withLock { $0.entries.removeValue(forKey: key) }
  }

  /// Removes and returns a store's runs with an id (every run for nil), to be cancelled.
  func take(id: CancellationID?, in store: ObjectIdentifier) -> [ThunkRun] {
    storage.withLock { storage in
      Self.removeLocked(&storage) { entry in
        entry.store == store && (id.map { entry.id == $0 } ?? true)
      }
    }
  }

  private static func removeLocked(_ storage: inout Storage, where matches: (Entry) -> Bool)
    -> [ThunkRun]
  {
    let keys = storage.entries.filter { matches($0.value) }.map(\.key).sorted()
    return keys.compactMap { storage.entries.removeValue(forKey: $0)?.run }
  }
}
