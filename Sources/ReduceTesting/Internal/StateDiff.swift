/// A readable structural diff of two values, built with `Mirror`.
///
/// Each difference names its path in the value and shows the expected value after `−` and the
/// actual value after `+`:
///
/// ```
///   .todos[1].title
///     − "Milk"
///     + "Oat milk"
/// ```
enum StateDiff {
  /// The most differences listed; the rest are counted.
  static let limit = 20
  /// How deep the diff descends before it compares whole values.
  static let maxDepth = 24

  /// The lines of the diff of `expected` and `actual`, or an empty array when their reflections
  /// do not differ.
  static func lines(expected: Any, actual: Any) -> [String] {
    var differences: [(path: String, expected: String?, actual: String?)] = []
    walk(expected, actual, path: "", depth: 0) { differences.append(($0, $1, $2)) }
    var lines: [String] = []
    for difference in differences.prefix(limit) {
      lines.append("  " + (difference.path.isEmpty ? "(the whole state)" : difference.path))
      lines.append("    − " + (difference.expected ?? "(nothing)"))
      lines.append("    + " + (difference.actual ?? "(nothing)"))
    }
    if differences.count > limit {
      lines.append("  … and \(differences.count - limit) more differences")
    }
    return lines
  }

  private typealias Report = (String, String?, String?) -> Void

  private static func walk(
    _ expected: Any, _ actual: Any, path: String, depth: Int, _ report: Report
  ) {
    let left = Mirror(reflecting: expected)
    let right = Mirror(reflecting: actual)
    func whole() {
      let (e, a) = (describe(expected), describe(actual))
      if e != a { report(path, e, a) }
    }
    guard depth < maxDepth, left.subjectType == right.subjectType,
      left.displayStyle == right.displayStyle, !(left.children.isEmpty && right.children.isEmpty)
    else {
      whole()
      return
    }
    switch left.displayStyle {
    case .collection?:
      let (l, r) = (Array(left.children), Array(right.children))
      for index in 0..<max(l.count, r.count) {
        let childPath = "\(path)[\(index)]"
        switch (index < l.count ? l[index].value : nil, index < r.count ? r[index].value : nil) {
        case (let e?, let a?): walk(e, a, path: childPath, depth: depth + 1, report)
        case (let e?, nil): report(childPath, describe(e), nil)
        case (nil, let a?): report(childPath, nil, describe(a))
        case (nil, nil): break
        }
      }
    case .dictionary?:
      let (l, r) = (entries(left), entries(right))
      for key in Set(l.keys).union(r.keys).sorted() {
        let childPath = "\(path)[\(key)]"
        switch (l[key], r[key]) {
        case (let e?, let a?): walk(e, a, path: childPath, depth: depth + 1, report)
        case (let e?, nil): report(childPath, describe(e), nil)
        case (nil, let a?): report(childPath, nil, describe(a))
        case (nil, nil): break
        }
      }
    case .set?:
      let (l, r) = (
        left.children.map { describe($0.value) }, right.children.map { describe($0.value) }
      )
      for removed in Set(l).subtracting(r).sorted() { report("\(path){}", removed, nil) }
      for added in Set(r).subtracting(l).sorted() { report("\(path){}", nil, added) }
    case .enum?, .optional?:
      // A different case (or nil against a value) is one whole difference.
      guard left.children.first?.label == right.children.first?.label,
        let e = left.children.first, let a = right.children.first
      else {
        whole()
        return
      }
      let childPath = left.displayStyle == .optional ? path : "\(path).\(e.label ?? "")"
      walk(e.value, a.value, path: childPath, depth: depth + 1, report)
    default:
      // Structs, classes and tuples: by label, in declaration order.
      let (l, r) = (Array(left.children), Array(right.children))
      guard l.count == r.count, zip(l, r).allSatisfy({ $0.label == $1.label }) else {
        whole()
        return
      }
      for (index, (e, a)) in zip(l, r).enumerated() {
        let label = e.label.map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 } ?? "\(index)"
        walk(e.value, a.value, path: "\(path).\(label)", depth: depth + 1, report)
      }
    }
  }

  /// A dictionary's entries by the description of their keys.
  private static func entries(_ mirror: Mirror) -> [String: Any] {
    var result: [String: Any] = [:]
    for child in mirror.children {
      let pair = Array(Mirror(reflecting: child.value).children)
      guard pair.count == 2 else { continue }
      result[describe(pair[0].value)] = pair[1].value
    }
    return result
  }

  /// A value as the diff shows it: strings quoted, everything else as it describes itself.
  static func describe(_ value: Any) -> String {
    switch value {
    case is String, is Substring, is Character: String(reflecting: value)
    default: String(describing: value)
    }
  }
}
