import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An SSHSIG signature (OpenSSH PROTOCOL.sshsig): what `ssh-keygen -Y sign` writes and git's SSH commit
/// signing uses. The key signs ``signedData(namespace:hashAlgorithm:messageHash:)``, never the message
/// itself, so a signature made for one namespace ("git", "file") is no signature for another, nor an SSH
/// login.
///
/// The signature's blob: byte[6] "SSHSIG", uint32 version 1, string public key blob, string namespace,
/// string reserved, string hash algorithm, string signature blob; ``armored`` wraps it in base64
/// between `-----BEGIN SSH SIGNATURE-----` and `-----END SSH SIGNATURE-----`.
package struct SSHSIG: Sendable, Equatable {
    package let publicKey: SSHPublicKey
    package let namespace: String
    /// "sha256" or "sha512".
    package let hashAlgorithm: String
    /// The key's signature blob (string algorithm, string signature) of the signed data.
    package let signature: [UInt8]
    private let reserved: [UInt8]

    static let magic = Array("SSHSIG".utf8)
    package static let version: UInt32 = 1
    /// The hash algorithms PROTOCOL.sshsig defines.
    package static let hashAlgorithms = ["sha256", "sha512"]
    static let armorBegin = "-----BEGIN SSH SIGNATURE-----"
    static let armorEnd = "-----END SSH SIGNATURE-----"

    /// The data the key signs: byte[6] "SSHSIG", string namespace, string reserved (empty), string hash
    /// algorithm, string H(message).
    package static func signedData(namespace: String, hashAlgorithm: String, messageHash: [UInt8]) -> [UInt8] {
        var writer = SSHWriter()
        writer.write(raw: magic)
        writer.write(utf8: namespace)
        writer.write(string: [UInt8]())
        writer.write(utf8: hashAlgorithm)
        writer.write(string: messageHash)
        return writer.bytes
    }

    /// H(message) for a hash algorithm of ``hashAlgorithms``; `nil` for another.
    package static func messageHash(_ message: [UInt8], algorithm: String) -> [UInt8]? {
        switch algorithm {
        case "sha256": Array(SHA256.hash(data: message))
        case "sha512": Array(SHA512.hash(data: message))
        default: nil
        }
    }

    /// Signs `message` for `namespace` with `key` (an RSA key with `rsa-sha2-512`, as `ssh-keygen`).
    package static func sign(_ message: [UInt8], namespace: String, with key: SSHPrivateKey, hashAlgorithm: String = "sha512") throws(SSHError) -> SSHSIG {
        guard let hash = messageHash(message, algorithm: hashAlgorithm) else {
            throw SSHError("the SSHSIG hash algorithm \(SSHError.quoted(hashAlgorithm)) is not sha256 or sha512")
        }
        let data = signedData(namespace: namespace, hashAlgorithm: hashAlgorithm, messageHash: hash)
        let signature = try key.sign(data, flags: SSHAgentRequest.rsaSHA512Flag)
        return SSHSIG(publicKey: key.publicKey, namespace: namespace, hashAlgorithm: hashAlgorithm, signature: signature, reserved: [])
    }

    private init(publicKey: SSHPublicKey, namespace: String, hashAlgorithm: String, signature: [UInt8], reserved: [UInt8]) {
        self.publicKey = publicKey
        self.namespace = namespace
        self.hashAlgorithm = hashAlgorithm
        self.signature = signature
        self.reserved = reserved
    }

    /// Reads a signature's blob.
    package init(blob: [UInt8]) throws(SSHError) {
        guard blob.starts(with: Self.magic) else { throw SSHError("an SSHSIG signature starts with \"SSHSIG\"") }
        var reader = SSHReader(Array(blob.dropFirst(Self.magic.count)))
        let version = try reader.readUInt32()
        guard version == Self.version else { throw SSHError("an SSHSIG signature of version \(version) (1 is read)") }
        publicKey = try SSHPublicKey(blob: try reader.readString())
        namespace = try reader.readUTF8()
        reserved = try reader.readString()
        hashAlgorithm = try reader.readUTF8()
        signature = try reader.readString()
        try reader.expectEnd("the SSHSIG signature")
    }

    package var blob: [UInt8] {
        var writer = SSHWriter()
        writer.write(raw: Self.magic)
        writer.write(uint32: Self.version)
        writer.write(string: publicKey.blob)
        writer.write(utf8: namespace)
        writer.write(string: reserved)
        writer.write(utf8: hashAlgorithm)
        writer.write(string: signature)
        return writer.bytes
    }

    /// Reads an armored signature (`ssh-keygen -Y sign`'s `.sig` file).
    package init(armored text: String) throws(SSHError) {
        let lines = text.split(whereSeparator: \.isNewline).map(Self.trimmed).filter { !$0.isEmpty }
        guard lines.first == Self.armorBegin, lines.last == Self.armorEnd, lines.count >= 3 else {
            throw SSHError("an armored SSH signature is base64 between \(Self.armorBegin) and \(Self.armorEnd)")
        }
        guard let blob = Data(base64Encoded: lines.dropFirst().dropLast().joined()) else {
            throw SSHError("the armored SSH signature is not base64")
        }
        try self.init(blob: Array(blob))
    }

    private static func trimmed(_ line: Substring) -> String {
        String(line.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }

    /// The signature as `ssh-keygen -Y sign` writes it: base64 in lines of 70 characters, armored.
    package var armored: String {
        let encoded = Array(Data(blob).base64EncodedString())
        let lines = stride(from: 0, to: encoded.count, by: 70).map { String(encoded[$0..<min($0 + 70, encoded.count)]) }
        return ([Self.armorBegin] + lines + [Self.armorEnd]).joined(separator: "\n") + "\n"
    }

    /// The data the key signed for `message` (``signedData(namespace:hashAlgorithm:messageHash:)``);
    /// `nil` for a hash algorithm not in ``hashAlgorithms``.
    package func signedData(of message: [UInt8]) -> [UInt8]? {
        guard let hash = Self.messageHash(message, algorithm: hashAlgorithm) else { return nil }
        var writer = SSHWriter()
        writer.write(raw: Self.magic)
        writer.write(utf8: namespace)
        writer.write(string: reserved)
        writer.write(utf8: hashAlgorithm)
        writer.write(string: hash)
        return writer.bytes
    }

    /// Whether this is ``publicKey``'s signature of `message` in ``namespace``. As `ssh-keygen -Y verify`,
    /// an RSA signature must be `rsa-sha2-256` or `rsa-sha2-512`, not SHA-1.
    package func verify(_ message: [UInt8]) -> Bool {
        guard let data = signedData(of: message) else { return false }
        var reader = SSHReader(signature)
        if publicKey.type == .rsa, (try? reader.readString()).map({ $0.elementsEqual(SSHKeyType.rsa.rawValue.utf8) }) ?? true {
            return false
        }
        return publicKey.verify(signature: signature, of: data)
    }
}
