import ReduceLogging
import Testing

@Suite struct SHA256Tests {
  struct Vector: Sendable, CustomTestStringConvertible {
    let name: String
    let message: [UInt8]
    let digest: String
    var testDescription: String { name }
  }

  // FIPS 180-4 / NIST CSRC example values for SHA-256.
  static let vectors = [
    Vector(
      name: "empty", message: [],
      digest: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    Vector(
      name: "abc", message: Array("abc".utf8),
      digest: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    Vector(
      name: "448 bits",
      message: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
      digest: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    Vector(
      name: "896 bits",
      message: Array(
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
          + "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu").utf8),
      digest: "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    Vector(
      name: "one million a", message: [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000),
      digest: "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
  ]

  @Test("the digest matches the published NIST vector", arguments: vectors)
  func nistVector(_ vector: Vector) {
    #expect(AuditLog.hash(ofLine: vector.message) == vector.digest)
  }

  // Lengths where the padding spills into a second block, or just does not (checked against
  // coreutils' sha256sum).
  @Test(
    "messages at the padding boundaries hash as sha256sum does",
    arguments: [
      (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
      (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
      (63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
      (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
      (65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
      (119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
      (120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
    ])
  func paddingBoundary(length: Int, digest: String) {
    #expect(AuditLog.hash(ofLine: [UInt8](repeating: UInt8(ascii: "a"), count: length)) == digest)
  }

  @Test("the genesis value is 64 zeros")
  func genesis() {
    #expect(AuditLog.genesisHash == String(repeating: "0", count: 64))
  }
}
