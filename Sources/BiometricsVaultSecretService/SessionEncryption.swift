#if os(Linux)
// The one file that calls libgcrypt. It holds the crypto of the Secret Service session algorithm
// "dh-ietf1024-sha256-aes128-cbc-pkcs7" (Secret Service API, "Transfer of Secrets"): the key exchange
// with libgcrypt's multi-precision integers (as libsecret does it), the key derivation and AES with
// swift-crypto. LibSecret.swift makes the D-Bus calls that carry the results.
//
// Why not let libsecret open the session: libsecret's private exponent is as long as the 1024-bit prime, so
// each of its two modular exponentiations costs about 0.8 ms of every process's first read. Both sit on the
// read's critical path (one before OpenSession, one after its reply). A 256-bit exponent costs about a
// quarter of that and keeps the exchange as strong as the group allows (see `privateExponentBits`).
import BiometricsVaultCore
import CGcrypt
import Crypto
import FoundationEssentials
import Glibc
import _CryptoExtras

/// The encryption of secrets between this process and the Secret Service, for one session.
struct SessionEncryption: Sendable {
    /// The only algorithm this library asks for; it never falls back to `plain` (secrets in the clear
    /// on the bus), which libsecret would do when a provider does not offer this one.
    static let algorithm = "dh-ietf1024-sha256-aes128-cbc-pkcs7"

    /// The exponent's length. The prime is a safe prime (the group of the exchange has prime order q =
    /// (p-1)/2), so no small-subgroup shortcut applies to a short exponent, and the best attack on a
    /// uniformly random 256-bit exponent takes about 2^128 steps, more than the 1024-bit group itself
    /// resists (about 2^80). NIST SP 800-56A rev. 3 (§5.6.1.1.4) asks for at least twice the group's
    /// security strength for safe-prime groups: 160 bits here.
    static let privateExponentBits = 256

    /// The AES-128 key of the session.
    private let key: SymmetricKey

    /// One side of the exchange: a fresh random private exponent and the public key to send.
    struct KeyPair: Sendable {
        fileprivate let privateExponent: SecretBytes
        /// 2^x mod p, big-endian, without leading zero bytes.
        let publicKey: [UInt8]

        /// A new key pair from the system's random source.
        init() throws(VaultError) {
            var random = SystemRandomNumberGenerator()
            var exponent = [UInt8](repeating: 0, count: SessionEncryption.privateExponentBits / 8)
            for index in exponent.indices { exponent[index] = random.next() }
            exponent[0] |= 0x80  // exactly `privateExponentBits` long
            try self.init(privateExponent: SecretBytes(exponent))
            exponent.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) }
        }

        /// A key pair with a given exponent (big-endian), for known-answer tests.
        init(privateExponent: SecretBytes) throws(VaultError) {
            self.privateExponent = privateExponent
            publicKey = try Integer.power(Integer(bytes: [2]), Integer(privateExponent)).bytes()
        }
    }

    /// The session's encryption from the service's public key (OpenSession's output) and our key pair.
    /// A public key outside 2...p-2 is refused: it would make the shared secret guessable.
    init(serverPublicKey: [UInt8], keyPair: KeyPair) throws(VaultError) {
        let peer = try Integer(bytes: serverPublicKey)
        guard peer.isUsablePublicKey else {
            throw Self.failure("the Secret Service sent an unusable session key (\(serverPublicKey.count) bytes)")
        }
        // The shared secret always has the prime's width: the algorithm hashes all 128 bytes, leading
        // zeros included.
        let shared = try Integer.power(peer, Integer(keyPair.privateExponent)).secretBytes(width: Integer.width)
        key = shared.withUnsafeBytes { sharedBytes in
            // HKDF-SHA256 with no salt and no info, 16 bytes: what the algorithm's name promises.
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: sharedBytes), salt: [UInt8](), info: [UInt8](), outputByteCount: 16)
        }
    }

    /// A session key given directly, for known-answer tests of the AES half.
    init(key: SymmetricKey) {
        self.key = key
    }

    /// The `parameters` (a fresh IV) and `value` of an encrypted secret.
    func encrypt(_ secret: SecretBytes) throws(VaultError) -> (parameters: [UInt8], value: [UInt8]) {
        let iv = AES._CBC.IV()
        do {
            let value = try secret.withUnsafeBytes { try AES._CBC.encrypt($0, using: key, iv: iv) }
            return (Array(iv), Array(value))
        } catch {
            throw Self.failure("could not encrypt the secret for the Secret Service: \(error)")
        }
    }

    /// The secret from an encrypted `parameters` / `value` pair.
    func decrypt(parameters: [UInt8], value: [UInt8]) throws(VaultError) -> SecretBytes {
        guard parameters.count == 16, value.count % 16 == 0, !value.isEmpty else {
            throw Self.failure("the Secret Service sent a malformed secret (\(parameters.count)-byte IV, \(value.count) bytes)")
        }
        var plain: Data
        do {
            plain = try AES._CBC.decrypt(value, using: key, iv: AES._CBC.IV(ivBytes: parameters))
        } catch {
            throw Self.failure("could not decrypt the secret the Secret Service sent")
        }
        defer { plain.resetBytes(in: 0..<plain.count) }
        return SecretBytes(plain)
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
        try self.init(SecretBytes(bytes))
    }

    convenience init(_ bytes: SecretBytes) throws(VaultError) {
        Integer.initializeLibrary()
        var handle: gcry_mpi_t?
        let status = bytes.withUnsafeBytes { raw in
            gcry_mpi_scan(&handle, GCRYMPI_FMT_USG, raw.baseAddress, raw.count, nil)
        }
        guard status == 0, let handle else { throw Integer.failure("gcry_mpi_scan", status) }
        self.init(handle)
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

    /// Big-endian bytes without leading zeros.
    func bytes() throws(VaultError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: Self.width)
        let written = try write(into: &buffer)
        return Array(buffer[0..<written])
    }

    /// Big-endian bytes left-padded with zeros to `width`, for a secret value: no unzeroed copy is left.
    func secretBytes(width: Int) throws(VaultError) -> SecretBytes {
        var buffer = [UInt8](repeating: 0, count: Swift.max(width, Self.width))
        defer { buffer.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) } }
        let written = try write(into: &buffer)
        guard written <= width else { throw Integer.failure("gcry_mpi_print (value wider than \(width) bytes)", 0) }
        if written < width {  // right-align in place
            for index in stride(from: written - 1, through: 0, by: -1) { buffer[index + width - written] = buffer[index] }
            for index in 0..<(width - written) { buffer[index] = 0 }
        }
        return SecretBytes(buffer[0..<width])
    }

    private func write(into buffer: inout [UInt8]) throws(VaultError) -> Int {
        var written = 0
        let status = buffer.withUnsafeMutableBufferPointer { raw in
            gcry_mpi_print(GCRYMPI_FMT_USG, raw.baseAddress, raw.count, &written, handle)
        }
        guard status == 0 else { throw Integer.failure("gcry_mpi_print", status) }
        return written
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
