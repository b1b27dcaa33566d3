import BiometricsVaultCore
import BiometricsVaultSSH
import BiometricsVaultTestSupport
import Foundation
import Testing

/// Keys and signatures against OpenSSH's own `ssh-keygen`: its keys parse here with its fingerprints,
/// its private keys import as `ssh-add` sends them, and each side's SSHSIG signatures verify on the other.
@Suite(.needs(OpenSSH.need)) struct OpenSSHInteropTests {
    static let message = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@example> 1700000000 +0000\n\nsigned\n"

    /// `ssh-keygen -Y verify` of an SSHSIG signature in namespace "git" by `publicKey`.
    static func openSSHVerifies(_ signature: SSHSIG, by publicKey: SSHPublicKey, message: String = message, in directory: URL) async throws -> Bool {
        let signers = directory.appendingPathComponent("allowed_signers").path
        let signatureFile = directory.appendingPathComponent("message.sig").path
        try "signer@bv namespaces=\"git\" \(publicKey.openSSH(comment: ""))\n".write(toFile: signers, atomically: true, encoding: .utf8)
        try signature.armored.write(toFile: signatureFile, atomically: true, encoding: .utf8)
        let output = try await Shell.run(
            OpenSSH.keygen, ["-Y", "verify", "-f", signers, "-I", "signer@bv", "-n", "git", "-s", signatureFile], stdin: message)
        return output.status == 0
    }

    @Test(arguments: SSHKeyType.allCases)
    func openSSHKeysParseWithTheirFingerprints(type: SSHKeyType) async throws {
        let directory = try TestScratch.newDirectory("ssh")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try await OpenSSH.generate(OpenSSH.typeArguments(type), in: directory, comment: "alice@host")
        let line = try String(contentsOfFile: path + ".pub", encoding: .utf8)
        let publicKey = try SSHPublicKey(openSSH: line)
        #expect(publicKey.type == type)
        #expect(publicKey.fingerprint == (try await OpenSSH.fingerprint(ofPublicKeyFile: path + ".pub")))
        #expect(publicKey.openSSH(comment: "alice@host") == line.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Our keys' lines read in ssh-keygen with our fingerprint, and our SSHSIG signatures verify there.
    @Test(arguments: SSHKeyType.allCases)
    func ourSignaturesVerifyInOpenSSH(type: SSHKeyType) async throws {
        let directory = try TestScratch.newDirectory("ssh")
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try TestKeys.key(type)
        let publicFile = directory.appendingPathComponent("ours.pub").path
        try (key.publicKey.openSSH(comment: "ours") + "\n").write(toFile: publicFile, atomically: true, encoding: .utf8)
        #expect(try await OpenSSH.fingerprint(ofPublicKeyFile: publicFile) == key.publicKey.fingerprint)

        let signature = try SSHSIG.sign(Array(Self.message.utf8), namespace: "git", with: key)
        #expect(signature.verify(Array(Self.message.utf8)))
        #expect(try await Self.openSSHVerifies(signature, by: key.publicKey, in: directory))
        // The same signature is no signature of another message, or in another namespace.
        #expect(!(try await Self.openSSHVerifies(signature, by: key.publicKey, message: Self.message + "x", in: directory)))
        let file = try SSHSIG.sign(Array(Self.message.utf8), namespace: "file", with: key)
        #expect(!(try await Self.openSSHVerifies(file, by: key.publicKey, in: directory)))
        // SHA-256 as the message hash verifies too.
        let sha256 = try SSHSIG.sign(Array(Self.message.utf8), namespace: "git", with: key, hashAlgorithm: "sha256")
        #expect(try await Self.openSSHVerifies(sha256, by: key.publicKey, in: directory))
    }

    /// Our rsa-sha2-256 signature verifies in OpenSSH as well as the rsa-sha2-512 one `SSHSIG.sign` makes.
    @Test func rsaSHA256SignatureVerifiesInOpenSSH() async throws {
        let directory = try TestScratch.newDirectory("ssh")
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try TestKeys.key(.rsa)
        let hash = try #require(SSHSIG.messageHash(Array(Self.message.utf8), algorithm: "sha512"))
        let data = SSHSIG.signedData(namespace: "git", hashAlgorithm: "sha512", messageHash: hash)
        let rsaSignature = try key.sign(data, flags: SSHAgentRequest.rsaSHA256Flag)
        var algorithm = SSHReader(rsaSignature)
        #expect(try algorithm.readUTF8() == "rsa-sha2-256")
        let blob = wire {
            $0.write(raw: Array("SSHSIG".utf8))
            $0.write(uint32: 1)
            $0.write(string: key.publicKey.blob)
            $0.write(utf8: "git")
            $0.write(utf8: "")
            $0.write(utf8: "sha512")
            $0.write(string: rsaSignature)
        }
        let signature = try SSHSIG(blob: blob)
        #expect(signature.blob == blob)
        #expect(signature.verify(Array(Self.message.utf8)))
        #expect(try await Self.openSSHVerifies(signature, by: key.publicKey, in: directory))
    }

    /// ssh-keygen's SSHSIG signatures verify here, and the data they sign reads as SSHSIG for "git".
    @Test(arguments: SSHKeyType.allCases)
    func openSSHSignaturesVerifyHere(type: SSHKeyType) async throws {
        let directory = try TestScratch.newDirectory("ssh")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try await OpenSSH.generate(OpenSSH.typeArguments(type), in: directory)
        let publicKey = try SSHPublicKey(openSSH: try String(contentsOfFile: path + ".pub", encoding: .utf8))
        let messageFile = directory.appendingPathComponent("message").path
        try Self.message.write(toFile: messageFile, atomically: true, encoding: .utf8)
        try await OpenSSH.run(["-Y", "sign", "-f", path, "-n", "git", messageFile])
        let armored = try String(contentsOfFile: messageFile + ".sig", encoding: .utf8)
        let signature = try SSHSIG(armored: armored)
        #expect(signature.publicKey == publicKey)
        #expect(signature.namespace == "git")
        #expect(signature.armored == armored)
        let message = Array(Self.message.utf8)
        #expect(signature.verify(message))
        #expect(!signature.verify(message + [0x0A]))
        let signedData = try #require(signature.signedData(of: message))
        #expect(publicKey.verify(signature: signature.signature, of: signedData))
        #expect(SSHSignedData(signedData) == .sshsig(namespace: "git", hashAlgorithm: signature.hashAlgorithm))
        #expect(signature.hashAlgorithm == "sha512")
    }

    /// The private key of an ssh-keygen file, as ssh-add sends it, imports with the file's public key;
    /// what it signs verifies in ssh-keygen; and the ADD_IDENTITY message carrying it decodes.
    @Test(arguments: SSHKeyType.allCases)
    func openSSHPrivateKeysImportAsSSHAddSendsThem(type: SSHKeyType) async throws {
        let directory = try TestScratch.newDirectory("ssh")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try await OpenSSH.generate(OpenSSH.typeArguments(type), in: directory, comment: "bob@laptop")
        let file = try OpenSSHKeyFile(path: path)
        let publicKey = try SSHPublicKey(openSSH: try String(contentsOfFile: path + ".pub", encoding: .utf8))
        #expect(file.publicBlob == publicKey.blob)
        #expect(file.comment == "bob@laptop")

        var reader = SSHReader(file.agentFields)
        let key = try SSHPrivateKey(agentFields: &reader)
        #expect(reader.isAtEnd)
        #expect(key.publicKey == publicKey)
        // The agent encoding we write is the one OpenSSH wrote.
        #expect(key.agentFields.copyBytes() == file.agentFields)
        #expect(try SSHPrivateKey(serialized: key.serialized) == key)

        let signature = try SSHSIG.sign(Array(Self.message.utf8), namespace: "git", with: key)
        #expect(try await Self.openSSHVerifies(signature, by: publicKey, in: directory))

        let body = [UInt8(25)] + file.agentFields + wire {
            $0.write(utf8: file.comment)
            $0.write(byte: 1)
            $0.write(uint32: 600)
            $0.write(byte: 2)
        }
        guard case .addIdentity(let added, let comment, let constraints) = try SSHAgentRequest(body: body) else {
            Issue.record("not an addIdentity")
            return
        }
        #expect(added == key && comment == "bob@laptop" && constraints == [.lifetime(seconds: 600), .confirm])
    }

    /// An RSA key of 1024 bits, which ssh-keygen still makes, is refused on import; its public key reads.
    @Test func openSSHRSA1024IsRefused() async throws {
        let directory = try TestScratch.newDirectory("ssh")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try await OpenSSH.generate(["-t", "rsa", "-b", "1024"], in: directory)
        let line = try String(contentsOfFile: path + ".pub", encoding: .utf8)
        #expect(try SSHPublicKey(openSSH: line).fingerprint == (try await OpenSSH.fingerprint(ofPublicKeyFile: path + ".pub")))
        let contents = try String(contentsOfFile: path, encoding: .utf8)
        let error = #expect(throws: SSHError.self) { try OpenSSHKeyFile(contents: contents) }
        #expect(error?.message == "RSA keys of under 2048 bits are not accepted (this one has 1024)")
    }
}
