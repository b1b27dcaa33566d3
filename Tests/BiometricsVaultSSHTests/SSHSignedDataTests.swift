import BiometricsVaultSSH
import Testing

@Suite struct SSHSignedDataTests {
    static let sessionID = [UInt8](repeating: 0xC3, count: 32)

    /// RFC 4252 §7's signed data for "publickey", or OpenSSH's host-bound method with the host key after.
    static func userAuthentication(
        method: String = "publickey", service: String = "ssh-connection", signatureFollows: UInt8 = 1,
        keyBlob: [UInt8], hostKeyBlob: [UInt8]? = nil
    ) -> [UInt8] {
        wire {
            $0.write(string: sessionID)
            $0.write(byte: 50)
            $0.write(utf8: "alice")
            $0.write(utf8: service)
            $0.write(utf8: method)
            $0.write(byte: signatureFollows)
            $0.write(utf8: "rsa-sha2-512")
            $0.write(string: keyBlob)
            if let hostKeyBlob { $0.write(string: hostKeyBlob) }
        }
    }

    @Test func userAuthentication() throws {
        let key = try TestKeys.key(.rsa).publicKey
        let data = Self.userAuthentication(keyBlob: key.blob)
        #expect(SSHSignedData(data) == .userAuthentication(sessionID: Self.sessionID, user: "alice", keyBlob: key.blob, hostKey: nil))
    }

    @Test func hostBoundUserAuthentication() throws {
        let key = try TestKeys.key(.ed25519).publicKey
        let hostKey = try TestKeys.key(.ecdsaP256).publicKey
        let data = Self.userAuthentication(method: "publickey-hostbound-v00@openssh.com", keyBlob: key.blob, hostKeyBlob: hostKey.blob)
        #expect(SSHSignedData(data) == .userAuthentication(sessionID: Self.sessionID, user: "alice", keyBlob: key.blob, hostKey: hostKey))
        // Without its host key, or with one that does not parse, it is no host-bound request.
        #expect(SSHSignedData(Self.userAuthentication(method: "publickey-hostbound-v00@openssh.com", keyBlob: key.blob)) == .other)
        #expect(SSHSignedData(Self.userAuthentication(method: "publickey-hostbound-v00@openssh.com", keyBlob: key.blob, hostKeyBlob: [1, 2])) == .other)
    }

    @Test func nearMissesAreOther() throws {
        let blob = try TestKeys.key(.ed25519).publicKey.blob
        #expect(SSHSignedData(Self.userAuthentication(method: "password", keyBlob: blob)) == .other)
        #expect(SSHSignedData(Self.userAuthentication(service: "ssh-userauth", keyBlob: blob)) == .other)
        #expect(SSHSignedData(Self.userAuthentication(signatureFollows: 0, keyBlob: blob)) == .other)
        #expect(SSHSignedData(Self.userAuthentication(keyBlob: blob) + [0]) == .other)
        #expect(SSHSignedData(Self.userAuthentication(keyBlob: blob, hostKeyBlob: blob)) == .other)
        let data = Self.userAuthentication(keyBlob: blob)
        for cut in 0..<data.count { #expect(SSHSignedData(Array(data.prefix(cut))) == .other) }
    }

    @Test(arguments: ["git", "file", "ssh-agent-test"])
    func sshsig(namespace: String) throws {
        let hash = try #require(SSHSIG.messageHash(Array("message".utf8), algorithm: "sha256"))
        let data = SSHSIG.signedData(namespace: namespace, hashAlgorithm: "sha256", messageHash: hash)
        #expect(data.starts(with: Array("SSHSIG".utf8)))
        #expect(SSHSignedData(data) == .sshsig(namespace: namespace, hashAlgorithm: "sha256"))
        #expect(SSHSignedData(data + [0]) == .other)
        #expect(SSHSignedData(Array(data.dropLast())) == .other)
    }

    @Test func randomBytesAreOther() {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 4, 5, 31, 64, 200, 1000] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(SSHSignedData(bytes) == .other)
        }
        #expect(SSHSignedData(Array("SSHSIG".utf8)) == .other)
    }
}
