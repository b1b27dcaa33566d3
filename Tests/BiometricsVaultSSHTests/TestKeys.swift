import BiometricsVaultCore
import BiometricsVaultSSH

/// One key of each type for the whole run: an RSA key takes a while to generate in a debug build.
enum TestKeys {
    private static let keys: [SSHKeyType: SSHPrivateKey] = {
        var keys: [SSHKeyType: SSHPrivateKey] = [:]
        for type in SSHKeyType.allCases {
            // A failure here fails every test that asks for a key, with this message.
            keys[type] = try? SSHPrivateKey.generate(type)
        }
        return keys
    }()

    static func key(_ type: SSHKeyType) throws -> SSHPrivateKey {
        guard let key = keys[type] else { throw SSHError("no \(type.rawValue) test key could be generated") }
        return key
    }
}

/// Bytes built with the wire encoding, for hand-made messages.
func wire(_ build: (inout SSHWriter) -> Void) -> [UInt8] {
    var writer = SSHWriter()
    build(&writer)
    return writer.bytes
}

extension Array where Element == UInt8 {
    init(hex: String) {
        var bytes: [UInt8] = []
        var characters = hex.makeIterator()
        while let high = characters.next(), let low = characters.next() {
            bytes.append(UInt8(String([high, low]), radix: 16)!)
        }
        self = bytes
    }

    var hex: String { map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
}
