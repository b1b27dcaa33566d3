#if os(Linux)
// The crypto of the Secret Service session algorithm "dh-ietf1024-sha256-aes128-cbc-pkcs7" (Secret Service
// API, "Transfer of Secrets"). SecretServiceCalls.swift makes the D-Bus calls that carry the results.
//
// HKDF and AES-128-CBC with PKCS#7 are swift-crypto's, as the file store's crypto is. The 1024-bit modular
// exponentiations of the key exchange are libgcrypt's (the library libsecret uses for them): swift-crypto has
// no public arbitrary-precision arithmetic.
//
// Why not let libsecret open the session: libsecret's private exponent is as long as the 1024-bit prime, so
// each of its two modular exponentiations costs about 0.8 ms of every process's first read, and both sit
// on the read's critical path (one before OpenSession, one after its reply). A 256-bit exponent costs
// about a quarter of that and keeps the exchange as strong as the group allows (`privateExponentBits`).
import BiometricsVaultCore
import CGcrypt
import Crypto
import FoundationEssentials
import Glibc
import _CryptoExtras

/// The encryption of secrets between this process and the Secret Service, for one session.
package struct SessionEncryption: Sendable {
    /// The only algorithm this library asks for; it never falls back to `plain` (secrets in the clear
    /// on the bus), which libsecret would do when a provider does not offer this one.
    package static let algorithm = "dh-ietf1024-sha256-aes128-cbc-pkcs7"

    /// The exponent's length. The prime is a safe prime (the exchange's group has prime order q =
    /// (p-1)/2), so no small-subgroup shortcut applies to a short exponent, and the best attack on a
    /// uniformly random 256-bit exponent takes about 2^128 steps, more than the 1024-bit group itself
    /// resists (about 2^80). It is also more than twice the group's strength (160 bits), the private-key
    /// length NIST SP 800-56A rev. 3 sets for safe-prime groups.
    static let privateExponentBits = 256

    /// The AES-128 key of the session.
    private let key: SecretBytes

    /// Whether the shared secret's first byte is zero (about one session in 256). The algorithm hashes
    /// the secret at the prime's full width, as libsecret, gnome-keyring and KeePassXC do; kwalletd5
    /// (through QCA's OpenSSL plugin) hashes it without its leading zero bytes, so for such a session
    /// the two sides hold different keys: kwalletd5 answers a secret sent in it with "Can't find
    /// session" and sends secrets that do not decrypt. Both ways agree whenever the first byte is not
    /// zero, so a client that opens another session in this case works with every provider.
    package let keyDependsOnSecretWidth: Bool

    /// One side of the exchange: a fresh random private exponent and the public key to send.
    package struct KeyPair: Sendable {
        fileprivate let privateExponent: SecretBytes
        /// 2^x mod p, big-endian, left-padded with zeros to the prime's 128 bytes: KWallet refuses any
        /// other length ("Client public key size is invalid"), which a value without its leading zero
        /// bytes has about once in 256 sessions; gnome-keyring and KeePassXC take either.
        package let publicKey: [UInt8]

        /// Whether the public key's first byte is 0xFF and its second has its top bit set (about one key in
        /// 512). kwalletd5 reads the key as a two's-complement number (QCA's `BigInteger`), for which that
        /// first byte is a redundant sign byte: it drops it and computes with another key, so the session's
        /// secrets do not decrypt on either side. gnome-keyring and KeePassXC read it unsigned, as the
        /// specification says.
        var publicKeyLosesAByteAsSigned: Bool { publicKey[0] == 0xFF && publicKey[1] & 0x80 != 0 }

        /// A new key pair from the system's random source, never one whose public key
        /// ``publicKeyLosesAByteAsSigned``.
        package init() throws(VaultError) {
            while true {
                var exponent = SessionEncryption.randomBytes(SessionEncryption.privateExponentBits / 8)
                defer { exponent.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) } }
                exponent[0] |= 0x80  // exactly `privateExponentBits` long
                let pair = try KeyPair(privateExponent: exponent)
                if !pair.publicKeyLosesAByteAsSigned {
                    self = pair
                    return
                }
            }
        }

        /// A key pair with a given exponent (big-endian), for known-answer tests.
        package init(privateExponent: [UInt8]) throws(VaultError) {
            self.privateExponent = SecretBytes(privateExponent)
            publicKey = try Integer.power(Integer(bytes: [2]), Integer(self.privateExponent)).bytes(width: Integer.width)
        }
    }

    /// The session's encryption from the other side's public key (a client's: OpenSession's output; a
    /// provider's: its input) and our key pair.
    /// A public key outside 2...p-2 is refused: it would make the shared secret guessable. So is one whose
    /// shared secret is 1, p-1 or ±(our public key), which everyone on the bus sees (the keys 2 and p-2
    /// give the last two).
    package init(peerPublicKey: [UInt8], keyPair: KeyPair) throws(VaultError) {
        let peer = try Integer(bytes: peerPublicKey)
        guard peer.isUsablePublicKey else {
            throw Self.failure("the Secret Service sent an unusable session key (\(peerPublicKey.count) bytes)")
        }
        // The shared secret always has the prime's width: the algorithm hashes all 128 bytes, leading
        // zeros included.
        var shared = try Integer.power(peer, Integer(keyPair.privateExponent)).bytes(width: Integer.width)
        defer { shared.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) } }
        guard try !Integer.isPublicSecret(shared, ourPublicKey: keyPair.publicKey) else {
            throw Self.failure("the Secret Service sent a session key whose shared secret anyone on the bus can compute")
        }
        keyDependsOnSecretWidth = shared[0] == 0
        // HKDF-SHA256 (RFC 5869) with no salt (a hash length of zeros) and no info, 16 bytes.
        let derived = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: shared), outputByteCount: 16)
        key = derived.withUnsafeBytes { SecretBytes($0) }
    }

    /// A session key given directly, for known-answer tests of the AES half.
    package init(key: [UInt8]) {
        self.key = SecretBytes(key)
        keyDependsOnSecretWidth = false
    }

    /// The `parameters` (a fresh IV) and `value` (AES-128-CBC, PKCS#7 padding) of an encrypted secret.
    package func encrypt(_ secret: SecretBytes) throws(VaultError) -> (parameters: [UInt8], value: [UInt8]) {
        let iv = Self.randomBytes(16)
        do {
            let value = try secret.withUnsafeBytes { plain in
                try AES._CBC.encrypt(plain, using: sessionKey, iv: AES._CBC.IV(ivBytes: iv))
            }
            return (iv, Array(value))
        } catch {
            throw Self.failure("AES-128-CBC failed (\(error))")
        }
    }

    /// The secret from an encrypted `parameters` / `value` pair.
    package func decrypt(parameters: [UInt8], value: [UInt8]) throws(VaultError) -> SecretBytes {
        guard parameters.count == 16, value.count % 16 == 0, !value.isEmpty else {
            throw Self.failure("the Secret Service sent a malformed secret (\(parameters.count)-byte IV, \(value.count) bytes)")
        }
        // A wrong key or damaged ciphertext shows as bad padding; the error says no more than that.
        guard var plain = try? AES._CBC.decrypt(value, using: sessionKey, iv: AES._CBC.IV(ivBytes: parameters)) else {
            throw Self.failure("could not decrypt the secret the Secret Service sent")
        }
        defer { plain.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) } }
        return plain.withUnsafeBytes { SecretBytes($0) }
    }

    /// The session key as swift-crypto takes it (a copy that swift-crypto wipes when it is released).
    private var sessionKey: SymmetricKey {
        key.withUnsafeBytes { SymmetricKey(data: $0) }
    }

    /// Runs HKDF and AES-128-CBC once on throw-away values, so that their first use in the process (swift-crypto's
    /// generic metadata and protocol conformance lookups, about 0.3 ms) happens here, on a thread that waits
    /// for the connection anyway (``SecretServiceClient/prepareConnection(timeout:)``), and not on the read's
    /// critical path (the key after OpenSession's reply, the decryption after GetSecrets').
    static func prepareFirstUse() {
        let session = SessionEncryption(key: [UInt8](repeating: 0, count: 16))
        _ = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: [UInt8](repeating: 0, count: 16)), outputByteCount: 16)
        if let sealed = try? session.encrypt(SecretBytes([0])) {
            _ = try? session.decrypt(parameters: sealed.parameters, value: sealed.value)
        }
    }

    /// `count` (a multiple of 8) bytes from the system's random source, 8 per call: asking
    /// `SystemRandomNumberGenerator` for one `UInt8` at a time costs one `getrandom` call per byte.
    static func randomBytes(_ count: Int) -> [UInt8] {
        precondition(count % 8 == 0, "randomBytes takes a multiple of 8")
        var random = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { raw in
            for offset in stride(from: 0, to: count, by: 8) { raw.storeBytes(of: random.next() as UInt64, toByteOffset: offset, as: UInt64.self) }
        }
        return bytes
    }

    private static func failure(_ message: String) -> VaultError {
        VaultError(.storeUnavailable, underlying: .message(message))
    }
}

/// A libgcrypt multi-precision integer, used by one thread; released (and so wiped: libgcrypt clears the
/// limbs it frees) with its last reference.
private final class Integer {
    let handle: gcry_mpi_t

    /// The prime of the 1024-bit MODP group (RFC 2409 §6.2, "Second Oakley Group"), big-endian; the
    /// generator is 2.
    static let primeBytes: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xC9, 0x0F, 0xDA, 0xA2, 0x21, 0x68, 0xC2, 0x34,
        0xC4, 0xC6, 0x62, 0x8B, 0x80, 0xDC, 0x1C, 0xD1, 0x29, 0x02, 0x4E, 0x08, 0x8A, 0x67, 0xCC, 0x74,
        0x02, 0x0B, 0xBE, 0xA6, 0x3B, 0x13, 0x9B, 0x22, 0x51, 0x4A, 0x08, 0x79, 0x8E, 0x34, 0x04, 0xDD,
        0xEF, 0x95, 0x19, 0xB3, 0xCD, 0x3A, 0x43, 0x1B, 0x30, 0x2B, 0x0A, 0x6D, 0xF2, 0x5F, 0x14, 0x37,
        0x4F, 0xE1, 0x35, 0x6D, 0x6D, 0x51, 0xC2, 0x45, 0xE4, 0x85, 0xB5, 0x76, 0x62, 0x5E, 0x7E, 0xC6,
        0xF4, 0x4C, 0x42, 0xE9, 0xA6, 0x37, 0xED, 0x6B, 0x0B, 0xFF, 0x5C, 0xB6, 0xF4, 0x06, 0xB7, 0xED,
        0xEE, 0x38, 0x6B, 0xFB, 0x5A, 0x89, 0x9F, 0xA5, 0xAE, 0x9F, 0x24, 0x11, 0x7C, 0x4B, 0x1F, 0xE6,
        0x49, 0x28, 0x66, 0x51, 0xEC, 0xE6, 0x53, 0x81, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    ]
    static var width: Int { primeBytes.count }

    private init(_ handle: gcry_mpi_t) { self.handle = handle }
    deinit { gcry_mpi_release(handle) }

    /// A non-negative integer from big-endian bytes.
    convenience init(bytes: [UInt8]) throws(VaultError) {
        try self.init(scanned: bytes.withUnsafeBytes(Integer.scan))
    }

    convenience init(_ secret: SecretBytes) throws(VaultError) {
        try self.init(scanned: secret.withUnsafeBytes(Integer.scan))
    }

    private convenience init(scanned: (status: gcry_error_t, handle: gcry_mpi_t?)) throws(VaultError) {
        guard scanned.status == 0, let handle = scanned.handle else { throw Integer.failure("gcry_mpi_scan", scanned.status) }
        self.init(handle)
    }

    private static func scan(_ raw: UnsafeRawBufferPointer) -> (status: gcry_error_t, handle: gcry_mpi_t?) {
        initializeLibrary()
        var handle: gcry_mpi_t?
        let status = gcry_mpi_scan(&handle, GCRYMPI_FMT_USG, raw.baseAddress, raw.count, nil)
        return (status, handle)
    }

    /// base^exponent mod p.
    static func power(_ base: Integer, _ exponent: Integer) throws(VaultError) -> Integer {
        let prime = try Integer(bytes: primeBytes)
        guard let result = gcry_mpi_new(UInt32(width * 8)) else { throw failure("gcry_mpi_new", 0) }
        gcry_mpi_powm(result, base.handle, exponent.handle, prime.handle)
        return Integer(result)
    }

    /// Whether 2 <= self <= p-2: a peer's public key outside that range (0, 1, p-1, p or more) would
    /// fix the shared secret to a value an eavesdropper can guess.
    var isUsablePublicKey: Bool {
        guard let limit = gcry_mpi_new(UInt32(Self.width * 8)), let prime = try? Integer(bytes: Self.primeBytes) else {
            return false
        }
        defer { gcry_mpi_release(limit) }
        gcry_mpi_sub_ui(limit, prime.handle, 1)
        return gcry_mpi_cmp_ui(handle, 1) > 0 && gcry_mpi_cmp(handle, limit) < 0
    }

    /// Whether `shared` (a shared secret at the prime's width) is one an eavesdropper knows without any
    /// private exponent: 1, p-1, our public key or p minus it (the server keys 1, p-1, 2 and p-2 give
    /// them). Compared without an early exit, since `shared` is secret when it is none of them.
    static func isPublicSecret(_ shared: [UInt8], ourPublicKey: [UInt8]) throws(VaultError) -> Bool {
        let prime = try Integer(bytes: primeBytes)
        let ours = try Integer(bytes: ourPublicKey)
        guard let negated = gcry_mpi_new(UInt32(width * 8)) else { throw failure("gcry_mpi_new", 0) }
        gcry_mpi_sub(negated, prime.handle, ours.handle)
        let minusOurs = try Integer(negated).bytes(width: width)
        var minusOne = primeBytes
        minusOne[width - 1] -= 1
        let one = [UInt8](repeating: 0, count: width - 1) + [1]
        let known = [one, minusOne, try ours.bytes(width: width), minusOurs]
        var matches = false
        for candidate in known {
            var difference: UInt8 = 0
            for index in 0..<width { difference |= candidate[index] ^ shared[index] }
            matches = matches || difference == 0
        }
        return matches
    }

    /// Big-endian bytes, without leading zeros, or left-padded with zeros to `width`. A caller holding a
    /// secret value zeroes the result; no other copy is left.
    func bytes(width: Int? = nil) throws(VaultError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: Swift.max(width ?? 0, Self.width))
        var written = 0
        let status = buffer.withUnsafeMutableBufferPointer { raw in
            gcry_mpi_print(GCRYMPI_FMT_USG, raw.baseAddress, raw.count, &written, handle)
        }
        guard status == 0 else { throw Integer.failure("gcry_mpi_print", status) }
        let width = width ?? written
        guard written <= width else { throw Integer.failure("gcry_mpi_print (wider than \(width) bytes)", 0) }
        if written < width {  // right-align in place
            for index in stride(from: written - 1, through: 0, by: -1) { buffer[index + width - written] = buffer[index] }
            for index in 0..<(width - written) { buffer[index] = 0 }
        }
        buffer.removeLast(buffer.count - width)  // only zeros past `width`
        return buffer
    }

    /// libgcrypt's start-up check, which every user of the library must make before any other call. It
    /// does not finish libgcrypt's initialisation: libsecret (or the app), if it uses libgcrypt later in
    /// the process, still sets libgcrypt up its own way.
    private static let libraryIsReady: Bool = {
        _ = gcry_check_version(nil)
        return true
    }()

    static func initializeLibrary() { _ = libraryIsReady }

    private static func failure(_ call: String, _ status: gcry_error_t) -> VaultError {
        VaultError(.storeUnavailable, underlying: .message("\(call) failed (libgcrypt error \(status))"))
    }
}
#endif
