public import Synchronization

/// A small set of action types a middleware has already decided about, so that the next action
/// of such a type skips the dynamic casts that decided it.
///
/// A plugin's `handle` sees actions as `any Action`; deciding what one is costs casts
/// (several hundred instructions each), while looking its type up here costs a load and a
/// compare. Eight slots, picked by bits of the type's identity: a type that collides with
/// another takes its slot over, and the one it displaced is decided by the casts again next time.
/// Slots hold metadata addresses, which live as long as the process, and are read and written
/// with relaxed atomics: a stale read only sends an action down the slow path.
///
/// It is `package`, shared by the plugins of this package; only types whose answer cannot depend
/// on the value are remembered (see ``isPlain(_:)``).
@usableFromInline
package final class ActionTypeSet: Sendable {
  @usableFromInline let slot0 = Atomic<UInt>(0)
  @usableFromInline let slot1 = Atomic<UInt>(0)
  @usableFromInline let slot2 = Atomic<UInt>(0)
  @usableFromInline let slot3 = Atomic<UInt>(0)
  @usableFromInline let slot4 = Atomic<UInt>(0)
  @usableFromInline let slot5 = Atomic<UInt>(0)
  @usableFromInline let slot6 = Atomic<UInt>(0)
  @usableFromInline let slot7 = Atomic<UInt>(0)

  /// Creates an empty set.
  package init() {}

  /// The key of an action's type.
  ///
  /// The existential is opened rather than asked `type(of:)`, which calls into the runtime: the
  /// type stored with the value is the dynamic type for every plain type (a class instance may
  /// have been boxed as its superclass, but classes are never remembered).
  ///
  /// - Parameter action: The action.
  /// - Returns: Its type's identity, as a number.
  @inlinable @inline(__always)
  package static func key(of action: any Action) -> UInt {
    func typeKey<A: Action>(_: A) -> UInt { UInt(bitPattern: ObjectIdentifier(A.self)) }
    return typeKey(action)
  }

  /// Whether the type with this key was remembered.
  ///
  /// - Parameter key: A key from ``key(of:)``.
  /// - Returns: Whether it is in the set.
  @inlinable @inline(__always)
  package func contains(_ key: UInt) -> Bool {
    switch (key >> 4) & 7 {
    case 0: slot0.load(ordering: .relaxed) == key
    case 1: slot1.load(ordering: .relaxed) == key
    case 2: slot2.load(ordering: .relaxed) == key
    case 3: slot3.load(ordering: .relaxed) == key
    case 4: slot4.load(ordering: .relaxed) == key
    case 5: slot5.load(ordering: .relaxed) == key
    case 6: slot6.load(ordering: .relaxed) == key
    default: slot7.load(ordering: .relaxed) == key
    }
  }

  /// Remembers an action's type, when it is plain: when its type alone decided the answer.
  ///
  /// - Parameter action: An action the middleware has decided about.
  package func insert(typeOf action: any Action) {
    guard Self.isPlain(type(of: action)) else { return }
    let key = Self.key(of: action)
    switch (key >> 4) & 7 {
    case 0: slot0.store(key, ordering: .relaxed)
    case 1: slot1.store(key, ordering: .relaxed)
    case 2: slot2.store(key, ordering: .relaxed)
    case 3: slot3.store(key, ordering: .relaxed)
    case 4: slot4.store(key, ordering: .relaxed)
    case 5: slot5.store(key, ordering: .relaxed)
    case 6: slot6.store(key, ordering: .relaxed)
    default: slot7.store(key, ordering: .relaxed)
    }
  }

  /// Whether a cast from a value of this type, or to it, is decided by the type alone: a value
  /// of a plain type is an instance of another plain type only when the two types are the same.
  ///
  /// Not plain: classes (subclasses, bridging on Darwin), optionals and `AnyHashable` (casts
  /// look through them), and collections (an array casts element by element, an empty one to
  /// any array type).
  ///
  /// - Parameter type: The type.
  /// - Returns: Whether it is plain.
  package static func isPlain(_ type: Any.Type) -> Bool {
    !(type is AnyObject.Type) && !(type is any OptionalMarker.Type)
      && ObjectIdentifier(type) != ObjectIdentifier(AnyHashable.self)
      && !(type is any Collection.Type)
  }
}

/// Marks `Optional`, whose casts depend on its value.
protocol OptionalMarker {}

extension Optional: OptionalMarker {}
