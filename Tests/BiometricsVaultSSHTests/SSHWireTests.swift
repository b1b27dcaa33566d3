import BiometricsVaultSSH
import Testing

@Suite struct SSHWireTests {
    @Test func scalarsAndStringsRoundTrip() throws {
        var writer = SSHWriter()
        writer.write(byte: 0xAB)
        writer.write(bool: true)
        writer.write(bool: false)
        writer.write(uint32: 0xDEAD_BEEF)
        writer.write(uint64: 0x0102_0304_0506_0708)
        writer.write(string: [1, 2, 3])
        writer.write(utf8: "héllo")
        writer.write(nameList: ["ssh-ed25519", "rsa-sha2-512"])
        writer.write(nameList: [])
        #expect(Array(writer.bytes[0..<7]) == [0xAB, 1, 0, 0xDE, 0xAD, 0xBE, 0xEF])

        var reader = SSHReader(writer.bytes)
        #expect(try reader.readByte() == 0xAB)
        #expect(try reader.readBool() == true)
        #expect(try reader.readBool() == false)
        #expect(try reader.readUInt32() == 0xDEAD_BEEF)
        #expect(try reader.readUInt64() == 0x0102_0304_0506_0708)
        #expect(try reader.readString() == [1, 2, 3])
        #expect(try reader.readUTF8() == "héllo")
        #expect(try reader.readNameList() == ["ssh-ed25519", "rsa-sha2-512"])
        #expect(try reader.readNameList() == [])
        #expect(reader.isAtEnd)
        #expect(reader.remaining == [])
    }

    /// RFC 4251 §5's own mpint examples, and the leading zero a set top bit needs.
    @Test(arguments: [
        ([UInt8](), [UInt8]([0, 0, 0, 0])),
        ([0], [0, 0, 0, 0]),
        ([0, 0, 0x7F], [0, 0, 0, 1, 0x7F]),
        ([0x80], [0, 0, 0, 2, 0, 0x80]),
        ([0x09, 0xA3, 0x78, 0xF9, 0xB2, 0xE3, 0x32, 0xA7], [0, 0, 0, 8, 0x09, 0xA3, 0x78, 0xF9, 0xB2, 0xE3, 0x32, 0xA7]),
        ([0xFF, 0x01], [0, 0, 0, 3, 0, 0xFF, 0x01]),
    ])
    func mpintEncoding(magnitude: [UInt8], encoded: [UInt8]) throws {
        let bytes = wire { $0.write(mpint: magnitude) }
        #expect(bytes == encoded)
        // Never negative: a set top bit always has a zero byte in front.
        if bytes.count > 4 { #expect(bytes[4] & 0x80 == 0) }
        var reader = SSHReader(bytes)
        #expect(try reader.readMPInt() == Array(magnitude.drop { $0 == 0 }))
        #expect(reader.isAtEnd)
    }

    @Test func mpintReading() throws {
        // A redundant leading zero is read (OpenSSH writes none, but accepts it).
        var padded = SSHReader([0, 0, 0, 3, 0, 0, 0x05])
        #expect(try padded.readMPInt() == [0x05])
        // A negative value is refused.
        var negative = SSHReader([0, 0, 0, 1, 0x80])
        #expect(throws: SSHError("a negative mpint")) { try negative.readMPInt() }
        // Over 16384 bits.
        var huge = SSHReader(wire { $0.write(mpint: [0x01] + [UInt8](repeating: 0xFF, count: 2048)) })
        #expect(throws: SSHError.self) { try huge.readMPInt() }
        var largest = SSHReader(wire { $0.write(mpint: [UInt8](repeating: 0xFF, count: 2048)) })
        #expect(try largest.readMPInt().count == 2048)
    }

    /// Lengths past the end, at every cut of a message, are typed errors, never a trap.
    @Test func truncationIsRefusedAtEveryLength() throws {
        let message = wire {
            $0.write(byte: 1)
            $0.write(uint32: 7)
            $0.write(uint64: 9)
            $0.write(string: [UInt8](repeating: 0x41, count: 10))
            $0.write(mpint: [0x80, 1])
        }
        for cut in 0..<message.count {
            var reader = SSHReader(Array(message.prefix(cut)))
            #expect(throws: SSHError.self) {
                _ = try reader.readByte()
                _ = try reader.readUInt32()
                _ = try reader.readUInt64()
                _ = try reader.readString()
                _ = try reader.readMPInt()
            }
        }
    }

    @Test(arguments: [UInt32(11), 0x7FFF_FFFF, 0xFFFF_FFFF])
    func oversizedLengthIsRefused(length: UInt32) throws {
        var reader = SSHReader(wire { $0.write(uint32: length) } + [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
        #expect(throws: SSHError.self) { try reader.readString() }
    }

    @Test func invalidTextIsRefused() throws {
        var notUTF8 = SSHReader(wire { $0.write(string: [0x61, 0xFF, 0x62]) })
        #expect(throws: SSHError.self) { try notUTF8.readUTF8() }
        var emptyName = SSHReader(wire { $0.write(utf8: "a,,b") })
        #expect(throws: SSHError.self) { try emptyName.readNameList() }
        var spaced = SSHReader(wire { $0.write(utf8: "a b") })
        #expect(throws: SSHError.self) { try spaced.readNameList() }
    }

    @Test func expectEndNamesTheTrailingBytes() throws {
        var reader = SSHReader([1, 2, 3])
        _ = try reader.readByte()
        #expect(throws: SSHError("2 bytes follow the end of the thing")) { try reader.expectEnd("the thing") }
        #expect(reader.readRemaining() == [2, 3])
        try reader.expectEnd("the thing")
    }

    @Test func framing() throws {
        #expect(SSHAgentFrame.frame([5]) == [0, 0, 0, 1, 5])
        #expect(try SSHAgentFrame.bodyLength(header: [0, 0, 0, 1]) == 1)
        #expect(try SSHAgentFrame.bodyLength(header: [0, 4, 0, 0]) == SSHAgentFrame.maximumBodySize)
        #expect(throws: SSHError("an empty message")) { try SSHAgentFrame.bodyLength(header: [0, 0, 0, 0]) }
        #expect(throws: SSHError.self) { try SSHAgentFrame.bodyLength(header: [0, 4, 0, 1]) }
        #expect(throws: SSHError.self) { try SSHAgentFrame.bodyLength(header: [0xFF, 0xFF, 0xFF, 0xFF]) }
        #expect(throws: SSHError.self) { try SSHAgentFrame.bodyLength(header: [0, 0, 1]) }
    }

    @Test func namesFromTheInputAreQuotedOnlyWhenPlain() {
        #expect(SSHError.quoted("ssh-dss") == "\"ssh-dss\"")
        #expect(SSHError.quoted("line\nbreak") == "(a name of 10 bytes)")
        #expect(SSHError.quoted(String(repeating: "x", count: 65)) == "(a name of 65 bytes)")
    }
}
