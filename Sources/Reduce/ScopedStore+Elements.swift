import Synchronization

// Scopes into one element of a collection: by identity, by position, or by a dictionary's key.
// Each gives an optional substate, `nil` while the element is not there, so that a view of a row
// whose row was removed (by an action, an undo, a `ReplaceState`) reads `nil` instead of
// stopping the program.

extension ScopedStore {
  /// A scope of the element with the given identity in a collection of this substate.
  ///
  /// The scope follows the element when it moves, and reads `nil` while no element has the
  /// identity: after a removal, an undo of its insertion, or a `ReplaceState` without it. It
  /// reads the element again if one with the identity comes back. Its observers are told each
  /// change, `nil` included; its async sequences go on through the element's absence.
  ///
  /// ```swift
  /// let column = board.scope(\.columns, id: columnID)  // ScopedStore<Column?>
  /// let title = column.scope(\.?.title)                // ScopedStore<String?>
  /// ```
  ///
  /// - Parameters:
  ///   - elements: The collection's path in this substate.
  ///   - id: The identity of the element.
  /// - Returns: The scoped store of the element, `nil` while it is not in the collection.
  /// - Complexity: A read is O(1) while the element stays where it was last found, and O(*n*)
  ///   in the collection's length once it moved or while it is gone.
  public func scope<Elements: RandomAccessCollection & Sendable>(
    _ elements: KeyPath<State, Elements> & Sendable, id: Elements.Element.ID
  ) -> ScopedStore<Elements.Element?>
  where Elements.Element: Identifiable & Sendable, Elements.Element.ID: Sendable {
    let locator = ElementLocator<Elements>(id: id)
    return ScopedStore<Elements.Element?>(
      scope: scope.scoped(through: elements) { locator.element(in: $0) })
  }

  /// A scope of the element at a position in a collection of this substate.
  ///
  /// The scope reads whatever element is at the position, and `nil` while the collection has no
  /// such position (it became shorter). Prefer ``scope(_:id:)`` for elements that move: a
  /// position does not follow its element.
  ///
  /// A key path through a subscript, `scope(\.columns[2])`, is evaluated by Swift itself and
  /// stops the program when the position is gone, as `columns[2]` would: use this form for
  /// a collection that can shrink.
  ///
  /// - Parameters:
  ///   - elements: The collection's path in this substate.
  ///   - index: The position.
  /// - Returns: The scoped store of the element, `nil` while the position is out of range.
  public func scope<Elements: RandomAccessCollection & Sendable>(
    _ elements: KeyPath<State, Elements> & Sendable, index: Elements.Index
  ) -> ScopedStore<Elements.Element?>
  where Elements.Element: Sendable, Elements.Index: Sendable {
    ScopedStore<Elements.Element?>(
      scope: scope.scoped(through: elements) { collection in
        collection.startIndex <= index && index < collection.endIndex ? collection[index] : nil
      })
  }

  /// A scope of the value under one key of a dictionary in this substate.
  ///
  /// The scope reads `nil` while the dictionary has no value for the key. (`scope(\.cards[key])`
  /// is the same scope: a dictionary's subscript never stops the program.)
  ///
  /// - Parameters:
  ///   - dictionary: The dictionary's path in this substate.
  ///   - key: The key.
  /// - Returns: The scoped store of the value, `nil` while the key has none.
  public func scope<Key: Hashable & Sendable, Value: Sendable>(
    _ dictionary: KeyPath<State, [Key: Value]> & Sendable, key: Key
  ) -> ScopedStore<Value?> {
    ScopedStore<Value?>(scope: scope.scoped(through: dictionary) { $0[key] })
  }
}

extension Store {
  /// A scope of the element with the given identity in a collection of the state.
  ///
  /// The scope follows the element when it moves, and reads `nil` while no element has the
  /// identity (see ``ScopedStore/scope(_:id:)``).
  ///
  /// - Parameters:
  ///   - elements: The collection's path.
  ///   - id: The identity of the element.
  /// - Returns: The scoped store of the element, `nil` while it is not in the collection.
  /// - Complexity: A read is O(1) while the element stays where it was last found, and O(*n*)
  ///   in the collection's length once it moved or while it is gone.
  public func scope<Elements: RandomAccessCollection & Sendable>(
    _ elements: KeyPath<State, Elements> & Sendable, id: Elements.Element.ID
  ) -> ScopedStore<Elements.Element?>
  where Elements.Element: Identifiable & Sendable, Elements.Element.ID: Sendable {
    ScopedStore(self).scope(elements, id: id)
  }

  /// A scope of the element at a position in a collection of the state, `nil` while the
  /// collection has no such position (see ``ScopedStore/scope(_:index:)``).
  ///
  /// - Parameters:
  ///   - elements: The collection's path.
  ///   - index: The position.
  /// - Returns: The scoped store of the element, `nil` while the position is out of range.
  public func scope<Elements: RandomAccessCollection & Sendable>(
    _ elements: KeyPath<State, Elements> & Sendable, index: Elements.Index
  ) -> ScopedStore<Elements.Element?>
  where Elements.Element: Sendable, Elements.Index: Sendable {
    ScopedStore(self).scope(elements, index: index)
  }

  /// A scope of the value under one key of a dictionary in the state, `nil` while the
  /// dictionary has no value for the key.
  ///
  /// - Parameters:
  ///   - dictionary: The dictionary's path.
  ///   - key: The key.
  /// - Returns: The scoped store of the value, `nil` while the key has none.
  public func scope<Key: Hashable & Sendable, Value: Sendable>(
    _ dictionary: KeyPath<State, [Key: Value]> & Sendable, key: Key
  ) -> ScopedStore<Value?> {
    ScopedStore(self).scope(dictionary, key: key)
  }
}

/// Finds an element by its identity, looking first where it was found last.
///
/// The position found last is only where the search starts: the element returned always has the
/// identity, wherever it now is.
final class ElementLocator<Elements: RandomAccessCollection>: Sendable
where Elements.Element: Identifiable, Elements.Element.ID: Sendable {
  let id: Elements.Element.ID
  /// The element's distance from the collection's start when it was last found.
  private let lastOffset = Atomic<Int>(0)

  init(id: Elements.Element.ID) {
    self.id = id
  }

  func element(in elements: Elements) -> Elements.Element? {
    let offset = lastOffset.load(ordering: .relaxed)
    if offset < elements.count {
      let element = elements[elements.index(elements.startIndex, offsetBy: offset)]
      if element.id == id { return element }
    }
    guard let index = elements.firstIndex(where: { $0.id == id }) else { return nil }
    lastOffset.store(elements.distance(from: elements.startIndex, to: index), ordering: .relaxed)
    return elements[index]
  }
}
