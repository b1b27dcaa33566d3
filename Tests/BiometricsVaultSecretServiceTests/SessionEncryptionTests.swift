#if os(Linux)
@testable import BiometricsVaultSecretService
import BiometricsVaultCore
import BiometricsVaultTestSupport
import Testing

/// The session algorithm's crypto against vectors computed independently, with python's `secretstorage`
/// key derivation and `cryptography`'s AES-CBC (the client python `keyring` uses with gnome-keyring).
/// The daemon suites check the same code against the real gnome-keyring.
@Suite(.onTestThreads)
struct SessionEncryptionTests {
    static let clientExponent = hex("987464fd1ba9da3dab12ab8db8072c14fdb0b5556ecf128770746ee0aca452df")
    static let plaintext = Array(#"{"user":"alice","token":"s3cret"}"#.utf8)
    static let iv = Array(UInt8(0)..<16)

    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var serverPublicKey: [UInt8]
        var sessionKey: [UInt8]
        var ciphertext: [UInt8]
        var testDescription: String { name }
    }

    static let vectors = [
        Vector(
            name: "shared secret of full width",
            serverPublicKey: hex(
                "0c2c7c2d97d482632eaccb5eee13dd155a495548fc00c7363e828eb9db43f73bc595d0be44f730b695e42be52d243d19"
                    + "bdf31a7544cd9258edc1f2ce7bf4caa04d11652b0fd8eb178e4cd83ef30d8f0cdfb15218a00a499d5313cb5a0acdf89f"
                    + "73fc95711ae6cea70df5b6d370fd75df9efd7e3d19925d40c84188cddbd7f314"),
            sessionKey: hex("be2b77213b25b2c7b02d80266b4e8355"),
            ciphertext: hex(
                "dac3e639bfd0c956a1517b96c1fb9d1d2469756c0e53ee52f1ba087eb61202777e1d685827fec86bac440e5ff6889bb2")),
        // About one session in 256: the shared secret's first byte is zero and must still be hashed.
        Vector(
            name: "shared secret with a leading zero byte",
            serverPublicKey: hex(
                "7db22d5b10426fbf875bc1dc7b0d5e998ecfb5bcdad13edc4e7df1f77ab7cd58043334e184a0f60c5f1d61d0e31fe81d"
                    + "8671cce4caa581fc6e88121bd9f52579bf3887a2ee8ec68da7627d41620ac9fca5231cd01a2e5f1d8302b5d9a3b161de"
                    + "21c295578d6db6c9e4eb28ebbac53686def1b1f3443c8628dcc3e3f8982c5acc"),
            sessionKey: hex("f863eaef080f1fc8de248df758fa788b"),
            ciphertext: hex(
                "96fec32b6895d1a3c8e2ff88abb545a392aba9d1379e1ae0f7e5a3292396cb09e47002abbb08279299e9b0d6a747725e")),
    ]

    static var prime: [UInt8] {
        hex(
            "ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404dd"
                + "ef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7ed"
                + "ee386bfb5a899fa5ae9f24117c4b1fe649286651ece65381ffffffffffffffff")
    }

    @Test func thePublicKeyIsTwoToThePrivateExponent() throws {
        let pair = try SessionEncryption.KeyPair(privateExponent: Self.clientExponent)
        #expect(pair.publicKey == Self.hex(
            "c72cd3f0d691e4f5202df6b7c4a02a2a234c52b7138e3c17b46db4c8312b9639e55d89590390b04efc1ff1526daa85a5"
                + "3f564063ca6dcbc203ae047ce14e217bd633d4e6a673cc80808d89db0b411bcb095cd3ba207604a568cc51aefefb0f3e"
                + "2bc897c0ad35cad6718b5a1ebd437b885c3d55b3bde3b3f327b7d38618971f61"))
    }

    /// 2^x mod p for this exponent is 1016 bits long: its first byte is zero.
    static let shortPublicKeyExponent = hex("8000000000000000000000000000000000000000000000000000000000000671")

    /// A public key with a leading zero byte keeps it: KWallet refuses any length but 128 bytes.
    @Test func aPublicKeyWithALeadingZeroByteHasThePrimesWidth() throws {
        let pair = try SessionEncryption.KeyPair(privateExponent: Self.shortPublicKeyExponent)
        #expect(pair.publicKey.count == 128)
        #expect(pair.publicKey.first == 0)
    }

    /// Every provider opens a session with such a key, as it reaches it on the bus (the method call
    /// gdbus makes is the one the store makes; the bytes are ours).
    @Test(arguments: SecretServiceProvider.runnable)
    func everyProviderTakesAPublicKeyWithALeadingZeroByte(_ provider: SecretServiceProvider) async throws {
        let pair = try SessionEncryption.KeyPair(privateExponent: Self.shortPublicKeyExponent)
        let bytes = pair.publicKey.map { "0x" + String($0, radix: 16) }.joined(separator: ",")
        let result = try await Shell.run(
            "gdbus",
            ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
             "--method", "org.freedesktop.Secret.Service.OpenSession", SessionEncryption.algorithm, "@v <@ay [\(bytes)]>"],
            environment: try provider.environment())
        #expect(result.status == 0, "\(provider): \(result.stderr)")
    }

    @Test(arguments: vectors)
    func theSessionDecryptsWhatTheOtherSideEncrypted(_ vector: Vector) throws {
        let pair = try SessionEncryption.KeyPair(privateExponent: Self.clientExponent)
        let session = try SessionEncryption(peerPublicKey: vector.serverPublicKey, keyPair: pair)
        let secret = try session.decrypt(parameters: Self.iv, value: vector.ciphertext)
        #expect(secret == SecretBytes(Self.plaintext))
        #expect(session.keyDependsOnSecretWidth == vector.name.contains("leading zero"))
        // The same key, given directly, gives the same answer: the derivation above is the one tested.
        let direct = SessionEncryption(key: vector.sessionKey)
        #expect(try direct.decrypt(parameters: Self.iv, value: vector.ciphertext) == SecretBytes(Self.plaintext))
    }

    /// 2^x mod p for these exponents starts 0xFF 0xC5 and 0xFF 0x10: only the first loses its first
    /// byte when read as a two's-complement number (kwalletd5 reads it so).
    @Test func aPublicKeyStartingWithARedundantSignByteIsKnown() throws {
        let negative = try SessionEncryption.KeyPair(privateExponent: Self.hex("80000000000000000000000000000000000000000000000000000000000005ab"))
        #expect(Array(negative.publicKey.prefix(2)) == [0xFF, 0xC5])
        #expect(negative.publicKeyLosesAByteAsSigned)
        let positive = try SessionEncryption.KeyPair(privateExponent: Self.hex("8000000000000000000000000000000000000000000000000000000000000296"))
        #expect(Array(positive.publicKey.prefix(2)) == [0xFF, 0x10])
        #expect(!positive.publicKeyLosesAByteAsSigned)
    }

    /// About one key in 512 would lose a byte; 10,000 fresh ones all keep theirs (before, all 10,000 did
    /// with a chance of about 3 in a billion).
    @Test func noNewKeyPairLosesAByteAsSigned() throws {
        for _ in 0..<10_000 { #expect(try !SessionEncryption.KeyPair().publicKeyLosesAByteAsSigned) }
    }

    @Test func eachNewKeyPairIsFresh() throws {
        let first = try SessionEncryption.KeyPair()
        let second = try SessionEncryption.KeyPair()
        #expect(first.publicKey != second.publicKey)
        #expect(first.publicKey.count > 100 && first.publicKey.count <= 128)
    }

    @Test func encryptionUsesAFreshIVAndRoundTrips() throws {
        let session = SessionEncryption(key: Self.vectors[0].sessionKey)
        let secret = SecretBytes(Self.plaintext)
        let first = try session.encrypt(secret)
        let second = try session.encrypt(secret)
        #expect(first.parameters.count == 16)
        #expect(first.parameters != second.parameters)
        #expect(first.value != second.value)
        #expect(try session.decrypt(parameters: first.parameters, value: first.value) == secret)
        #expect(try session.decrypt(parameters: second.parameters, value: second.value) == secret)
        let empty = try session.encrypt(SecretBytes([UInt8]()))
        #expect(empty.value.count == 16)  // PKCS7: an empty secret is one block of padding
        #expect(try session.decrypt(parameters: empty.parameters, value: empty.value).isEmpty)
    }

    /// A public key that fixes the shared secret (0, 1, p-1) or is not in the group is refused.
    static let unusableServerKeys: [(String, [UInt8])] = [
        ("empty", []), ("zero", [0]), ("one", [1]), ("p-1", prime.dropLast() + [0xFE]), ("p", prime),
        ("longer than p", [1] + prime),
    ]

    @Test(arguments: unusableServerKeys)
    func anUnusableServerKeyIsRefused(_ name: String, _ key: [UInt8]) throws {
        let pair = try SessionEncryption.KeyPair()
        let error = #expect(throws: VaultError.self) { try SessionEncryption(peerPublicKey: key, keyPair: pair) }
        #expect(error?.code == .storeUnavailable, "\(name)")
    }

    /// 2 and p-2 lie in 2...p-2, but the shared secret is then ±(the client's public key), which the bus
    /// shows: a secret sent in such a session is readable by anyone who saw OpenSession. Both signs are met
    /// (the sign of (p-2)^x is x's parity), so both an even and an odd exponent are tried.
    static let serverKeysGivingAKnownSecret: [(String, [UInt8])] = [
        ("two", [2]), ("two, at the prime's width", [UInt8](repeating: 0, count: 127) + [2]), ("p-2", prime.dropLast() + [0xFD]),
    ]

    @Test(arguments: serverKeysGivingAKnownSecret, [clientExponent, Array(clientExponent.dropLast()) + [clientExponent.last! ^ 1]])
    func aServerKeyWhoseSharedSecretIsPublicIsRefused(_ key: (String, [UInt8]), exponent: [UInt8]) throws {
        let pair = try SessionEncryption.KeyPair(privateExponent: exponent)
        let error = #expect(throws: VaultError.self) { try SessionEncryption(peerPublicKey: key.1, keyPair: pair) }
        #expect(error?.code == .storeUnavailable, "\(key.0)")
    }

    static let malformedSecrets: [(String, [UInt8], [UInt8])] = [
        ("short IV", Array(iv.prefix(8)), vectors[0].ciphertext),
        ("not whole blocks", iv, Array(vectors[0].ciphertext.dropLast())),
        ("empty value", iv, []),
        ("wrong key or padding", iv, vectors[1].ciphertext),
        // Blocks encrypted without padding whose last byte is not valid PKCS#7 padding: 0, 17, and 3
        // preceded by a byte that is not 3.
        ("padding byte 0", iv, hex("17b0262e04a0a66b355db6f2fb8e88c7")),
        ("padding byte 17", iv, hex("7241c3183304104b1d56e2ddfaa775a7")),
        ("inconsistent padding", iv, hex("eae79b7549a77f9b4bd4a76e3187478e")),
    ]

    /// A whole block of padding (a secret of a multiple of 16 bytes) is removed whole.
    @Test func aFullBlockOfPaddingIsRemoved() throws {
        let session = SessionEncryption(key: Self.vectors[0].sessionKey)
        let ciphertext = Self.hex("5d056e167e98c31f8cf9f410613c8f412806615a2ffc22a582b8281621d4ff0a")
        #expect(try session.decrypt(parameters: Self.iv, value: ciphertext) == SecretBytes(Array("AAAAAAAAAAAAAAAA".utf8)))
    }

    @Test(arguments: malformedSecrets)
    func aMalformedSecretIsATypedError(_ name: String, _ parameters: [UInt8], _ value: [UInt8]) {
        let session = SessionEncryption(key: Self.vectors[0].sessionKey)
        let error = #expect(throws: VaultError.self) { try session.decrypt(parameters: parameters, value: value) }
        #expect(error?.code == .storeUnavailable, "\(name)")
        // No byte of the secret (or of anything) in the description.
        #expect(error.map { !"\($0)".contains("alice") } ?? true)
    }

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
#endif
