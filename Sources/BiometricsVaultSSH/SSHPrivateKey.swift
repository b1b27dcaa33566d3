import BiometricsVaultCore
import Crypto
import _CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An SSH private key the vault keeps and signs with: Ed25519, ECDSA P-256 or P-384, or RSA of 2048 bits
/// or more, held as swift-crypto's key (BoringSSL's memory) and stored at rest as ``serialized``
/// (``SecretBytes``).
///
/// Its `description`, `debugDescription` and mirror show the type and fingerprint, never key material.
/// Two keys are equal when their serializations are (compared in constant time).
package struct SSHPrivateKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    package let publicKey: SSHPublicKey
    private let material: Material

    private enum Material: Sendable {
        case ed25519(Curve25519.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
        case p384(P384.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    /// The smallest RSA key accepted (NIST SP 800-131A; OpenSSH's `ssh-keygen` default is 3072).
    package static let minimumRSABits = 2048
    /// The size of a generated RSA key.
    package static let generatedRSABits = 3072
    /// The leading byte of ``serialized``: the storage format's version.
    package static let serializationVersion: UInt8 = 1

    private init(material: Material) throws(SSHError) {
        self.material = material
        switch material {
        case .ed25519(let key): publicKey = SSHPublicKey(material: .ed25519(key.publicKey))
        case .p256(let key): publicKey = SSHPublicKey(material: .p256(key.publicKey))
        case .p384(let key): publicKey = SSHPublicKey(material: .p384(key.publicKey))
        case .rsa(let key):
            guard let primitives = try? key.publicKey.getKeyPrimitives() else {
                throw SSHError("the RSA key's modulus and exponent could not be read")
            }
            let n = Array(primitives.modulus.drop { $0 == 0 })
            let e = Array(primitives.publicExponent.drop { $0 == 0 })
            publicKey = SSHPublicKey(material: .rsa(key.publicKey, n: n, e: e))
        }
    }

    /// A new random key of `type` (RSA: ``generatedRSABits`` bits).
    package static func generate(_ type: SSHKeyType) throws(SSHError) -> SSHPrivateKey {
        switch type {
        case .ed25519: return try SSHPrivateKey(material: .ed25519(Curve25519.Signing.PrivateKey()))
        case .ecdsaP256: return try SSHPrivateKey(material: .p256(P256.Signing.PrivateKey()))
        case .ecdsaP384: return try SSHPrivateKey(material: .p384(P384.Signing.PrivateKey()))
        case .rsa:
            let key: _RSA.Signing.PrivateKey
            do { key = try _RSA.Signing.PrivateKey(keySize: .init(bitCount: generatedRSABits)) } catch {
                throw SSHError("an RSA key could not be generated")
            }
            return try SSHPrivateKey(material: .rsa(key))
        }
    }

    // MARK: The agent's encoding

    /// Reads a key as `ssh-add` sends it in SSH_AGENTC_ADD_IDENTITY and SSH_AGENTC_ADD_ID_CONSTRAINED
    /// (OpenSSH's private key serialization, also the body of an `openssh-key-v1` file): the key type,
    /// then for Ed25519 `string public (32), string private (64: seed ‖ public)`, for ECDSA `string curve,
    /// string Q, mpint d`, for RSA `mpint n, e, d, iqmp, p, q`. Leaves `reader` after the key (the comment
    /// and constraints follow).
    ///
    /// The private part must match the public part: the Ed25519 seed derives the public key, the ECDSA
    /// scalar derives Q, the RSA numbers make a key BoringSSL checks (n = pq, d inverts e) whose CRT
    /// coefficient is iqmp. RSA keys of under ``minimumRSABits`` bits are refused, as are DSA,
    /// security-key and certificate types.
    package init(agentFields reader: inout SSHReader) throws(SSHError) {
        let type = try SSHKeyType(wireName: try reader.readString())
        switch type {
        case .ed25519:
            let publicBytes = try reader.readString()
            var privateBytes = try reader.readString()
            defer { wipeBytes(&privateBytes) }
            guard publicBytes.count == 32 else { throw SSHError("an Ed25519 public key is 32 bytes, not \(publicBytes.count)") }
            guard privateBytes.count == 64 else {
                throw SSHError("an Ed25519 private key is 64 bytes (seed and public key), not \(privateBytes.count)")
            }
            guard privateBytes[32...].elementsEqual(publicBytes) else {
                throw SSHError("the Ed25519 private key's public half differs from its public key")
            }
            let key: Curve25519.Signing.PrivateKey
            do { key = try Curve25519.Signing.PrivateKey(rawRepresentation: privateBytes[..<32]) } catch {
                throw SSHError("the Ed25519 private key is not valid")
            }
            guard key.publicKey.rawRepresentation.elementsEqual(publicBytes) else {
                throw SSHError("the Ed25519 seed does not derive the public key sent with it")
            }
            try self.init(material: .ed25519(key))
        case .ecdsaP256, .ecdsaP384:
            let curve = try reader.readString()
            guard curve.elementsEqual(type.curveName!.utf8) else {
                throw SSHError("an \(type.rawValue) key names the curve \(SSHError.quoted(curve))")
            }
            let point = try reader.readString()
            var scalar = try reader.readMPInt()
            defer { wipeBytes(&scalar) }
            _ = try SSHPublicKeyMaterial.ecdsa(type, point: point)
            let size = type == .ecdsaP256 ? 32 : 48
            guard !scalar.isEmpty, scalar.count <= size else { throw SSHError("the \(type.rawValue) private scalar is out of range") }
            var raw = SSHPublicKeyMaterial.leftPadded(scalar, to: size)
            defer { wipeBytes(&raw) }
            let material: Material
            let derived: Data
            do {
                if type == .ecdsaP256 {
                    let key = try P256.Signing.PrivateKey(rawRepresentation: raw)
                    (material, derived) = (.p256(key), key.publicKey.x963Representation)
                } else {
                    let key = try P384.Signing.PrivateKey(rawRepresentation: raw)
                    (material, derived) = (.p384(key), key.publicKey.x963Representation)
                }
            } catch {
                throw SSHError("the \(type.rawValue) private scalar is out of range")
            }
            guard derived.elementsEqual(point) else {
                throw SSHError("the \(type.rawValue) private scalar does not derive the public point sent with it")
            }
            try self.init(material: material)
        case .rsa:
            var numbers: [[UInt8]] = []  // n, e, d, iqmp, p, q
            defer { for index in numbers.indices { wipeBytes(&numbers[index]) } }
            for _ in 0..<6 { numbers.append(try reader.readMPInt()) }
            try self.init(rsaN: numbers[0], e: numbers[1], d: numbers[2], iqmp: numbers[3], p: numbers[4], q: numbers[5])
        }
    }

    private init(rsaN n: [UInt8], e: [UInt8], d: [UInt8], iqmp: [UInt8], p: [UInt8], q: [UInt8]) throws(SSHError) {
        let bits = SSHPublicKeyMaterial.bitCount(n)
        guard bits >= Self.minimumRSABits else {
            throw SSHError("RSA keys of under \(Self.minimumRSABits) bits are not accepted (this one has \(bits))")
        }
        _ = try SSHPublicKeyMaterial.rsa(n: n, e: e)
        // Zero or one for a prime would reach swift-crypto's arithmetic modulo p - 1; no real factor is that small.
        guard !d.isEmpty, p.count >= 2, q.count >= 2, d.count <= n.count, p.count <= n.count, q.count <= n.count else {
            throw SSHError("the RSA private key's d, p or q is out of range")
        }
        let key: _RSA.Signing.PrivateKey
        do { key = try _RSA.Signing.PrivateKey(n: n, e: e, d: d, p: p, q: q) } catch {
            throw SSHError("the RSA private key is not valid (its d, p and q do not make a key with its n and e)")
        }
        var der = Array(key.derRepresentation)
        defer { wipeBytes(&der) }
        guard var integers = RSAKeyDER.privateKeyIntegers(der) else { throw SSHError("the RSA private key could not be read back") }
        defer { for index in integers.indices { wipeBytes(&integers[index]) } }
        guard integers[7] == iqmp else { throw SSHError("the RSA private key's iqmp is not the inverse of q modulo p") }
        try self.init(material: .rsa(key))
    }

    /// The key as ``init(agentFields:)`` reads it (what `ssh-add` sends), for a client of an agent.
    package var agentFields: SecretBytes {
        var writer = SSHWriter()
        defer { writer.wipe() }
        writeAgentFields(to: &writer)
        return SecretBytes(writer.bytes)
    }

    func writeAgentFields(to writer: inout SSHWriter) {
        writer.write(utf8: publicKey.type.rawValue)
        switch material {
        case .ed25519(let key):
            let publicBytes = Array(key.publicKey.rawRepresentation)
            var privateBytes = Array(key.rawRepresentation) + publicBytes
            defer { wipeBytes(&privateBytes) }
            writer.write(string: publicBytes)
            writer.write(string: privateBytes)
        case .p256(let key):
            Self.writeECDSA(curve: "nistp256", point: key.publicKey.x963Representation, scalar: key.rawRepresentation, to: &writer)
        case .p384(let key):
            Self.writeECDSA(curve: "nistp384", point: key.publicKey.x963Representation, scalar: key.rawRepresentation, to: &writer)
        case .rsa(let key):
            var der = Array(key.derRepresentation)
            defer { wipeBytes(&der) }
            guard var integers = RSAKeyDER.privateKeyIntegers(der) else {
                preconditionFailure("BoringSSL wrote an RSA private key that is not two-prime PKCS#1")
            }
            defer { for index in integers.indices { wipeBytes(&integers[index]) } }
            // PKCS#1 order n, e, d, p, q, dp, dq, qinv; OpenSSH's n, e, d, iqmp, p, q.
            for index in [0, 1, 2, 7, 3, 4] { writer.write(mpint: integers[index]) }
        }
    }

    private static func writeECDSA(curve: String, point: Data, scalar: Data, to writer: inout SSHWriter) {
        var raw = Array(scalar)
        defer { wipeBytes(&raw) }
        writer.write(utf8: curve)
        writer.write(string: Array(point))
        writer.write(mpint: raw)
    }

    // MARK: Storage at rest

    /// The key for storage at rest: a version byte (``serializationVersion``), then for Ed25519 and ECDSA
    /// the ``agentFields`` encoding, for RSA the string "ssh-rsa" and a string holding the PKCS#1 DER
    /// `RSAPrivateKey`. ``init(serialized:)`` reads it back to the same bytes.
    package var serialized: SecretBytes {
        var writer = SSHWriter()
        defer { writer.wipe() }
        writer.write(byte: Self.serializationVersion)
        if case .rsa(let key) = material {
            var der = Array(key.derRepresentation)
            defer { wipeBytes(&der) }
            writer.write(utf8: SSHKeyType.rsa.rawValue)
            writer.write(string: der)
        } else {
            writeAgentFields(to: &writer)
        }
        return SecretBytes(writer.bytes)
    }

    /// Reads ``serialized`` back, with the checks of ``init(agentFields:)``; only the exact bytes
    /// ``serialized`` writes are read.
    package init(serialized: SecretBytes) throws(SSHError) {
        var reader = serialized.withUnsafeBytes { SSHReader(Array($0)) }
        defer { reader.wipe() }
        let version = try reader.readByte()
        guard version == Self.serializationVersion else { throw SSHError("a stored SSH key of an unknown format (version \(version))") }
        if try reader.peekString().elementsEqual(SSHKeyType.rsa.rawValue.utf8) {
            _ = try reader.readString()
            var der = try reader.readString()
            defer { wipeBytes(&der) }
            let key: _RSA.Signing.PrivateKey
            do { key = try _RSA.Signing.PrivateKey(derRepresentation: der) } catch {
                throw SSHError("the stored RSA key is not valid")
            }
            try self.init(material: .rsa(key))
        } else {
            try self.init(agentFields: &reader)
        }
        try reader.expectEnd("the stored SSH key")
        // One key has one stored form (no PKCS#8 wrapping, no redundant zeros): what is read is what is written.
        guard self.serialized == serialized else { throw SSHError("the stored SSH key is not in its canonical form") }
    }

    // MARK: Signing

    /// The protocol's signature blob (string algorithm, string signature) of `data`.
    ///
    /// `flags` are SSH_AGENTC_SIGN_REQUEST's. An RSA key signs `rsa-sha2-256` for
    /// ``SSHAgentRequest/rsaSHA256Flag``, else `rsa-sha2-512` for ``SSHAgentRequest/rsaSHA512Flag``, and
    /// refuses a request with neither: SHA-1 (`ssh-rsa`) signatures are not made. ECDSA signs with
    /// SHA-256 (P-256) or SHA-384 (P-384), its signature bytes `mpint r, mpint s`; Ed25519 makes its 64
    /// bytes. Flags mean nothing to the other types.
    package func sign(_ data: [UInt8], flags: UInt32) throws(SSHError) -> [UInt8] {
        var writer = SSHWriter()
        do {
            switch material {
            case .ed25519(let key):
                writer.write(utf8: SSHKeyType.ed25519.rawValue)
                writer.write(string: Array(try key.signature(for: data)))
            case .p256(let key):
                writer.write(utf8: SSHKeyType.ecdsaP256.rawValue)
                writer.write(string: Self.ecdsaSignature(Array(try key.signature(for: data).rawRepresentation)))
            case .p384(let key):
                writer.write(utf8: SSHKeyType.ecdsaP384.rawValue)
                writer.write(string: Self.ecdsaSignature(Array(try key.signature(for: data).rawRepresentation)))
            case .rsa(let key):
                let signature: _RSA.Signing.RSASignature
                if flags & SSHAgentRequest.rsaSHA256Flag != 0 {
                    writer.write(utf8: RSASignatureAlgorithm.sha256.rawValue)
                    signature = try key.signature(for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5)
                } else if flags & SSHAgentRequest.rsaSHA512Flag != 0 {
                    writer.write(utf8: RSASignatureAlgorithm.sha512.rawValue)
                    signature = try key.signature(for: SHA512.hash(data: data), padding: .insecurePKCS1v1_5)
                } else {
                    throw SSHError("SHA-1 RSA signatures (ssh-rsa) are not made: the request must ask for rsa-sha2-256 or rsa-sha2-512")
                }
                writer.write(string: Array(signature.rawRepresentation))
            }
        } catch let error as SSHError {
            throw error
        } catch {
            throw SSHError("the \(publicKey.type.rawValue) signature could not be made")
        }
        return writer.bytes
    }

    /// r‖s as RFC 5656 §3.1.2's signature bytes: mpint r, mpint s.
    private static func ecdsaSignature(_ raw: [UInt8]) -> [UInt8] {
        var writer = SSHWriter()
        writer.write(mpint: raw[..<(raw.count / 2)])
        writer.write(mpint: raw[(raw.count / 2)...])
        return writer.bytes
    }

    // MARK: Redacted descriptions

    package var description: String { "SSHPrivateKey(\(publicKey), private key redacted)" }
    package var debugDescription: String { description }
    package var customMirror: Mirror { Mirror(self, children: ["publicKey": publicKey]) }

    package static func == (lhs: SSHPrivateKey, rhs: SSHPrivateKey) -> Bool {
        lhs.serialized == rhs.serialized
    }
}
