import BiometricsVaultCore
import BiometricsVaultSSH
import Foundation
import Testing

@Suite struct SSHKeyTests {
    static let data = Array("the data to sign".utf8)

    @Test(arguments: SSHKeyType.allCases)
    func signaturesVerify(type: SSHKeyType) throws {
        let key = try TestKeys.key(type)
        #expect(key.publicKey.type == type)
        let flags = type == .rsa ? SSHAgentRequest.rsaSHA512Flag : 0
        let signature = try key.sign(Self.data, flags: flags)
        #expect(key.publicKey.verify(signature: signature, of: Self.data))
        #expect(!key.publicKey.verify(signature: signature, of: Self.data + [0]))
        #expect(!key.publicKey.verify(signature: signature, of: []))
        // A flipped bit in the signature, or trailing bytes after it.
        var altered = signature
        altered[altered.count - 1] ^= 0x01
        #expect(!key.publicKey.verify(signature: altered, of: Self.data))
        #expect(!key.publicKey.verify(signature: signature + [0], of: Self.data))
        // Another key of the same type does not verify it.
        let other = try SSHPrivateKey.generate(type == .rsa ? .ed25519 : type)
        #expect(!other.publicKey.verify(signature: signature, of: Self.data))
    }

    @Test(arguments: [
        (SSHKeyType.ed25519, "ssh-ed25519"), (.ecdsaP256, "ecdsa-sha2-nistp256"), (.ecdsaP384, "ecdsa-sha2-nistp384"),
    ])
    func signatureAlgorithms(type: SSHKeyType, algorithm: String) throws {
        let key = try TestKeys.key(type)
        var reader = SSHReader(try key.sign(Self.data, flags: 0xFF))
        #expect(try reader.readUTF8() == algorithm)
        let bytes = try reader.readString()
        try reader.expectEnd("the signature")
        if type == .ed25519 {
            #expect(bytes.count == 64)
        } else {
            // mpint r, mpint s: each at most the coordinate's size (plus a leading zero).
            var inner = SSHReader(bytes)
            let r = try inner.readMPInt(), s = try inner.readMPInt()
            try inner.expectEnd("the ECDSA signature")
            let size = type == .ecdsaP256 ? 32 : 48
            #expect(r.count <= size && s.count <= size && !r.isEmpty && !s.isEmpty)
        }
    }

    @Test(arguments: [
        (SSHAgentRequest.rsaSHA256Flag, "rsa-sha2-256"), (SSHAgentRequest.rsaSHA512Flag, "rsa-sha2-512"),
        (SSHAgentRequest.rsaSHA256Flag | SSHAgentRequest.rsaSHA512Flag, "rsa-sha2-256"),
    ])
    func rsaAlgorithmFollowsTheFlags(flags: UInt32, algorithm: String) throws {
        let key = try TestKeys.key(.rsa)
        let signature = try key.sign(Self.data, flags: flags)
        var reader = SSHReader(signature)
        #expect(try reader.readUTF8() == algorithm)
        #expect(try reader.readString().count == 3072 / 8)
        #expect(key.publicKey.verify(signature: signature, of: Self.data))
    }

    @Test(arguments: [UInt32(0), 1, 8])
    func rsaRefusesSHA1(flags: UInt32) throws {
        let key = try TestKeys.key(.rsa)
        let error = #expect(throws: SSHError.self) { try key.sign(Self.data, flags: flags) }
        #expect(error?.message.contains("SHA-1") == true)
    }

    @Test(arguments: SSHKeyType.allCases)
    func serializationRoundTrips(type: SSHKeyType) throws {
        let key = try TestKeys.key(type)
        let stored = key.serialized
        #expect(stored.copyBytes().first == SSHPrivateKey.serializationVersion)
        let restored = try SSHPrivateKey(serialized: stored)
        #expect(restored == key)
        #expect(restored.publicKey == key.publicKey)
        #expect(restored.serialized == stored)
        let flags = type == .rsa ? SSHAgentRequest.rsaSHA256Flag : 0
        #expect(key.publicKey.verify(signature: try restored.sign(Self.data, flags: flags), of: Self.data))
        // The agent's encoding reads back to the same key too.
        var reader = SSHReader(key.agentFields.copyBytes())
        #expect(try SSHPrivateKey(agentFields: &reader) == key)
        #expect(reader.isAtEnd)
    }

    @Test func serializationRefusals() throws {
        let stored = try TestKeys.key(.ed25519).serialized.copyBytes()
        #expect(throws: SSHError.self) { try SSHPrivateKey(serialized: SecretBytes([2] + stored.dropFirst())) }
        #expect(throws: SSHError.self) { try SSHPrivateKey(serialized: SecretBytes(stored + [0])) }
        #expect(throws: SSHError.self) { try SSHPrivateKey(serialized: SecretBytes(stored.dropLast())) }
        #expect(throws: SSHError.self) { try SSHPrivateKey(serialized: SecretBytes([UInt8]())) }
        let rsa = try TestKeys.key(.rsa).serialized.copyBytes()
        #expect(throws: SSHError.self) { try SSHPrivateKey(serialized: SecretBytes(rsa.dropLast(10))) }
        var corrupt = rsa
        corrupt[corrupt.count / 2] ^= 0x40
        #expect(throws: SSHError.self) { try SSHPrivateKey(serialized: SecretBytes(corrupt)) }
    }

    @Test(arguments: SSHKeyType.allCases)
    func openSSHLineRoundTrips(type: SSHKeyType) throws {
        let publicKey = try TestKeys.key(type).publicKey
        let line = publicKey.openSSH(comment: "alice@example")
        #expect(line.hasPrefix("\(type.rawValue) AAAA"))
        #expect(line.hasSuffix(" alice@example"))
        #expect(try SSHPublicKey(openSSH: line) == publicKey)
        #expect(try SSHPublicKey(openSSH: publicKey.openSSH(comment: "")) == publicKey)
        #expect(publicKey.openSSH(comment: "").split(separator: " ").count == 2)
        #expect(try SSHPublicKey(openSSH: "  " + line + "\n") == publicKey)
        #expect(try SSHPublicKey(blob: publicKey.blob) == publicKey)
    }

    @Test(arguments: SSHKeyType.allCases)
    func fingerprintFormat(type: SSHKeyType) throws {
        let fingerprint = try TestKeys.key(type).publicKey.fingerprint
        #expect(fingerprint.hasPrefix("SHA256:"))
        // 32 bytes in base64 without its one "=": 43 characters.
        let digest = fingerprint.dropFirst("SHA256:".count)
        #expect(digest.count == 43)
        #expect(!digest.contains("="))
        #expect(Data(base64Encoded: digest + "=")?.count == 32)
    }

    /// A known key: the Ed25519 key of RFC 8032's first test vector, whose fingerprint ssh-keygen prints
    /// for the line below.
    @Test func knownFingerprint() throws {
        let publicKey = [UInt8](hex: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        let blob = wire {
            $0.write(utf8: "ssh-ed25519")
            $0.write(string: publicKey)
        }
        let key = try SSHPublicKey(blob: blob)
        #expect(key.openSSH(comment: "") == "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea")
        #expect(key.fingerprint == "SHA256:bbXpuKG6zhzdmnxq256TlqzFBzRl2f6OOg722cYNbU8")
    }

    @Test func typeOptions() {
        #expect(SSHKeyType(option: "ed25519") == .ed25519)
        #expect(SSHKeyType(option: "ecdsa") == .ecdsaP256)
        #expect(SSHKeyType(option: "ecdsa-p384") == .ecdsaP384)
        #expect(SSHKeyType(option: "rsa") == .rsa)
        #expect(SSHKeyType(option: "dsa") == nil)
        #expect(SSHKeyType(option: "ssh-ed25519") == nil)
        for type in SSHKeyType.allCases { #expect(SSHKeyType(option: type.option) == type) }
    }

    @Test(arguments: SSHKeyType.allCases)
    func descriptionsAreRedacted(type: SSHKeyType) throws {
        let key = try TestKeys.key(type)
        let secret = key.serialized.copyBytes()
        var dumped = ""
        dump(key, to: &dumped)
        let request = SSHAgentRequest.addIdentity(key: key, comment: "c", constraints: [])
        #expect(key.description.contains(key.publicKey.fingerprint) && key.description.contains("redacted"))
        for text in [key.description, String(reflecting: key), dumped, "\(request)", String(reflecting: request)] {
            // The stored property that holds the key is never shown, nor the key's bytes in any spelling.
            #expect(!text.contains("material"))
            #expect(!text.contains(secret.hex) && !text.contains(Data(secret).base64EncodedString()))
        }
        let lock = SSHAgentRequest.lock(passphrase: SecretBytes(utf8: "hunter2"))
        #expect(!"\(lock)".contains("hunter2") && !String(reflecting: lock).contains("hunter2"))
    }
}

@Suite struct SSHPublicKeyRefusalTests {
    static func blob(_ type: String, _ fields: (inout SSHWriter) -> Void) -> [UInt8] {
        wire {
            $0.write(utf8: type)
            fields(&$0)
        }
    }

    @Test(arguments: [
        ("ssh-dss", "DSA keys are not supported"),
        ("ssh-ed25519-cert-v01@openssh.com", "certificates are not supported"),
        ("sk-ssh-ed25519@openssh.com", "security-key (sk-) keys are not supported"),
        ("ssh-xmss@openssh.com", "unknown key type \"ssh-xmss@openssh.com\""),
    ])
    func unsupportedTypes(type: String, message: String) throws {
        let error = #expect(throws: SSHError.self) { try SSHPublicKey(blob: Self.blob(type) { $0.write(string: [UInt8](repeating: 1, count: 32)) }) }
        #expect(error?.message.hasPrefix(message) == true)
    }

    @Test func malformedKeys() throws {
        let ed25519 = try TestKeys.key(.ed25519).publicKey.blob
        #expect(throws: SSHError.self) { try SSHPublicKey(blob: ed25519 + [0]) }
        #expect(throws: SSHError.self) { try SSHPublicKey(blob: Array(ed25519.dropLast())) }
        #expect(throws: SSHError.self) { try SSHPublicKey(blob: Self.blob("ssh-ed25519") { $0.write(string: [UInt8](repeating: 1, count: 31)) }) }
        #expect(throws: SSHError.self) { try SSHPublicKey(blob: []) }

        // A point off the curve, a compressed point, the wrong curve.
        let point = [UInt8](repeating: 0x11, count: 65)
        let offCurve = Self.blob("ecdsa-sha2-nistp256") {
            $0.write(utf8: "nistp256")
            $0.write(string: [0x04] + point.dropFirst())
        }
        let error = #expect(throws: SSHError.self) { try SSHPublicKey(blob: offCurve) }
        #expect(error?.message.contains("not on its curve") == true)
        let p256 = try TestKeys.key(.ecdsaP256).publicKey.blob
        var reader = SSHReader(p256)
        _ = try reader.readString()
        _ = try reader.readString()
        let q = try reader.readString()
        #expect(throws: SSHError.self) {
            try SSHPublicKey(blob: Self.blob("ecdsa-sha2-nistp256") {
                $0.write(utf8: "nistp384")
                $0.write(string: q)
            })
        }
        #expect(throws: SSHError.self) {
            try SSHPublicKey(blob: Self.blob("ecdsa-sha2-nistp256") {
                $0.write(utf8: "nistp256")
                $0.write(string: [0x02 | (q.last! & 1)] + q[1..<33])
            })
        }

        // RSA: too small, an even exponent, a non-canonical mpint.
        let smallN = [UInt8(0xC1)] + [UInt8](repeating: 0x5B, count: 125) + [0x01]  // 1016 bits
        let small = #expect(throws: SSHError.self) {
            try SSHPublicKey(blob: Self.blob("ssh-rsa") {
                $0.write(mpint: [0x01, 0x00, 0x01])
                $0.write(mpint: smallN)
            })
        }
        #expect(small?.message == "RSA keys of under 1024 bits are refused (this one has 1016)")
        let rsa = try TestKeys.key(.rsa).publicKey.blob
        var rsaReader = SSHReader(rsa)
        _ = try rsaReader.readString()
        _ = try rsaReader.readMPInt()
        let n = try rsaReader.readMPInt()
        #expect(throws: SSHError.self) {
            try SSHPublicKey(blob: Self.blob("ssh-rsa") {
                $0.write(mpint: [0x01, 0x00, 0x00])
                $0.write(mpint: n)
            })
        }
        #expect(throws: SSHError("the public key is not in its canonical encoding")) {
            try SSHPublicKey(blob: Self.blob("ssh-rsa") {
                $0.write(string: [0, 0x01, 0x00, 0x01])
                $0.write(mpint: n)
            })
        }
    }

    @Test func openSSHLineRefusals() throws {
        let line = try TestKeys.key(.ed25519).publicKey.openSSH(comment: "c")
        #expect(throws: SSHError.self) { try SSHPublicKey(openSSH: "ssh-ed25519") }
        #expect(throws: SSHError.self) { try SSHPublicKey(openSSH: "ssh-ed25519 not*base64") }
        #expect(throws: SSHError.self) { try SSHPublicKey(openSSH: "ssh-rsa" + line.dropFirst("ssh-ed25519".count)) }
    }
}
