/// A structural diff of two values built with `Mirror`: the paths that changed, with the old
/// and new values rendered.
///
/// Struct and class fields are compared one by one (`settings.theme`), arrays by index after
/// trimming the common prefix and suffix (so an insertion reads as one added element),
/// dictionaries by key (`scores["ada"]`), optionals through their value, enums with the same case
/// through their payload (`phase.loading.progress`). Sets, and values with their own
/// description, are compared whole. `Equatable` values that are equal are skipped at once.
struct StateDiff {
  let renderer: Renderer
  private(set) var changes: [LogEntry.Change] = []
  static let maximumDepth = 32

  init(renderer: Renderer) {
    self.renderer = renderer
  }

  /// The changes between two values of one type.
  static func changes<Value>(from old: Value, to new: Value, renderer: Renderer)
    -> [LogEntry.Change]
  {
    changes(from: old as Any, to: new as Any, renderer: renderer)
  }

  static func changes(from old: Any, to new: Any, renderer: Renderer) -> [LogEntry.Change] {
    var diff = StateDiff(renderer: renderer)
    diff.compare(old, new, path: "", depth: 0)
    return diff.changes
  }

  private static func join(_ path: String, _ label: String) -> String {
    path.isEmpty ? label : path + "." + label
  }

  private mutating func record(_ path: String, old: Any?, new: Any?) {
    changes.append(
      LogEntry.Change(
        path: path.isEmpty ? "self" : path, old: old.map(renderer.render),
        new: new.map(renderer.render)))
  }

  private mutating func recordHidden(_ path: String, old: Any?, new: Any?) {
    changes.append(
      LogEntry.Change(
        path: path, old: old.map { _ in LogRedaction.placeholder },
        new: new.map { _ in LogRedaction.placeholder }))
  }

  /// Whether two values are the same, by `==` when they are `Equatable`, else structurally.
  private func same(_ old: Any, _ new: Any) -> Bool {
    if let equal = dynamicEquality(old, new) { return equal }
    var scratch = StateDiff(renderer: renderer)
    scratch.compare(old, new, path: "", depth: 0)
    return scratch.changes.isEmpty
  }

  private mutating func compare(_ old: Any, _ new: Any, path: String, depth: Int) {
    guard ObjectIdentifier(type(of: old)) == ObjectIdentifier(type(of: new)) else {
      record(path, old: old, new: new)
      return
    }
    if let leaves = Renderer.compareCommonLeaves(old, new) {
      // What the general path below does for these leaves, without `Mirror` or casts.
      if case .different(let oldText, let newText) = leaves, oldText != newText {
        changes.append(
          LogEntry.Change(path: path.isEmpty ? "self" : path, old: oldText, new: newText))
      }
      return
    }
    if dynamicEquality(old, new) == true { return }
    let oldMirror = Mirror(reflecting: old)
    let newMirror = Mirror(reflecting: new)
    if depth >= Self.maximumDepth || Renderer.isLeaf(old, oldMirror) {
      if renderer.render(old) != renderer.render(new) { record(path, old: old, new: new) }
      return
    }
    switch oldMirror.displayStyle {
    case .optional:
      switch (oldMirror.children.first?.value, newMirror.children.first?.value) {
      case (nil, nil): return
      case (let oldValue?, let newValue?): compare(oldValue, newValue, path: path, depth: depth + 1)
      default: record(path, old: old, new: new)
      }
    case .collection:
      compareElements(
        oldMirror.children.map(\.value), newMirror.children.map(\.value), path: path,
        depth: depth)
    case .dictionary:
      compareEntries(oldMirror, newMirror, path: path, depth: depth)
    case .set:
      if renderer.render(old) != renderer.render(new) { record(path, old: old, new: new) }
    case .enum:
      let oldCase = oldMirror.children.first
      let newCase = newMirror.children.first
      guard let oldCase, let newCase, oldCase.label == newCase.label else {
        if renderer.render(old) != renderer.render(new) { record(path, old: old, new: new) }
        return
      }
      let casePath = Self.join(path, oldCase.label ?? "?")
      if renderer.redactor.hides(oldCase.label ?? "") {
        if !same(oldCase.value, newCase.value) {
          recordHidden(casePath, old: oldCase.value, new: newCase.value)
        }
      } else {
        compare(oldCase.value, newCase.value, path: casePath, depth: depth + 1)
      }
    default:
      // Walked in step, not copied into arrays: each child a mirror yields is built on demand.
      let oldFields = oldMirror.children
      let newFields = newMirror.children
      guard oldFields.count == newFields.count else {
        record(path, old: old, new: new)
        return
      }
      compareFields(oldFields, newFields, path: path, depth: depth)
    }
  }

  private mutating func compareFields(
    _ oldFields: Mirror.Children, _ newFields: Mirror.Children, path: String, depth: Int
  ) {
    for (oldField, newField) in zip(oldFields, newFields) {
      let label = oldField.label.map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 } ?? "?"
      let fieldPath = Self.join(path, label)
      if renderer.redactor.hides(label) {
        if !same(oldField.value, newField.value) {
          recordHidden(fieldPath, old: oldField.value, new: newField.value)
        }
      } else {
        compare(oldField.value, newField.value, path: fieldPath, depth: depth + 1)
      }
    }
  }

  private mutating func compareElements(_ old: [Any], _ new: [Any], path: String, depth: Int) {
    var prefix = 0
    while prefix < old.count, prefix < new.count, same(old[prefix], new[prefix]) { prefix += 1 }
    var suffix = 0
    while suffix < old.count - prefix, suffix < new.count - prefix,
      same(old[old.count - 1 - suffix], new[new.count - 1 - suffix])
    {
      suffix += 1
    }
    let oldMiddle = old.count - prefix - suffix
    let newMiddle = new.count - prefix - suffix
    for offset in 0..<min(oldMiddle, newMiddle) {
      let index = prefix + offset
      compare(old[index], new[index], path: path + "[\(index)]", depth: depth + 1)
    }
    if newMiddle > oldMiddle {
      for index in (prefix + oldMiddle)..<(prefix + newMiddle) {
        record(path + "[\(index)]", old: nil, new: new[index])
      }
    } else if oldMiddle > newMiddle {
      for index in (prefix + newMiddle)..<(prefix + oldMiddle) {
        record(path + "[\(index)]", old: old[index], new: nil)
      }
    }
  }

  private mutating func compareEntries(_ old: Mirror, _ new: Mirror, path: String, depth: Int) {
    func entries(_ mirror: Mirror) -> [String: (key: Any, value: Any)] {
      var result: [String: (key: Any, value: Any)] = [:]
      for child in mirror.children {
        let pair = Mirror(reflecting: child.value).children.map(\.value)
        guard pair.count == 2 else { continue }
        result[renderer.render(pair[0])] = (pair[0], pair[1])
      }
      return result
    }
    let oldEntries = entries(old)
    let newEntries = entries(new)
    for key in Set(oldEntries.keys).union(newEntries.keys).sorted() {
      let entryPath = path + "[\(key)]"
      let oldEntry = oldEntries[key]
      let newEntry = newEntries[key]
      let keyValue = (oldEntry ?? newEntry)?.key
      let hidden = (keyValue as? String).map(renderer.redactor.hides) ?? false
      switch (oldEntry, newEntry) {
      case (let oldEntry?, let newEntry?):
        if hidden {
          if !same(oldEntry.value, newEntry.value) {
            recordHidden(entryPath, old: oldEntry.value, new: newEntry.value)
          }
        } else {
          compare(oldEntry.value, newEntry.value, path: entryPath, depth: depth + 1)
        }
      case (let oldEntry?, nil):
        if hidden {
          recordHidden(entryPath, old: oldEntry.value, new: nil)
        } else {
          record(entryPath, old: oldEntry.value, new: nil)
        }
      case (nil, let newEntry?):
        if hidden {
          recordHidden(entryPath, old: nil, new: newEntry.value)
        } else {
          record(entryPath, old: nil, new: newEntry.value)
        }
      case (nil, nil): break
      }
    }
  }
}
