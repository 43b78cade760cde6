/// Reads a key path's description back against the state's `Mirror`.
enum PropertyPath {
  /// What a key path's description says about it.
  struct Resolution {
    /// The top-level stored property the path starts with, when the description names one.
    var topLevelProperty: String?
    /// Whether the description names every property of the path, the last one holding the
    /// substate: only then can it serve as the mutator's key.
    var isExact: Bool
  }

  /// Reads a description such as `\AppState.doc.title` or `\AppState.draft!.title`.
  ///
  /// The runtime describes a property that shares its offset with a zero-sized neighbour by
  /// the neighbour's name (`\S.counter` as `\S.empty`); when the named top-level property is
  /// zero-sized and the substate is not, the property is the next one that is not zero-sized,
  /// and the description is not exact.
  static func resolve<State>(
    _ description: String, in state: State, isSubstate: (Any) -> Bool
  ) -> Resolution {
    let prefix = "\\\(State.self)."
    guard description.hasPrefix(prefix) else {
      return Resolution(topLevelProperty: nil, isExact: false)
    }
    let names = description.dropFirst(prefix.count).split(
      separator: ".", omittingEmptySubsequences: false
    ).map(String.init)
    guard let firstName = names.first.map(stripUnwrapping) else {
      return Resolution(topLevelProperty: nil, isExact: false)
    }
    let children = Array(Mirror(reflecting: state).children)
    guard var index = children.firstIndex(where: { $0.label == firstName }) else {
      return Resolution(topLevelProperty: nil, isExact: false)
    }
    if names.count == 1, isZeroSized(children[index].value), !isSubstate(children[index].value) {
      // A zero-sized neighbour lent its name: find the property that really starts here.
      index += 1
      while index < children.count, isZeroSized(children[index].value) { index += 1 }
      guard index < children.count, isSubstate(children[index].value) else {
        return Resolution(topLevelProperty: nil, isExact: false)
      }
      return Resolution(topLevelProperty: children[index].label, isExact: false)
    }
    var value: Any? = children[index].value
    for (position, name) in names.enumerated() {
      if position > 0 {
        value = value.flatMap { current in
          Mirror(reflecting: current).children.first { $0.label == stripUnwrapping(name) }?.value
        }
      }
      if name.hasSuffix("!") || name.hasSuffix("?") {
        value = value.flatMap { Mirror(reflecting: $0).children.first?.value }
      }
    }
    let plain = names.allSatisfy { !$0.hasSuffix("!") && !$0.hasSuffix("?") }
    let exact = plain && value.map(isSubstate) == true
    return Resolution(topLevelProperty: firstName, isExact: exact)
  }

  private static func stripUnwrapping(_ name: String) -> String {
    var name = name
    while name.hasSuffix("!") || name.hasSuffix("?") { name.removeLast() }
    return name
  }

  /// Whether a value of this dynamic type occupies no storage.
  static func isZeroSized(_ value: Any) -> Bool {
    func size<T>(of value: T) -> Int { MemoryLayout<T>.size }
    return size(of: value) == 0
  }
}
