/// Data kept in the file beside the value that is not part of the store's state, such as an
/// undo history: read when the value is saved, given back when the file is restored.
///
/// ```swift
/// let history = PersistenceAttachment(
///   key: "undo", save: { undo.historyToSave(of: Document.self) }, restore: undo.restoreHistory)
/// ```
///
/// Attachments are written under the file's `attachments` member, by key. They have no version
/// and no migrations of their own: one that no longer decodes, or whose `restore` throws, is
/// left out, and the failure is kept in ``PersistenceMiddleware/attachmentErrors``; the value is
/// restored all the same.
public struct PersistenceAttachment<Value: Sendable>: Sendable {
  /// The attachment's key in the file.
  public let key: String
  let save: @Sendable () -> (any Encodable & Sendable)?
  let restore: @Sendable (AttachmentDecoder, Value?) throws -> Void

  /// Creates an attachment.
  ///
  /// - Parameters:
  ///   - key: The attachment's key in the file, unique among the attachments.
  ///   - save: Reads the data to save, at each save (on the thread that saves, with no lock of
  ///     the persistence held); nil leaves it out.
  ///   - restore: Given the saved data and the restored value (nil when the value was not
  ///     restored) when the middleware restores the file, before the store exists; throw to
  ///     refuse the data.
  public init<Payload: Codable & Sendable>(
    key: String,
    save: @escaping @Sendable () -> Payload?,
    restore: @escaping @Sendable (Payload, Value?) throws -> Void
  ) {
    self.key = key
    self.save = { save() }
    self.restore = { decoder, value in try restore(decoder.decode(Payload.self), value) }
  }
}
