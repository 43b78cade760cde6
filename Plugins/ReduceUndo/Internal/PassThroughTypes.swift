import Reduce
import Synchronization

/// The action types an ``UndoMiddleware`` found to be ordinary actions (neither an
/// ``UndoAction`` nor a `Batch`) whatever the action's value, so that the next action of such a
/// type skips the dynamic casts that decided it.
///
/// Deciding an action costs two casts from `any Action` (several hundred instructions each);
/// looking its type up here costs a load and a compare. Eight slots, picked by bits of the
/// type's identity: a type that collides with another takes its slot over, and the one it
/// displaced is decided by the casts again next time. Slots hold metadata addresses, which live
/// as long as the process, and are read and written with relaxed atomics: a stale read only
/// sends an action down the slow path.
final class PassThroughTypes: Sendable {
  private let slot0 = Atomic<UInt>(0)
  private let slot1 = Atomic<UInt>(0)
  private let slot2 = Atomic<UInt>(0)
  private let slot3 = Atomic<UInt>(0)
  private let slot4 = Atomic<UInt>(0)
  private let slot5 = Atomic<UInt>(0)
  private let slot6 = Atomic<UInt>(0)
  private let slot7 = Atomic<UInt>(0)

  /// The key of an action's type.
  @inline(__always)
  static func key(of action: any Action) -> UInt {
    UInt(bitPattern: ObjectIdentifier(type(of: action)))
  }

  /// Whether actions of the type with this key were remembered as passed on untouched.
  @inline(__always)
  func contains(_ key: UInt) -> Bool {
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

  /// Remembers the type of an ordinary action, when its type alone decided that.
  ///
  /// A class (a subclass may be handled differently, and classes bridge on Darwin), an
  /// optional (a cast looks through it, so its value decides) and `AnyHashable` (a cast looks
  /// through it too) are not remembered.
  func insert(typeOf action: any Action) {
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
}

extension PassThroughTypes {
  /// Whether a cast from a value of this type, or to it, is decided by the type alone: a value
  /// of a plain type is an instance of another plain type only when the two types are the same.
  ///
  /// Not plain: classes (subclasses, bridging on Darwin), optionals and `AnyHashable` (casts
  /// look through them), and collections (an array casts element by element, an empty one to
  /// any array type).
  static func isPlain(_ type: Any.Type) -> Bool {
    !(type is AnyObject.Type) && !(type is any OptionalMarker.Type)
      && ObjectIdentifier(type) != ObjectIdentifier(AnyHashable.self)
      && !(type is any Collection.Type)
  }
}

/// Marks `Optional`, whose casts depend on its value.
protocol OptionalMarker {}

extension Optional: OptionalMarker {}
