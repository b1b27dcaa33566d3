/// The versioned binary envelope for stores that keep one blob per item (the encrypted file store, the
/// simulated keychain).
///
/// Layout, all integers big-endian:
/// ```
/// "BVE"  formatVersion:u8  protection:u8  enrollmentLength:u8  enrollment[...]
/// payloadLength:u32  payload[...]  crc32:u32 (over everything before it)
/// ```
/// Decoding rejects a wrong magic, a version other than ``ItemHeader/currentFormatVersion``, unknown
/// protection codes, inconsistent lengths, trailing bytes and checksum mismatches, all as `corruptedItem`.
/// The checksum catches accidental damage; integrity against an attacker is the store's job (AEAD).
package enum VaultEnvelope {
    static let magic: [UInt8] = Array("BVE".utf8)

    package static func encode(_ item: StoredItem) -> SecretBytes {
        precondition(item.payload != nil, "an envelope always carries its payload")
        let payload = item.payload!
        let enrollment = Array((item.header.enrollment?.value ?? "").utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 + enrollment.count + payload.count)
        bytes += magic
        bytes.append(item.header.formatVersion)
        bytes.append(item.header.protection.byteCode)
        bytes.append(UInt8(enrollment.count))
        bytes += enrollment
        appendUInt32(UInt32(payload.count), to: &bytes)
        payload.withUnsafeBytes { bytes += $0 }
        appendUInt32(CRC32.checksum(bytes), to: &bytes)
        defer { zero(&bytes) }
        return SecretBytes(bytes)
    }

    package static func decode(_ envelope: SecretBytes) throws(VaultError) -> StoredItem {
        let result: Result<StoredItem, VaultError> = envelope.withUnsafeBytes { raw in
            do throws(VaultError) { return .success(try decode(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(VaultError) -> StoredItem {
        func corrupt(_ why: String) -> VaultError { VaultError(.corruptedItem, underlying: .message(why)) }
        let minimum = magic.count + 3 + 4 + 4
        guard bytes.count >= minimum else { throw corrupt("envelope truncated") }
        guard Array(bytes[0..<3]) == magic else { throw corrupt("not a BiometricsVault envelope") }
        let storedCRC = readUInt32(bytes, at: bytes.count - 4)
        guard CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count - 4)])) == storedCRC else {
            throw corrupt("envelope checksum mismatch")
        }
        let version = bytes[3]
        guard version == ItemHeader.currentFormatVersion else {
            throw corrupt("unsupported envelope format version \(version)")
        }
        guard let protection = ItemProtection(byteCode: bytes[4]) else { throw corrupt("unknown protection code") }
        let enrollmentLength = Int(bytes[5])
        var offset = 6
        guard bytes.count >= offset + enrollmentLength + 8 else { throw corrupt("envelope truncated") }
        var enrollment: EnrollmentFingerprint?
        if enrollmentLength > 0 {
            let text = String(decoding: bytes[offset..<(offset + enrollmentLength)], as: UTF8.self)
            guard let parsed = EnrollmentFingerprint(text) else { throw corrupt("bad enrollment fingerprint") }
            enrollment = parsed
        }
        offset += enrollmentLength
        let payloadLength = Int(readUInt32(bytes, at: offset))
        offset += 4
        guard payloadLength <= VaultLimits.maximumCredentialsSize else { throw corrupt("payload too large") }
        guard bytes.count == offset + payloadLength + 4 else { throw corrupt("envelope length mismatch") }
        var header = ItemHeader(protection: protection, enrollment: enrollment)
        header.formatVersion = version
        return StoredItem(header: header, payload: SecretBytes(bytes[offset..<(offset + payloadLength)]))
    }

    private static func appendUInt32(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    private static func readUInt32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        (UInt32(bytes[offset]) << 24) | (UInt32(bytes[offset + 1]) << 16) | (UInt32(bytes[offset + 2]) << 8)
            | UInt32(bytes[offset + 3])
    }

    private static func zero(_ bytes: inout [UInt8]) {
        for index in bytes.indices { bytes[index] = 0 }
    }
}

/// CRC-32 (IEEE 802.3), table-driven.
package enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = (value & 1) == 1 ? (0xEDB8_8320 ^ (value >> 1)) : (value >> 1) }
        return value
    }

    package static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
