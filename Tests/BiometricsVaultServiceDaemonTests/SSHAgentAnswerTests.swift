#if os(Linux)
import BiometricsVaultCore
@testable import BiometricsVaultProcess
@testable import BiometricsVaultService
import BiometricsVaultSSH
import Glibc
import Testing

/// The SSH agent's answers that need no vault service: session bindings, locking, and what it refuses
/// before it would ask the service (`SSHAgent.answer`, in-process).
@Suite struct SSHAgentAnswerTests {
    let agent = SSHAgent(policy: "none", windowSeconds: 0) { _ in }
    let peer = PeerCredentials(pid: getpid(), uid: getuid())

    static func binding(_ host: SSHPrivateKey, session: UInt8, forwarding: Bool) throws -> [UInt8] {
        let sessionID = [UInt8](repeating: session, count: 32)
        return SSHSessionBind.contents(
            hostKey: host.publicKey, sessionID: sessionID, signature: try host.sign(sessionID, flags: 0), isForwarding: forwarding)
    }

    func bind(_ contents: [UInt8], _ bindings: inout [[UInt8]]) -> SSHAgentResponse {
        agent.answer(.extension(name: "session-bind@openssh.com", contents: contents), bindings: &bindings, peer: peer)
    }

    /// As OpenSSH's agent: forwarding bindings may be followed by more; after a binding that was not
    /// forwarded the connection binds no other session, and a binding that does not verify is refused.
    @Test func aConnectionBoundToItsOwnSessionBindsNoOther() throws {
        let first = try SSHPrivateKey.generate(.ed25519), second = try SSHPrivateKey.generate(.ecdsaP256)
        var bindings: [[UInt8]] = []
        #expect(bind(try Self.binding(first, session: 1, forwarding: true), &bindings) == .success)
        #expect(bind(try Self.binding(second, session: 2, forwarding: false), &bindings) == .success)
        #expect(bind(try Self.binding(first, session: 3, forwarding: false), &bindings) == .failure)
        #expect(bind(try Self.binding(first, session: 4, forwarding: true), &bindings) == .failure)
        #expect(bindings.count == 2)
        var fresh: [[UInt8]] = []
        var forged = try Self.binding(first, session: 5, forwarding: false)
        forged[forged.count - 2] ^= 1  // a byte of the signature
        #expect(bind(forged, &fresh) == .failure)
        #expect(fresh.isEmpty)
    }

    /// `ssh-add -x` / `-X`: locked, the agent lists nothing and signs and adds nothing; a second lock and
    /// a wrong passphrase are refused; the same passphrase unlocks it.
    @Test func aLockedAgentListsSignsAndAddsNothing() throws {
        var bindings: [[UInt8]] = []
        let passphrase = SecretBytes(utf8: "lock me")
        #expect(agent.answer(.lock(passphrase: passphrase), bindings: &bindings, peer: peer) == .success)
        #expect(agent.answer(.lock(passphrase: passphrase), bindings: &bindings, peer: peer) == .failure)
        #expect(agent.answer(.requestIdentities, bindings: &bindings, peer: peer) == .identities([]))
        #expect(agent.answer(.sign(keyBlob: [1], data: [2], flags: 0), bindings: &bindings, peer: peer) == .failure)
        let key = try SSHPrivateKey.generate(.ed25519)
        #expect(agent.answer(.addIdentity(key: key, comment: "k", constraints: []), bindings: &bindings, peer: peer) == .failure)
        #expect(agent.answer(.removeAllIdentities, bindings: &bindings, peer: peer) == .failure)
        #expect(agent.answer(.unlock(passphrase: SecretBytes(utf8: "not me")), bindings: &bindings, peer: peer) == .failure)
        #expect(agent.answer(.unlock(passphrase: passphrase), bindings: &bindings, peer: peer) == .success)
        #expect(agent.answer(.unlock(passphrase: passphrase), bindings: &bindings, peer: peer) == .failure)
    }

    /// Constraints the agent would not enforce, smartcard keys and other extensions are refused before
    /// anything reaches the service.
    @Test(arguments: [
        SSHAgentConstraint.maxSignatures(3), .extension(name: "restrict-destination-v00@openssh.com", contents: [0, 0, 0, 0]),
    ])
    func whatTheAgentWouldNotEnforceIsRefused(_ constraint: SSHAgentConstraint) throws {
        var bindings: [[UInt8]] = []
        let key = try SSHPrivateKey.generate(.ed25519)
        #expect(agent.answer(.addIdentity(key: key, comment: "k", constraints: [constraint]), bindings: &bindings, peer: peer) == .failure)
        #expect(agent.answer(.addSmartcardKey, bindings: &bindings, peer: peer) == .failure)
        #expect(agent.answer(.extension(name: "query", contents: []), bindings: &bindings, peer: peer) == .failure)
    }
}
#endif
