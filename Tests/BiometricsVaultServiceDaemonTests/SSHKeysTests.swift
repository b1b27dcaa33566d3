#if os(Linux)
@testable import BiometricsVaultServiceDaemon
import BiometricsVaultCore
import BiometricsVaultSSH
import Foundation
import Glibc
import Testing

/// The record an SSH key is kept as in the user's store: read back to the same key and constraints, and
/// anything else refused as a corrupted item whose message holds no key material.
@Suite struct SSHKeyRecordTests {
    /// One key of each type, made once (an RSA key takes a while).
    static let keys: [SSHKeyType: SSHPrivateKey] = {
        var keys: [SSHKeyType: SSHPrivateKey] = [:]
        for type in SSHKeyType.allCases { keys[type] = try? SSHPrivateKey.generate(type) }
        return keys
    }()

    static func key(_ type: SSHKeyType) throws -> SSHPrivateKey { try #require(keys[type]) }

    static func record(_ type: SSHKeyType = .ed25519) throws -> SSHKeyRecord {
        SSHKeyRecord(key: try key(type), confirm: true, expires: 1_900_000_000, generated: false)
    }

    /// The Ed25519 key's 32-byte seed, read from what `ssh-add` would send (type, public, seed ‖ public).
    static func seed(of key: SSHPrivateKey) throws -> [UInt8] {
        var reader = SSHReader(key.agentFields.copyBytes())
        _ = try reader.readString()
        _ = try reader.readString()
        return Array(try reader.readString().prefix(32))
    }

    /// Refuses `bytes` as a record: `corruptedItem`, with its reason.
    static func refusal(_ bytes: [UInt8]) -> VaultError? {
        do {
            _ = try SSHKeyRecord(payload: SecretBytes(bytes))
            return nil
        } catch {
            return error
        }
    }

    /// Every field comes back from the payload: the same private key (so the same public key), whether
    /// it asks each time, its expiry and its origin; and the payload read back writes the same bytes.
    @Test(arguments: [
        (.ed25519, false, 0, true),
        (.ecdsaP256, true, 1_900_000_000, false),
        (.ecdsaP384, false, .max, false),
        (.rsa, true, 1, true),
    ] as [(SSHKeyType, Bool, UInt64, Bool)])
    func aRecordsPayloadReadsBackToItself(type: SSHKeyType, confirm: Bool, expires: UInt64, generated: Bool) throws {
        let key = try Self.key(type)
        let record = SSHKeyRecord(key: key, confirm: confirm, expires: expires, generated: generated)
        let payload = record.payload
        #expect(payload.copyBytes().first == SSHKeyRecord.formatVersion)
        let read = try SSHKeyRecord(payload: payload)
        #expect(read.key == key)
        #expect(read.key.publicKey == key.publicKey)
        #expect(read.key.publicKey.type == type)
        #expect(read.confirm == confirm)
        #expect(read.expires == expires)
        #expect(read.generated == generated)
        #expect(read.payload == payload)
    }

    /// A record of another format version (its first byte), or holding a key of another serialization
    /// version, is a corrupted item: never guessed at.
    @Test(arguments: [0, 2, 0xFF] as [UInt8])
    func aRecordOfAnotherVersionIsRefused(version: UInt8) throws {
        var bytes = try Self.record().payload.copyBytes()
        var outer = bytes
        outer[0] = version
        #expect(Self.refusal(outer)?.code == .corruptedItem)
        // The key's own version byte: after the record's version and the string's length.
        bytes[5] = version
        #expect(Self.refusal(bytes)?.code == .corruptedItem)
    }

    /// Bytes after the record's last field are refused, however many.
    @Test(arguments: [[0], [1], [0, 0, 0, 0], Array(repeating: 0xAA, count: 64)] as [[UInt8]])
    func aRecordWithTrailingBytesIsRefused(trailing: [UInt8]) throws {
        let bytes = try Self.record().payload.copyBytes()
        let error = Self.refusal(bytes + trailing)
        #expect(error?.code == .corruptedItem)
        #expect(error?.underlying?.description.contains("bytes after its end") == true, "\(String(describing: error))")
    }

    /// Every truncation of a record, down to nothing, is refused as corrupted, for every key type.
    @Test(arguments: SSHKeyType.allCases)
    func aTruncatedRecordIsRefused(type: SSHKeyType) throws {
        let bytes = try Self.record(type).payload.copyBytes()
        for length in 0..<bytes.count {
            let error = Self.refusal(Array(bytes.prefix(length)))
            #expect(error?.code == .corruptedItem, "cut to \(length) of \(bytes.count) bytes")
        }
    }

    /// Whatever is wrong with a record, its error (which the audit log and the caller may see) never
    /// holds the private key's bytes: not raw, not in hex, not in base64.
    @Test func aRefusalNeverHoldsKeyBytes() throws {
        let key = try Self.key(.ed25519)
        let seed = try Self.seed(of: key)
        #expect(seed.count == 32)
        let bytes = SSHKeyRecord(key: key, confirm: false, expires: 0, generated: true).payload.copyBytes()
        let seedAt = try #require(bytes.firstRange(of: seed)).lowerBound
        var flipped = bytes
        flipped[seedAt + 40] ^= 0x01  // the copy of the public key after the seed: the halves disagree
        var wrongVersion = bytes
        wrongVersion[0] = 9
        var badLength = bytes
        badLength[4] = 0xFF  // the key's string claims more than the record holds
        let corrupted = [flipped, wrongVersion, badLength, bytes + [7], Array(bytes.prefix(seedAt + 16)), Array(bytes.prefix(bytes.count - 1))]
        let hex = seed.map { String(format: "%02x", $0) }.joined()
        for variant in corrupted {
            let error = try #require(Self.refusal(variant))
            #expect(error.code == .corruptedItem)
            for text in [error.description, error.underlying?.description ?? "", String(reflecting: error)] {
                #expect(!text.lowercased().contains(hex))
                #expect(!text.contains(Data(seed).base64EncodedString().prefix(16)))
                let raw = Array(text.utf8)
                for start in 0...(seed.count - 6) {
                    #expect(raw.firstRange(of: seed[start..<(start + 6)]) == nil, "\(text)")
                }
            }
        }
    }

    /// A record's lifetime: 0 is forever, a time passed has expired, a time to come has not.
    @Test(arguments: [(0, false), (1, true), (UInt64(time(nil)) - 1, true), (UInt64(time(nil)) + 3600, false)] as [(UInt64, Bool)])
    func aRecordExpiresAtItsTime(expires: UInt64, expired: Bool) throws {
        #expect(SSHKeyRecord(key: try Self.key(.ed25519), confirm: false, expires: expires, generated: false).hasExpired == expired)
    }
}

/// What the service says a signature is for, read from the signed data and the session bindings it
/// verified itself (`VaultServiceRequests.describeSigned`): the prompt's and the audit's words.
@Suite struct DescribeSignedTests {
    static let user = "alice"
    static let sessionID = [UInt8](repeating: 0xC3, count: 32)
    static let otherSessionID = [UInt8](repeating: 0x5A, count: 32)
    static let signer = try? SSHPrivateKey.generate(.ed25519)
    static let hostKeys: [SSHKeyType: SSHPrivateKey] = {
        var keys: [SSHKeyType: SSHPrivateKey] = [:]
        for type in [SSHKeyType.ed25519, .ecdsaP256, .ecdsaP384] { keys[type] = try? SSHPrivateKey.generate(type) }
        return keys
    }()

    static func signerBlob() throws -> [UInt8] { try #require(signer).publicKey.blob }
    static func host(_ type: SSHKeyType = .ed25519) throws -> SSHPrivateKey { try #require(hostKeys[type]) }

    /// RFC 4252 §7's signed data: string session id, byte 50, string user, string "ssh-connection",
    /// string method, bool TRUE, string algorithm, string key blob; for OpenSSH's host-bound method,
    /// string host key blob after.
    static func userAuthentication(sessionID: [UInt8] = sessionID, keyBlob: [UInt8], hostKeyBlob: [UInt8]? = nil) -> [UInt8] {
        var writer = SSHWriter()
        writer.write(string: sessionID)
        writer.write(byte: 50)
        writer.write(utf8: user)
        writer.write(utf8: "ssh-connection")
        writer.write(utf8: hostKeyBlob == nil ? "publickey" : "publickey-hostbound-v00@openssh.com")
        writer.write(bool: true)
        writer.write(utf8: "ssh-ed25519")
        writer.write(string: keyBlob)
        if let hostKeyBlob { writer.write(string: hostKeyBlob) }
        return writer.bytes
    }

    /// A `session-bind@openssh.com`'s contents: `host`'s key and its signature of `signedSessionID`,
    /// claimed for `sessionID`.
    static func binding(
        _ host: SSHPrivateKey, sessionID: [UInt8] = sessionID, signedSessionID: [UInt8]? = nil, forwarding: Bool = false
    ) throws -> [UInt8] {
        let signature = try host.sign(signedSessionID ?? sessionID, flags: 0)
        return SSHSessionBind.contents(hostKey: host.publicKey, sessionID: sessionID, signature: signature, isForwarding: forwarding)
    }

    /// The bindings as `SSHSign` carries them: each as an SSH string.
    static func bindings(_ contents: [[UInt8]]) -> [UInt8] {
        var writer = SSHWriter()
        for binding in contents { writer.write(string: binding) }
        return writer.bytes
    }

    static func describe(_ data: [UInt8], bindings contents: [[UInt8]] = []) throws(VaultError) -> String {
        let blob = (try? signerBlob()) ?? []
        return try VaultServiceRequests.describeSigned(data, keyBlob: blob, bindings: bindings(contents))
    }

    /// A login whose client bound no session names no host: the data's claims alone are not shown as one.
    @Test func aLoginWithoutABindingNamesNoHost() throws {
        #expect(try Self.describe(Self.userAuthentication(keyBlob: try Self.signerBlob()))
            == "log in to a host its client did not name as alice")
    }

    /// A login for the session its client bound names the host by the bound host key's fingerprint, for
    /// every host key type.
    @Test(arguments: [SSHKeyType.ed25519, .ecdsaP256, .ecdsaP384])
    func aBoundLoginNamesTheHost(hostType: SSHKeyType) throws {
        let host = try Self.host(hostType)
        let described = try Self.describe(Self.userAuthentication(keyBlob: try Self.signerBlob()), bindings: [try Self.binding(host)])
        #expect(described == "log in to the host \(host.publicKey.fingerprint) as alice")
        #expect(host.publicKey.fingerprint.hasPrefix("SHA256:"))
    }

    /// A login that came through a forwarded agent names the host it goes to (the last binding that is
    /// not a forwarding) and the host it was forwarded from (the forwarding binding).
    @Test func aForwardedLoginNamesBothHosts() throws {
        let hop = try Self.host(.ecdsaP256), target = try Self.host(.ed25519)
        let bindings = [try Self.binding(hop, sessionID: Self.otherSessionID, forwarding: true), try Self.binding(target)]
        #expect(try Self.describe(Self.userAuthentication(keyBlob: try Self.signerBlob()), bindings: bindings)
            == "log in to the host \(target.publicKey.fingerprint) as alice (a request forwarded from the host \(hop.publicKey.fingerprint))")
        // Forwarded, with no binding from the hop to its host: the target is not named, the hop is.
        #expect(try Self.describe(Self.userAuthentication(keyBlob: try Self.signerBlob()), bindings: [bindings[0]])
            == "log in to a host its client did not name as alice (a request forwarded from the host \(hop.publicKey.fingerprint))")
    }

    /// A login for another session than the one its client bound is refused (`authenticationFailed`):
    /// the host the prompt would name is not the one the signature is for.
    @Test func aLoginForAnotherSessionThanTheBoundOneIsRefused() throws {
        let data = Self.userAuthentication(sessionID: Self.otherSessionID, keyBlob: try Self.signerBlob())
        let error = #expect(throws: VaultError.authenticationFailed) { try Self.describe(data, bindings: [try Self.binding(Self.host())]) }
        #expect(error?.underlying?.description.contains("another session") == true)
    }

    /// A binding whose signature does not verify (the host key's signature of another session, or
    /// another key's signature), or bindings that are not well-formed strings, are refused
    /// (`authenticationFailed`) whatever is signed.
    @Test func aBindingThatDoesNotVerifyIsRefused() throws {
        let host = try Self.host(), impostor = try Self.host(.ecdsaP384)
        let otherSession = try Self.binding(host, signedSessionID: Self.otherSessionID)
        let impostorSignature = SSHSessionBind.contents(
            hostKey: host.publicKey, sessionID: Self.sessionID, signature: try impostor.sign(Self.sessionID, flags: 0), isForwarding: false)
        var truncated = try Self.binding(host)
        truncated.removeLast()
        let login = Self.userAuthentication(keyBlob: try Self.signerBlob())
        let sshsig = SSHSIG.signedData(namespace: "git", hashAlgorithm: "sha512", messageHash: [UInt8](repeating: 1, count: 64))
        for data in [login, sshsig] {
            for bindings in [[otherSession], [impostorSignature], [truncated], [try Self.binding(host, forwarding: true), otherSession]] {
                let error = #expect(throws: VaultError.authenticationFailed) { try Self.describe(data, bindings: bindings) }
                #expect(error?.underlying?.description.contains("does not verify") == true)
            }
            // Bytes that are no SSH string at all.
            #expect(throws: VaultError.authenticationFailed) {
                try VaultServiceRequests.describeSigned(data, keyBlob: try Self.signerBlob(), bindings: [0, 0, 1])
            }
        }
    }

    /// A login request naming another key than the one asked to sign it is refused (`invalidVault`):
    /// the signature would log in with a key the prompt does not name.
    @Test func aLoginNamingAnotherKeyIsRefused() throws {
        let other = try SSHPrivateKey.generate(.ed25519).publicKey.blob
        let error = #expect(throws: VaultError.invalidVault) {
            try Self.describe(Self.userAuthentication(keyBlob: other), bindings: [try Self.binding(Self.host())])
        }
        #expect(error?.underlying?.description.contains("another key") == true)
    }

    /// OpenSSH's host-bound login carries the host key too: one that differs from the bound host's is
    /// refused (`authenticationFailed`); the same one names that host.
    @Test func aHostBoundLoginMustNameTheBoundHost() throws {
        let host = try Self.host(), other = try Self.host(.ecdsaP256)
        let blob = try Self.signerBlob()
        let wrong = Self.userAuthentication(keyBlob: blob, hostKeyBlob: other.publicKey.blob)
        let error = #expect(throws: VaultError.authenticationFailed) { try Self.describe(wrong, bindings: [try Self.binding(host)]) }
        #expect(error?.underlying?.description.contains("another host") == true)
        let right = Self.userAuthentication(keyBlob: blob, hostKeyBlob: host.publicKey.blob)
        #expect(try Self.describe(right, bindings: [try Self.binding(host)]) == "log in to the host \(host.publicKey.fingerprint) as alice")
    }

    /// The host key a host-bound login carries is the client's word: without a binding the service
    /// verified, the prompt names no host.
    @Test func aHostBoundLoginWithoutABindingNamesNoHost() throws {
        let claimed = try Self.host()
        let login = Self.userAuthentication(keyBlob: try Self.signerBlob(), hostKeyBlob: claimed.publicKey.blob)
        let words = try Self.describe(login, bindings: [])
        #expect(words == "log in to a host its client did not name as alice")
        #expect(!words.contains(claimed.publicKey.fingerprint))
    }

    /// A request forwarded twice (`ssh -A` from a host reached with `ssh -A`) names every host it came
    /// through, in the order of their bindings.
    @Test func aRequestForwardedTwiceNamesBothHosts() throws {
        let first = try Self.host(), second = try Self.host(.ecdsaP256), target = try Self.host(.ecdsaP384)
        let bindings = [try Self.binding(first, forwarding: true), try Self.binding(second, forwarding: true), try Self.binding(target)]
        #expect(try Self.describe(Self.userAuthentication(keyBlob: try Self.signerBlob()), bindings: bindings)
            == "log in to the host \(target.publicKey.fingerprint) as alice (a request forwarded through the hosts \(first.publicKey.fingerprint), \(second.publicKey.fingerprint))")
    }

    /// An SSHSIG signature is named by its namespace: git's and files' in words, any other by name; a
    /// forwarded one names the host it came from.
    @Test(arguments: [
        ("git", "sign a git commit or tag"),
        ("file", "sign a file"),
        ("allowed-signers@example.com", "sign for allowed-signers@example.com"),
    ])
    func anSSHSIGSignatureIsNamedByItsNamespace(namespace: String, words: String) throws {
        let data = SSHSIG.signedData(namespace: namespace, hashAlgorithm: "sha512", messageHash: [UInt8](repeating: 7, count: 64))
        #expect(try Self.describe(data) == words)
        let hop = try Self.host()
        #expect(try Self.describe(data, bindings: [try Self.binding(hop, forwarding: true)])
            == "\(words) (a request forwarded from the host \(hop.publicKey.fingerprint))")
    }

    /// Data that is neither a login nor SSHSIG (including a malformed login) is said to be so.
    @Test(arguments: [
        [],
        Array("a commit message".utf8),
        Array("SSHSIG".utf8),
        Array(userAuthentication(sessionID: [], keyBlob: [1, 2, 3])),
    ] as [[UInt8]])
    func otherDataIsSaidToBeNeither(data: [UInt8]) throws {
        #expect(try Self.describe(data) == "sign data that is neither an SSH login nor an SSHSIG signature")
    }
}
#endif
