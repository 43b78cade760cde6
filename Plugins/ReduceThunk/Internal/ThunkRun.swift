import Reduce

/// One async thunk in flight: its task, whether it was cancelled, and what to do on cancel.
///
/// The task is attached after the run is registered, so a cancellation that comes first is
/// remembered and applied to the task as soon as it is attached.
final class ThunkRun: Sendable {
  private struct Storage {
    var task: Task<Void, Never>?
    var isCancelled = false
    var onCancel: (@Sendable () -> Void)?
  }

  private let storage: Locked<Storage>

  /// Creates a run.
  ///
  /// - Parameter onCancel: Called once, outside the lock, when the run is cancelled (finishes
  ///   an awaiting `perform` with `CancellationError`).
  init(onCancel: (@Sendable () -> Void)?) {
    storage = Locked(Storage(onCancel: onCancel))
  }

  /// Whether the run was cancelled.
  var isCancelled: Bool { storage.withLock { $0.isCancelled } }

  /// Gives the run its task; cancels the task at once when the run was already cancelled.
  func attach(_ task: Task<Void, Never>) {
    let cancelled = storage.withLock { storage in
      if !storage.isCancelled { storage.task = task }
      return storage.isCancelled
    }
    if cancelled { task.cancel() }
  }

  /// Cancels the run: its task, and its awaiting `perform`.
  ///
  /// Calling it again does nothing.
  func cancel() {
    let (task, onCancel) = storage.withLock { storage in
      guard !storage.isCancelled else {
        return (Task<Void, Never>?.none, (@Sendable () -> Void)?.none)
      }
      storage.isCancelled = true
      defer {
        storage.task = nil
        storage.onCancel = nil
      }
      return (storage.task, storage.onCancel)
    }
    task?.cancel()
    onCancel?()
  }

  /// Forgets the task and the cancel action once the body has returned (breaks the cycle
  /// between a run and its `perform` call).
  func finish() {
    storage.withLock { storage in
      storage.task = nil
      storage.onCancel = nil
    }
  }
}
