/// HMAC-SHA-256 (RFC 2104, FIPS 198-1) on the package's own ``SHA256``, checked against the
/// RFC 4231 test vectors in the tests.
enum HMAC {
  /// SHA-256's block size in bytes.
  private static let blockSize = 64

  /// The authentication code of a message under a key.
  ///
  /// - Parameters:
  ///   - key: The key; one longer than a block is hashed first.
  ///   - message: The message.
  /// - Returns: The 32 bytes of the code.
  static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var block = key.count > blockSize ? SHA256.digest(of: key).bytes : key
    block += [UInt8](repeating: 0, count: blockSize - block.count)
    let inner = SHA256.digest(of: block.map { $0 ^ 0x36 } + message).bytes
    return SHA256.digest(of: block.map { $0 ^ 0x5c } + inner).bytes
  }

  /// The authentication code in lowercase hexadecimal (64 characters).
  static func hex(key: [UInt8], message: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(64)
    for byte in authenticationCode(key: key, message: message) {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// Compares two codes in time that does not depend on where they differ.
  static func constantTimeEqual(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>)
    -> Bool
  {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
    return difference == 0
  }
}

extension SHA256.Digest {
  /// The digest's 32 bytes, most significant first.
  var bytes: [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(32)
    for index in 0..<8 {
      let word = words[index]
      result += [
        UInt8(word >> 24), UInt8((word >> 16) & 0xff), UInt8((word >> 8) & 0xff),
        UInt8(word & 0xff),
      ]
    }
    return result
  }
}

extension SHA256.Digest {
  /// The digest whose lowercase hexadecimal text is `hex`; nil when it is not 64 such digits.
  init?(hex: String) {
    guard AuditLog.isHash(hex) else { return nil }
    var words = SIMD8<UInt32>.zero
    for (index, byte) in hex.utf8.enumerated() {
      let nibble =
        byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : byte - UInt8(ascii: "a") + 10
      words[index / 8] = words[index / 8] << 4 | UInt32(nibble)
    }
    self.init(words: words)
  }
}
