import Foundation
import Reduce
import Testing

/// What another thread read of the store while a middleware or an observer waited for it.
struct MetadataRead: Equatable, Sendable {
  var keys: [MutatorKey]
  var names: [String]
  var counter: Int
}

/// Reads the store's keys, middleware names and state on another thread, and waits for it: nil
/// when the read did not finish within the time limit.
func readOnAnotherThread(_ box: StoreBox) -> MetadataRead? {
  let done = DispatchSemaphore(value: 0)
  let read = Box<MetadataRead?>(nil)
  let thread = Thread {
    if let store = box.store {
      read.value = MetadataRead(
        keys: store.mutatorKeys, names: store.middlewareNames, counter: store.state.counter)
    }
    done.signal()
  }
  thread.start()
  guard done.wait(timeout: .now() + .seconds(10)) == .success else { return nil }
  return read.value
}

@Suite struct MetadataReadTests {
  @Test("a middleware that waits for another thread reading the keys and names is not blocked")
  func fromMiddleware() throws {
    let box = StoreBox()
    let seen = Probe<MetadataRead?>()
    let waiting = AnyMiddleware<TestState>(name: "waiting") { action, _, next in
      seen.append(readOnAnotherThread(box))
      try next(action)
    }
    let store = try makeStore(middleware: [waiting])
    box.store = store
    store.dispatch(Increment(by: 2))
    #expect(
      seen.values == [MetadataRead(keys: ["\\TestState.counter"], names: ["waiting"], counter: 0)])
  }

  @Test("an observer that waits for another thread reading the keys and names is not blocked")
  func fromObserver() throws {
    let box = StoreBox()
    let store = try makeStore(middleware: [AnyMiddleware(name: "pass") { try $2($0) }])
    box.store = store
    let seen = Probe<MetadataRead?>()
    let subscription = store.subscribe(to: \.counter, initial: false) { _ in
      seen.append(readOnAnotherThread(box))
    }
    store.dispatch(Increment(by: 3))
    #expect(
      seen.values == [MetadataRead(keys: ["\\TestState.counter"], names: ["pass"], counter: 3)])
    subscription.cancel()
  }
}
