/// The two PKCS#1 (RFC 8017 appendix A.1) DER structures the RSA keys go through, since swift-crypto takes
/// and gives RSA keys as DER: an `RSAPublicKey` written from n and e (to build a public key of 1024 to
/// 2047 bits, which only its DER initialiser accepts), and an `RSAPrivateKey` read back into its integers
/// (swift-crypto gives no other access to d, p, q and the CRT coefficient, which the agent encoding
/// carries).
enum RSAKeyDER {
    /// `RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }`.
    static func publicKey(n: [UInt8], e: [UInt8]) -> [UInt8] {
        element(tag: 0x30, integer(n) + integer(e))
    }

    /// The integers of a two-prime `RSAPrivateKey` (version 0): n, e, d, p, q, d mod (p-1), d mod (q-1),
    /// q⁻¹ mod p, as magnitudes without leading zeros; `nil` for anything else.
    static func privateKeyIntegers(_ der: [UInt8]) -> [[UInt8]]? {
        var outer = DERReader(der[...])
        guard let sequence = outer.read(tag: 0x30), outer.isAtEnd else { return nil }
        var inner = DERReader(sequence)
        var integers: [[UInt8]] = []
        while !inner.isAtEnd {
            guard let content = inner.read(tag: 0x02), let first = content.first, first & 0x80 == 0 else { return nil }
            integers.append(Array(content.drop { $0 == 0 }))
        }
        guard integers.count == 9, integers[0].isEmpty else { return nil }
        return Array(integers.dropFirst())
    }

    private static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        let digits = Array(magnitude.drop { $0 == 0 })
        let content = digits.isEmpty || digits[0] & 0x80 != 0 ? [0] + digits : digits
        return element(tag: 0x02, content)
    }

    private static func element(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8] = []
        if content.count < 0x80 {
            length = [UInt8(content.count)]
        } else {
            var count = content.count
            while count > 0 {
                length.insert(UInt8(truncatingIfNeeded: count), at: 0)
                count >>= 8
            }
            length.insert(0x80 | UInt8(length.count), at: 0)
        }
        return [tag] + length + content
    }

    /// Definite-length DER elements, front to back; `nil` for a wrong tag or a length past the end.
    private struct DERReader {
        private var rest: ArraySlice<UInt8>

        init(_ bytes: ArraySlice<UInt8>) { rest = bytes }

        var isAtEnd: Bool { rest.isEmpty }

        mutating func read(tag: UInt8) -> ArraySlice<UInt8>? {
            guard rest.count >= 2, rest.first == tag else { return nil }
            let first = rest[rest.startIndex + 1]
            var header = 2
            var length = Int(first)
            if first & 0x80 != 0 {
                let count = Int(first & 0x7F)
                guard (1...3).contains(count), rest.count >= 2 + count else { return nil }
                length = rest[(rest.startIndex + 2)..<(rest.startIndex + 2 + count)].reduce(0) { $0 << 8 | Int($1) }
                header += count
            }
            guard rest.count - header >= length else { return nil }
            let content = rest[(rest.startIndex + header)..<(rest.startIndex + header + length)]
            rest = rest[(rest.startIndex + header + length)...]
            return content
        }
    }
}
