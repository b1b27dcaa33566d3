import BiometricsVaultSSH
import Testing

@Suite struct SSHSessionBindTests {
    static let sessionID = [UInt8](repeating: 0x5A, count: 32)

    /// A host key of each type signs the session identifier, as sshd's key exchange does.
    @Test(arguments: SSHKeyType.allCases, [false, true])
    func verifiedBindParses(type: SSHKeyType, forwarding: Bool) throws {
        let hostKey = try TestKeys.key(type)
        let signature = try hostKey.sign(Self.sessionID, flags: SSHAgentRequest.rsaSHA512Flag)
        let contents = SSHSessionBind.contents(hostKey: hostKey.publicKey, sessionID: Self.sessionID, signature: signature, isForwarding: forwarding)
        let bind = try SSHSessionBind(contents: contents)
        #expect(bind.hostKey == hostKey.publicKey)
        #expect(bind.sessionID == Self.sessionID)
        #expect(bind.isForwarding == forwarding)
        // As the agent receives it: an extension request.
        let body = SSHAgentRequest.extension(name: SSHAgentRequest.sessionBindExtension, contents: contents).body
        guard case .extension(let name, let received) = try SSHAgentRequest(body: body) else {
            Issue.record("not an extension request")
            return
        }
        #expect(name == "session-bind@openssh.com")
        #expect(try SSHSessionBind(contents: received) == bind)
    }

    @Test func wrongSignatureIsRefused() throws {
        let hostKey = try TestKeys.key(.ed25519)
        let refusal = SSHError("the host key's signature of the session does not verify")
        // Another session's signature.
        let other = try hostKey.sign([UInt8](repeating: 0x5B, count: 32), flags: 0)
        #expect(throws: refusal) {
            try SSHSessionBind(contents: SSHSessionBind.contents(hostKey: hostKey.publicKey, sessionID: Self.sessionID, signature: other, isForwarding: false))
        }
        // Another key's signature of this session.
        let impostor = try SSHPrivateKey.generate(.ed25519).sign(Self.sessionID, flags: 0)
        #expect(throws: refusal) {
            try SSHSessionBind(contents: SSHSessionBind.contents(hostKey: hostKey.publicKey, sessionID: Self.sessionID, signature: impostor, isForwarding: false))
        }
        // An RSA host key's SHA-1 signature is verified (an older server's), but a garbage one is not.
        #expect(throws: refusal) {
            try SSHSessionBind(contents: SSHSessionBind.contents(hostKey: try TestKeys.key(.rsa).publicKey, sessionID: Self.sessionID, signature: wire {
                $0.write(utf8: "ssh-rsa")
                $0.write(string: [UInt8](repeating: 1, count: 384))
            }, isForwarding: false))
        }
    }

    @Test func malformedBindsAreRefused() throws {
        let hostKey = try TestKeys.key(.ecdsaP256)
        let signature = try hostKey.sign(Self.sessionID, flags: 0)
        let contents = SSHSessionBind.contents(hostKey: hostKey.publicKey, sessionID: Self.sessionID, signature: signature, isForwarding: true)
        #expect(throws: SSHError("1 bytes follow the end of the session-bind extension")) { try SSHSessionBind(contents: contents + [0]) }
        for cut in 0..<contents.count {
            #expect(throws: SSHError.self) { try SSHSessionBind(contents: Array(contents.prefix(cut))) }
        }
        let empty = try hostKey.sign([], flags: 0)
        #expect(throws: SSHError.self) {
            try SSHSessionBind(contents: SSHSessionBind.contents(hostKey: hostKey.publicKey, sessionID: [], signature: empty, isForwarding: false))
        }
        let long = [UInt8](repeating: 1, count: 129)
        let longSignature = try hostKey.sign(long, flags: 0)
        #expect(throws: SSHError.self) {
            try SSHSessionBind(contents: SSHSessionBind.contents(hostKey: hostKey.publicKey, sessionID: long, signature: longSignature, isForwarding: false))
        }
    }
}
