/// A reader of the SSH wire encoding (RFC 4251 §5): byte, boolean, uint32, uint64, string, mpint and
/// name-list, front to back over one message.
///
/// Every read checks the length it is about to take against what is left and throws ``SSHError`` instead
/// of reading past the end; a length field is never trusted to allocate or to index.
package struct SSHReader {
    private var bytes: [UInt8]
    private var offset = 0

    /// The largest mpint magnitude read: 16384 bits, OpenSSH's bound (SSHBUF_MAX_BIGNUM) and BoringSSL's
    /// largest RSA modulus.
    package static let maximumMPIntBytes = 2048

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether every byte was read.
    package var isAtEnd: Bool { offset == bytes.count }

    /// The bytes not read yet.
    package var remaining: [UInt8] { Array(bytes[offset...]) }

    /// How many bytes are left.
    package var remainingCount: Int { bytes.count - offset }

    /// The next `count` bytes, raw.
    package mutating func readBytes(_ count: Int) throws(SSHError) -> [UInt8] {
        guard count >= 0 else { throw SSHError("a field of a negative length") }
        guard count <= remainingCount else {
            throw SSHError("the message ends \(count - remainingCount) bytes short of a field")
        }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    package mutating func readByte() throws(SSHError) -> UInt8 {
        guard offset < bytes.count else { throw SSHError("the message ends before a byte field") }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A boolean: 0 is false, any other value true (RFC 4251 §5).
    package mutating func readBool() throws(SSHError) -> Bool {
        try readByte() != 0
    }

    package mutating func readUInt32() throws(SSHError) -> UInt32 {
        try readBytes(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    package mutating func readUInt64() throws(SSHError) -> UInt64 {
        try readBytes(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A string: a uint32 length, then that many bytes (any bytes).
    package mutating func readString() throws(SSHError) -> [UInt8] {
        let length = try readUInt32()
        guard UInt64(length) <= UInt64(remainingCount) else {
            throw SSHError("a field of \(length) bytes runs past the end of the message (\(remainingCount) bytes left)")
        }
        return try readBytes(Int(length))
    }

    /// A string that must be UTF-8 (names, user names, comments).
    package mutating func readUTF8() throws(SSHError) -> String {
        let raw = try readString()
        // Decoding repairs invalid sequences; a text that reads back to other bytes was not UTF-8.
        let text = String(decoding: raw, as: UTF8.self)
        guard text.utf8.elementsEqual(raw) else {
            throw SSHError("a text field of \(raw.count) bytes is not UTF-8")
        }
        return text
    }

    /// A non-negative mpint's magnitude: big-endian, without leading zero bytes (zero is empty). A
    /// negative value (top bit of the first byte set) is refused: no key or signature field is negative.
    /// Redundant leading zeros are accepted, as OpenSSH accepts them.
    package mutating func readMPInt() throws(SSHError) -> [UInt8] {
        let raw = try readString()
        if let first = raw.first, first & 0x80 != 0 { throw SSHError("a negative mpint") }
        let magnitude = Array(raw.drop { $0 == 0 })
        guard magnitude.count <= Self.maximumMPIntBytes else {
            throw SSHError("an mpint of \(magnitude.count) bytes is over the limit of \(Self.maximumMPIntBytes)")
        }
        return magnitude
    }

    /// A name-list: a string of comma-separated US-ASCII names, none empty (an empty string is no names).
    package mutating func readNameList() throws(SSHError) -> [String] {
        let raw = try readString()
        guard !raw.isEmpty else { return [] }
        guard raw.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw SSHError("a name-list holds a byte outside printable US-ASCII")
        }
        let names = raw.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard names.allSatisfy({ !$0.isEmpty }) else { throw SSHError("a name-list holds an empty name") }
        return names.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Every byte not read yet, after which the reader is at its end.
    package mutating func readRemaining() -> [UInt8] {
        defer { offset = bytes.count }
        return remaining
    }

    /// The next string, without reading it.
    package func peekString() throws(SSHError) -> [UInt8] {
        var copy = self
        return try copy.readString()
    }

    /// Throws unless every byte was read: a message's trailing bytes are a malformed message.
    package func expectEnd(_ what: String) throws(SSHError) {
        guard isAtEnd else { throw SSHError("\(remainingCount) bytes follow the end of \(what)") }
    }

    /// Overwrites the bytes held with zeros: for a reader over secret bytes, once done with it.
    package mutating func wipe() {
        wipeBytes(&bytes)
    }
}

/// A writer of the SSH wire encoding (RFC 4251 §5), the counterpart of ``SSHReader``.
package struct SSHWriter {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    package mutating func write(byte: UInt8) {
        bytes.append(byte)
    }

    package mutating func write(bool: Bool) {
        bytes.append(bool ? 1 : 0)
    }

    package mutating func write(uint32: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: uint32 >> UInt32(shift))) }
    }

    package mutating func write(uint64: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: uint64 >> UInt64(shift))) }
    }

    /// A string: its length as a uint32, then its bytes.
    package mutating func write(string: some Collection<UInt8>) {
        precondition(string.count <= Int(UInt32.max), "an SSH string holds at most 2^32-1 bytes")
        write(uint32: UInt32(string.count))
        bytes.append(contentsOf: string)
    }

    package mutating func write(utf8: String) {
        write(string: Array(utf8.utf8))
    }

    /// A non-negative mpint from its big-endian magnitude (leading zeros allowed): the minimal two's
    /// complement form, with a zero byte in front when the top bit is set, and no bytes for zero.
    package mutating func write(mpint magnitude: some Collection<UInt8>) {
        let digits = magnitude.drop { $0 == 0 }
        let padding = (digits.first ?? 0) & 0x80 != 0 ? 1 : 0
        write(uint32: UInt32(digits.count + padding))
        if padding == 1 { bytes.append(0) }
        bytes.append(contentsOf: digits)
    }

    /// A name-list: the names joined by commas, as a string.
    package mutating func write(nameList names: [String]) {
        write(utf8: names.joined(separator: ","))
    }

    /// Raw bytes, with no length in front.
    package mutating func write(raw: some Collection<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    /// Overwrites the bytes written with zeros: for a writer that held secret bytes, once they are copied.
    package mutating func wipe() {
        wipeBytes(&bytes)
    }
}

/// Overwrites an array's bytes with zeros in place, best effort (an array copy is not zeroed on release;
/// ``SecretBytes`` is, which is where secrets are kept).
func wipeBytes(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBufferPointer { buffer in
        for index in buffer.indices { buffer[index] = 0 }
    }
}
