import Crypto
import _CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An SSH public key, kept as its blob: the bytes the agent protocol, `authorized_keys` and signatures
/// carry (RFC 4253 §6.6, RFC 5656 §3.1, RFC 8709 §4).
///
/// A value exists only for a blob that parsed and validated: a supported ``SSHKeyType``, an ECDSA point on
/// its curve, an RSA modulus of 1024 to 16384 bits with an exponent BoringSSL accepts, an Ed25519 key of 32
/// bytes, nothing after the key, and every field in its one canonical encoding. So two keys are equal
/// exactly when their blobs are, and the blob is what is hashed for the ``fingerprint``.
package struct SSHPublicKey: Sendable, Hashable, CustomStringConvertible {
    package let type: SSHKeyType
    /// The public key blob as the protocol sends it.
    package let blob: [UInt8]

    /// Parses and validates a public key blob; refuses an unsupported type (DSA, security keys,
    /// certificates) or a malformed or invalid key, saying which.
    package init(blob: [UInt8]) throws(SSHError) {
        let material = try SSHPublicKeyMaterial(blob: blob)
        self.type = material.type
        self.blob = blob
    }

    /// A key this module made from a key object, whose blob is canonical by construction.
    init(material: SSHPublicKeyMaterial) {
        self.type = material.type
        self.blob = material.blob
    }

    /// Parses a public key line as `ssh-keygen` writes it (`.pub`, `authorized_keys` without options):
    /// the type, the blob in base64, and an optional comment, separated by spaces or tabs.
    package init(openSSH line: String) throws(SSHError) {
        let fields = line.split(maxSplits: 2, omittingEmptySubsequences: true) { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard fields.count >= 2 else { throw SSHError("a public key line has a key type and a base64 key, separated by a space") }
        guard let decoded = Data(base64Encoded: String(fields[1])) else {
            throw SSHError("the public key line's key is not base64")
        }
        try self.init(blob: Array(decoded))
        guard fields[0] == type.rawValue else {
            throw SSHError("the public key line names the type \(SSHError.quoted(String(fields[0]))) but holds an \(type.rawValue) key")
        }
    }

    /// The key as an `authorized_keys` (and `.pub`) line: its type, its blob in base64, and `comment`
    /// when it is not empty. Line breaks in the comment become spaces (the line is one line).
    package func openSSH(comment: String) -> String {
        let line = "\(type.rawValue) \(Data(blob).base64EncodedString())"
        let oneLine = comment.map { $0.isNewline ? " " : String($0) }.joined()
        return oneLine.isEmpty ? line : "\(line) \(oneLine)"
    }

    /// The fingerprint as `ssh-keygen -l` prints it: "SHA256:" and the base64 of the blob's SHA-256,
    /// without padding.
    package var fingerprint: String {
        let digest = Data(SHA256.hash(data: blob)).base64EncodedString()
        return "SHA256:" + digest.prefix { $0 != "=" }
    }

    /// The type and the fingerprint ("ssh-ed25519 SHA256:…").
    package var description: String { "\(type.rawValue) \(fingerprint)" }

    /// Whether `signature`, a signature blob as the protocol carries it (string algorithm, string
    /// signature bytes), is this key's signature of `data`.
    ///
    /// Accepts `ssh-ed25519`, `ecdsa-sha2-nistp256` (SHA-256), `ecdsa-sha2-nistp384` (SHA-384), and for RSA
    /// keys `rsa-sha2-256`, `rsa-sha2-512` and `ssh-rsa` (SHA-1: verified, for a server's host key, never
    /// made, ``SSHPrivateKey/sign(_:flags:)``). An algorithm of another key type, a malformed blob or
    /// trailing bytes are `false`.
    package func verify(signature: [UInt8], of data: [UInt8]) -> Bool {
        guard let material = try? SSHPublicKeyMaterial(blob: blob) else { return false }
        var reader = SSHReader(signature)
        guard let algorithm = try? reader.readString(), let bytes = try? reader.readString(), reader.isAtEnd else {
            return false
        }
        return material.verify(algorithm: String(decoding: algorithm, as: UTF8.self), signature: bytes, of: data)
    }
}

/// A parsed public key, as the swift-crypto key that verifies with it.
enum SSHPublicKeyMaterial {
    case ed25519(Curve25519.Signing.PublicKey)
    case p256(P256.Signing.PublicKey)
    case p384(P384.Signing.PublicKey)
    /// With the modulus and exponent as the blob carries them (magnitudes).
    case rsa(_RSA.Signing.PublicKey, n: [UInt8], e: [UInt8])

    /// The smallest RSA modulus read as a public key, OpenSSH's (SSH_RSA_MINIMUM_MODULUS_SIZE). A key the
    /// vault keeps has at least 2048 bits (``SSHPrivateKey/minimumRSABits``).
    static let minimumRSABits = 1024
    /// The largest RSA modulus, OpenSSH's and BoringSSL's.
    static let maximumRSABits = 16384

    init(blob: [UInt8]) throws(SSHError) {
        var reader = SSHReader(blob)
        let type = try SSHKeyType(wireName: try reader.readString())
        switch type {
        case .ed25519:
            let key = try reader.readString()
            guard key.count == 32 else { throw SSHError("an Ed25519 key is 32 bytes, not \(key.count)") }
            do { self = .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: key)) } catch {
                throw SSHError("the Ed25519 key is not valid")
            }
        case .ecdsaP256, .ecdsaP384:
            let curve = try reader.readString()
            guard curve.elementsEqual(type.curveName!.utf8) else {
                throw SSHError("an \(type.rawValue) key names the curve \(SSHError.quoted(curve))")
            }
            let point = try reader.readString()
            self = try Self.ecdsa(type, point: point)
        case .rsa:
            let e = try reader.readMPInt()
            let n = try reader.readMPInt()
            self = try Self.rsa(n: n, e: e)
        }
        try reader.expectEnd("the public key")
        guard self.blob == blob else { throw SSHError("the public key is not in its canonical encoding") }
    }

    /// An ECDSA public key from its uncompressed point (SEC 1 §2.3.3: 0x04, x, y), refused unless the
    /// point is on the curve.
    static func ecdsa(_ type: SSHKeyType, point: [UInt8]) throws(SSHError) -> SSHPublicKeyMaterial {
        let size = type == .ecdsaP256 ? 65 : 97
        guard point.count == size, point.first == 0x04 else {
            throw SSHError("an \(type.rawValue) key's point is \(size) bytes starting 0x04 (uncompressed), not \(point.count) bytes")
        }
        do {
            return type == .ecdsaP256
                ? .p256(try P256.Signing.PublicKey(x963Representation: point))
                : .p384(try P384.Signing.PublicKey(x963Representation: point))
        } catch {
            throw SSHError("the \(type.rawValue) key's point is not on its curve")
        }
    }

    /// An RSA public key from its modulus and exponent (magnitudes), refused unless the modulus has
    /// 1024 to 16384 bits and BoringSSL accepts the key (an odd exponent above 1 of at most 33 bits).
    static func rsa(n: [UInt8], e: [UInt8]) throws(SSHError) -> SSHPublicKeyMaterial {
        let bits = bitCount(n)
        guard bits >= minimumRSABits else { throw SSHError("RSA keys of under \(minimumRSABits) bits are refused (this one has \(bits))") }
        guard bits <= maximumRSABits else { throw SSHError("RSA keys of over \(maximumRSABits) bits are refused (this one has \(bits))") }
        do {
            return .rsa(try _RSA.Signing.PublicKey(unsafeDERRepresentation: RSAKeyDER.publicKey(n: n, e: e)), n: n, e: e)
        } catch {
            throw SSHError("the RSA key is not valid (its modulus or exponent)")
        }
    }

    /// The number of significant bits of a big-endian magnitude.
    static func bitCount(_ magnitude: [UInt8]) -> Int {
        let digits = magnitude.drop { $0 == 0 }
        guard let first = digits.first else { return 0 }
        return digits.count * 8 - first.leadingZeroBitCount
    }

    var type: SSHKeyType {
        switch self {
        case .ed25519: .ed25519
        case .p256: .ecdsaP256
        case .p384: .ecdsaP384
        case .rsa: .rsa
        }
    }

    /// The canonical public key blob.
    var blob: [UInt8] {
        var writer = SSHWriter()
        writer.write(utf8: type.rawValue)
        switch self {
        case .ed25519(let key):
            writer.write(string: Array(key.rawRepresentation))
        case .p256(let key):
            writer.write(utf8: type.curveName!)
            writer.write(string: Array(key.x963Representation))
        case .p384(let key):
            writer.write(utf8: type.curveName!)
            writer.write(string: Array(key.x963Representation))
        case .rsa(_, let n, let e):
            writer.write(mpint: e)
            writer.write(mpint: n)
        }
        return writer.bytes
    }

    func verify(algorithm: String, signature: [UInt8], of data: [UInt8]) -> Bool {
        switch self {
        case .ed25519(let key):
            return algorithm == SSHKeyType.ed25519.rawValue && signature.count == 64 && key.isValidSignature(signature, for: data)
        case .p256(let key):
            guard algorithm == SSHKeyType.ecdsaP256.rawValue, let raw = Self.ecdsaRaw(signature, coordinateSize: 32),
                let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: raw)
            else { return false }
            return key.isValidSignature(parsed, for: data)
        case .p384(let key):
            guard algorithm == SSHKeyType.ecdsaP384.rawValue, let raw = Self.ecdsaRaw(signature, coordinateSize: 48),
                let parsed = try? P384.Signing.ECDSASignature(rawRepresentation: raw)
            else { return false }
            return key.isValidSignature(parsed, for: data)
        case .rsa(let key, let n, _):
            // OpenSSH's own check: a signature no longer than the modulus, left-padded with zeros to it.
            let size = n.count
            guard !signature.isEmpty, signature.count <= size else { return false }
            let padded = _RSA.Signing.RSASignature(rawRepresentation: [UInt8](repeating: 0, count: size - signature.count) + signature)
            switch algorithm {
            case RSASignatureAlgorithm.sha256.rawValue:
                return key.isValidSignature(padded, for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5)
            case RSASignatureAlgorithm.sha512.rawValue:
                return key.isValidSignature(padded, for: SHA512.hash(data: data), padding: .insecurePKCS1v1_5)
            case SSHKeyType.rsa.rawValue:
                return key.isValidSignature(padded, for: Insecure.SHA1.hash(data: data), padding: .insecurePKCS1v1_5)
            default:
                return false
            }
        }
    }

    /// An ECDSA signature's bytes (RFC 5656 §3.1.2: mpint r, mpint s) as r‖s of fixed size; `nil` when
    /// malformed or a value is too long.
    static func ecdsaRaw(_ signature: [UInt8], coordinateSize: Int) -> [UInt8]? {
        var reader = SSHReader(signature)
        guard let r = try? reader.readMPInt(), let s = try? reader.readMPInt(), reader.isAtEnd,
            r.count <= coordinateSize, s.count <= coordinateSize
        else { return nil }
        return leftPadded(r, to: coordinateSize) + leftPadded(s, to: coordinateSize)
    }

    static func leftPadded(_ magnitude: [UInt8], to size: Int) -> [UInt8] {
        [UInt8](repeating: 0, count: max(0, size - magnitude.count)) + magnitude
    }
}

/// The RSA signature algorithms a vault key signs with (RFC 8332).
enum RSASignatureAlgorithm: String {
    case sha256 = "rsa-sha2-256"
    case sha512 = "rsa-sha2-512"
}
