/// A binary min-heap: the smallest element is at the top.
///
/// - Complexity: `push` and `popMin` are O(log n); `min` is O(1).
struct DeadlineHeap<Element: Comparable> {
  private(set) var elements: [Element] = []

  var count: Int { elements.count }
  var min: Element? { elements.first }

  init() {}

  /// Builds a heap from elements in any order, in O(n).
  init(_ elements: [Element]) {
    self.elements = elements
    var index = elements.count / 2
    while index > 0 {
      index -= 1
      siftDown(from: index)
    }
  }

  mutating func push(_ element: Element) {
    elements.append(element)
    siftUp(from: elements.count - 1)
  }

  @discardableResult
  mutating func popMin() -> Element? {
    guard !elements.isEmpty else { return nil }
    elements.swapAt(0, elements.count - 1)
    let smallest = elements.removeLast()
    if !elements.isEmpty { siftDown(from: 0) }
    return smallest
  }

  private mutating func siftUp(from start: Int) {
    var child = start
    while child > 0 {
      let parent = (child - 1) / 2
      guard elements[child] < elements[parent] else { return }
      elements.swapAt(child, parent)
      child = parent
    }
  }

  private mutating func siftDown(from start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      guard left < elements.count else { return }
      let right = left + 1
      var smallest = left
      if right < elements.count, elements[right] < elements[left] { smallest = right }
      guard elements[smallest] < elements[parent] else { return }
      elements.swapAt(parent, smallest)
      parent = smallest
    }
  }
}

extension DeadlineHeap: Sendable where Element: Sendable {}
