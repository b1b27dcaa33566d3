import BiometricsVaultCore
import Testing

struct EnvelopeTests {
    static let headers: [ItemHeader] = [
        ItemHeader(protection: .none),
        ItemHeader(protection: .protected(.biometryCurrentSet), enrollment: EnrollmentFingerprint("abc123")),
        ItemHeader(protection: .protected(.biometryAny)),
        ItemHeader(protection: .protected(.userPresence)),
        ItemHeader(protection: .protected(.devicePasscode)),
    ]

    @Test(arguments: headers)
    func envelopeRoundTrips(_ header: ItemHeader) throws {
        let item = StoredItem(header: header, payload: SecretBytes(utf8: "{\"token\":\"t\"}"))
        #expect(try VaultEnvelope.decode(VaultEnvelope.encode(item)) == item)
    }

    @Test(arguments: headers)
    func headerAttributeRoundTrips(_ header: ItemHeader) throws {
        #expect(try ItemHeader(attributeValue: header.attributeValue) == header)
    }

    @Test func everySingleByteFlipIsDetected() throws {
        let item = StoredItem(header: Self.headers[1], payload: SecretBytes(utf8: "payload"))
        let bytes = VaultEnvelope.encode(item).copyBytes()
        for index in bytes.indices {
            var damaged = bytes
            damaged[index] ^= 0x01
            #expect(throws: VaultError.corruptedItem) { _ = try VaultEnvelope.decode(SecretBytes(damaged)) }
        }
        for length in 0..<bytes.count {
            #expect(throws: VaultError.corruptedItem) { _ = try VaultEnvelope.decode(SecretBytes(bytes.prefix(length))) }
        }
    }

    @Test func futureFormatVersionIsRejectedNotMisread() throws {
        var item = StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes(utf8: "x"))
        item.header.formatVersion = 2
        #expect(throws: VaultError.corruptedItem) { _ = try VaultEnvelope.decode(VaultEnvelope.encode(item)) }
        #expect(throws: VaultError.corruptedItem) { _ = try ItemHeader(attributeValue: "bv2;none") }
    }

    @Test(arguments: ["", "bv1", "bv1;bogus", "bv1;none;", "bv1;biometryAny;a;b", "xx;none", "bv;none", "bv1;none;bad value"])
    func malformedHeaderAttributesAreCorrupted(_ text: String) {
        #expect(throws: VaultError.corruptedItem) { _ = try ItemHeader(attributeValue: text) }
    }

    @Test func crc32MatchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func secretBytesCompareByContent() {
        #expect(SecretBytes(utf8: "abc") == SecretBytes(Array("abc".utf8)))
        #expect(SecretBytes(utf8: "abc") != SecretBytes(utf8: "abd"))
        #expect(SecretBytes(utf8: "abc") != SecretBytes(utf8: "abcd"))
        #expect(SecretBytes([]).isEmpty)
    }
}
