/// SHA-256 (FIPS 180-4), written here so that the package needs no third-party dependency.
///
/// One call hashes a whole message (``hex(of:)``): the logs hash one line at a time. Checked
/// against the NIST example vectors in the tests.
///
/// The message schedule and the padded tail live in one temporary (stack) allocation per
/// message, and the message's whole blocks are read where they are. The rounds go eight at a
/// time, each naming the working variables in its own order, so that no round shuffles eight
/// values into place (FIPS 180-4 §6.2.2 step 3 renames them, which costs nothing written this
/// way). Measured on an audited dispatch, whose line is five blocks with its padding: about
/// 3,850 instructions a block with a loop of one round that moves the eight variables along,
/// about 2,700 now.
enum SHA256 {
  private static let roundConstants: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4,
    0xab1c_5ed5, 0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe,
    0x9bdc_06a7, 0xc19b_f174, 0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f,
    0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da, 0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7,
    0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967, 0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc,
    0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85, 0xa2bf_e8a1, 0xa81a_664b,
    0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070, 0x19a4_c116,
    0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7,
    0xc671_78f2,
  ]

  private typealias Words = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

  private static let initialHash: Words = (
    0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab,
    0x5be0_cd19
  )

  /// A digest: eight words, the first the most significant.
  ///
  /// A value of fixed size, compared and kept without an allocation; its hexadecimal text is
  /// made only where it is written (``appendHex(to:)``) or asked for (``hex``). A chained
  /// writer keeps the last line's digest so: making a `String` of it for every entry, then
  /// escaping that into the next line, cost about 1,400 instructions per entry.
  struct Digest: Hashable, Sendable {
    var words: SIMD8<UInt32>

    /// The genesis value of a chain: 64 zeros in hexadecimal (``AuditLog/genesisHash``).
    static let zero = Digest(words: .zero)

    /// The lowercase hexadecimal text, most significant byte first.
    var hex: String {
      String(unsafeUninitializedCapacity: 64) { text in
        writeHex(into: UnsafeMutableRawBufferPointer(text))
        return 64
      }
    }

    /// Appends the 64 lowercase hexadecimal digits, as ``hex`` spells them.
    func appendHex(to bytes: inout some ByteOutput) {
      // Formed in 64 bytes on the stack, then appended at once.
      var digits: (SIMD32<UInt8>, SIMD32<UInt8>) = (.zero, .zero)
      withUnsafeMutableBytes(of: &digits) { buffer in
        writeHex(into: buffer)
        bytes.append(bytes: UnsafeRawBufferPointer(buffer))
      }
    }

    /// Writes the digits into the first 64 bytes of `text`.
    private func writeHex(into text: UnsafeMutableRawBufferPointer) {
      for position in 0..<8 {
        let digits = Digest.hexDigits(of: words[position])
        text.storeBytes(of: digits.littleEndian, toByteOffset: position &* 8, as: UInt64.self)
      }
    }

    /// The eight hexadecimal digits of a word, most significant first, as the bytes of an
    /// integer from its least significant byte up.
    ///
    /// Worked on all eight at once, in one 64-bit integer (no digit carries into the next
    /// byte): about 20 instructions a word, where a loop over its digits took about 60, and
    /// the same in `SIMD8` operations about 160.
    private static func hexDigits(of word: UInt32) -> UInt64 {
      // Each nibble into a byte of its own, the least significant nibble in the lowest byte.
      var nibbles = UInt64(word)
      nibbles = (nibbles | nibbles << 16) & 0x0000_ffff_0000_ffff
      nibbles = (nibbles | nibbles << 8) & 0x00ff_00ff_00ff_00ff
      nibbles = (nibbles | nibbles << 4) & 0x0f0f_0f0f_0f0f_0f0f
      // The most significant first.
      nibbles = nibbles.byteSwapped
      // 1 in each byte whose nibble is 10 or more: adding 6 carries into its bit 4.
      let letters = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
      // "0" + nibble, and from "9" + 1 on to "a": 39 more.
      return nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 39
    }
  }

  /// The lowercase hexadecimal digest of some bytes.
  static func hex(of bytes: some Sequence<UInt8>) -> String {
    digest(of: bytes).hex
  }

  /// The digest of bytes in memory.
  static func digest(of bytes: UnsafeRawBufferPointer) -> Digest {
    let hash = words(of: bytes)
    return Digest(words: SIMD8(hash.0, hash.1, hash.2, hash.3, hash.4, hash.5, hash.6, hash.7))
  }

  /// The digest of some bytes.
  static func digest(of bytes: some Sequence<UInt8>) -> Digest {
    bytes.withContiguousStorageIfAvailable { digest(of: UnsafeRawBufferPointer($0)) }
      ?? Array(bytes).withUnsafeBytes { digest(of: $0) }
  }

  /// The digest of a message, as eight words.
  private static func words(of message: UnsafeRawBufferPointer) -> Words {
    // 64 words of schedule, then 32 words (128 bytes) for the padded last one or two blocks.
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 96) { scratch in
      roundConstants.withUnsafeBufferPointer { constants in
        let schedule = UnsafeMutableBufferPointer(rebasing: scratch[0..<64])
        var hash = initialHash
        let whole = message.count / 64 * 64
        var offset = 0
        while offset < whole {
          let block = UnsafeRawBufferPointer(rebasing: message[offset..<(offset + 64)])
          compress(block, into: &hash, schedule: schedule, constants: constants)
          offset += 64
        }
        // The tail, the 0x80 byte, zeros, and the message's length in bits (big-endian).
        let tail = UnsafeMutableRawBufferPointer(
          UnsafeMutableBufferPointer(rebasing: scratch[64...]))
        let rest = message.count - whole
        let padded = rest < 56 ? 64 : 128
        tail.initializeMemory(as: UInt8.self, repeating: 0)
        if rest > 0 {
          tail.copyMemory(from: UnsafeRawBufferPointer(rebasing: message[whole...]))
        }
        tail[rest] = 0x80
        let bits = UInt64(message.count) &* 8
        tail.storeBytes(of: bits.bigEndian, toByteOffset: padded - 8, as: UInt64.self)
        var start = 0
        while start < padded {
          let block = UnsafeRawBufferPointer(rebasing: tail[start..<(start + 64)])
          compress(block, into: &hash, schedule: schedule, constants: constants)
          start += 64
        }
        return hash
      }
    }
  }

  private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
    (value &>> count) | (value &<< (32 &- count))
  }

  /// One round (FIPS 180-4 §6.2.2 step 3), for the working variables named in this round's
  /// order: `d` and `h` are the two that change (`d + T1` becomes the next `e`, `T1 + T2` the
  /// next `a`); the next round passes the same variables one place along.
  private static func round(
    _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
    _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ constantPlusWord: UInt32
  ) {
    // Σ1(e) = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25), and Σ0(a) = rotate(a, 2) ^
    // rotate(a, 13) ^ rotate(a, 22), with the rotations nested: three rotations of one value
    // in turn, rather than three copies of it rotated apart.
    let sum1 = rotate(e ^ rotate(e ^ rotate(e, 14), 5), 6)
    let choice = g ^ (e & (f ^ g))  // (e & f) ^ (~e & g)
    let temp1 = h &+ sum1 &+ choice &+ constantPlusWord
    let sum0 = rotate(a ^ rotate(a ^ rotate(a, 9), 11), 2)
    let majority = (a & (b | c)) | (b & c)  // (a & b) ^ (a & c) ^ (b & c)
    d = d &+ temp1
    h = temp1 &+ sum0 &+ majority
  }

  /// Compresses one 64-byte block into the hash.
  private static func compress(
    _ bytes: UnsafeRawBufferPointer, into state: inout Words,
    schedule: UnsafeMutableBufferPointer<UInt32>, constants: UnsafeBufferPointer<UInt32>
  ) {
    for index in 0..<16 {
      schedule[index] = UInt32(
        bigEndian: bytes.loadUnaligned(fromByteOffset: index &* 4, as: UInt32.self))
    }
    for index in 16..<64 {
      let w15 = schedule[index - 15]
      let w2 = schedule[index - 2]
      let sigma0 = rotate(w15, 7) ^ rotate(w15, 18) ^ (w15 >> 3)
      let sigma1 = rotate(w2, 17) ^ rotate(w2, 19) ^ (w2 >> 10)
      schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
    }
    var (a, b, c, d, e, f, g, h) = state
    var index = 0
    while index < 64 {
      func input(_ offset: Int) -> UInt32 {
        constants[index &+ offset] &+ schedule[index &+ offset]
      }
      round(a, b, c, &d, e, f, g, &h, input(0))
      round(h, a, b, &c, d, e, f, &g, input(1))
      round(g, h, a, &b, c, d, e, &f, input(2))
      round(f, g, h, &a, b, c, d, &e, input(3))
      round(e, f, g, &h, a, b, c, &d, input(4))
      round(d, e, f, &g, h, a, b, &c, input(5))
      round(c, d, e, &f, g, h, a, &b, input(6))
      round(b, c, d, &e, f, g, h, &a, input(7))
      index &+= 8
    }
    state = (
      state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f,
      state.6 &+ g, state.7 &+ h
    )
  }
}
