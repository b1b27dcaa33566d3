#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultFileStore
import BiometricsVaultLinuxAuth
import BiometricsVaultService
import BiometricsVaultSSH
import Glibc

/// One SSH key the service keeps for a user: an item of the reserved service ``service`` in the user's
/// store, named by the key's name, whose header carries the key's policy (checked as any item's) and
/// whose payload is this record. The private key never leaves the service: no method returns it.
struct SSHKeyRecord: Sendable {
    /// The item service that holds the keys; `Read`, `Write`, `Delete` and `List` refuse it.
    static let service = "biometrics-vault.ssh-key"
    static let formatVersion: UInt8 = 1

    let key: SSHPrivateKey
    /// Every signature asks, inside a window or not (`ssh-add -c`).
    let confirm: Bool
    /// When the key goes, in seconds since 1970 (`ssh-add -t`); 0 for never.
    let expires: UInt64
    /// Made in the service (`ssh-key generate`), as opposed to added by `ssh-add`: removing it from the
    /// agent would lose its only copy, so only `ssh-key delete` does.
    let generated: Bool

    init(key: SSHPrivateKey, confirm: Bool, expires: UInt64, generated: Bool) {
        self.key = key
        self.confirm = confirm
        self.expires = expires
        self.generated = generated
    }

    /// The payload: a version byte, then the serialized key as a string, confirm, expiry and origin.
    var payload: SecretBytes {
        var writer = SSHWriter()
        writer.write(byte: Self.formatVersion)
        var serialized = key.serialized.copyBytes()
        writer.write(string: serialized)
        serialized.zeroize()
        writer.write(bool: confirm)
        writer.write(uint64: expires)
        writer.write(bool: generated)
        var bytes = writer.bytes
        defer { bytes.zeroize() }
        return SecretBytes(bytes)
    }

    init(payload: SecretBytes) throws(VaultError) {
        var bytes = payload.copyBytes()
        defer { bytes.zeroize() }
        do throws(SSHError) {
            var reader = SSHReader(bytes)
            guard try reader.readByte() == Self.formatVersion else { throw SSHError("an unknown format") }
            var serialized = try reader.readString()
            defer { serialized.zeroize() }
            key = try SSHPrivateKey(serialized: SecretBytes(serialized))
            confirm = try reader.readBool()
            expires = try reader.readUInt64()
            generated = try reader.readBool()
            guard reader.isAtEnd else { throw SSHError("bytes after its end") }
        } catch {
            throw VaultError(.corruptedItem, underlying: .message("an SSH key record that does not decode: \(error.message)"))
        }
    }

    var hasExpired: Bool { expires != 0 && UInt64(time(nil)) >= expires }
}

/// One key as `SSHKeys` lists it.
struct SSHKeyListing: Sendable {
    let name: String
    let publicKey: SSHPublicKey
    /// `none` or a ``ProtectionPolicy`` name.
    let policy: String
    let confirm: Bool
    let expires: UInt64
    let generated: Bool
}

extension VaultServiceRequests {
    /// The caller's keys, oldest first by name; a key whose lifetime has passed is deleted on the way.
    func sshKeys(_ caller: Caller) throws -> [SSHKeyListing] {
        try sshKeyRecords(caller).map { name, header, record in
            SSHKeyListing(
                name: name, publicKey: record.key.publicKey, policy: header.protection.policy?.rawValue ?? "none",
                confirm: record.confirm, expires: record.expires, generated: record.generated)
        }
    }

    /// Makes a key of `type` (`ed25519`, `ecdsa`, `ecdsa-p384`, `rsa`) named `name` in the service.
    func sshKeyGenerate(_ caller: Caller, name: String, type: String, policy: String) throws -> SSHPublicKey {
        guard let type = SSHKeyType(option: type) ?? SSHKeyType(rawValue: type) else {
            throw VaultError(.invalidVault, underlying: .message("unknown SSH key type \(type) (ed25519, ecdsa, ecdsa-p384, rsa)"))
        }
        let header = try sshKeyHeader(caller, policy: policy)
        let id = try sshKeyID(name)
        guard try store(caller).read(id, authorization: nil) == nil else {
            throw VaultError(.invalidKey, underlying: .message("an SSH key is named \(name) already"))
        }
        let key: SSHPrivateKey
        do { key = try SSHPrivateKey.generate(type) } catch { throw VaultError(.invalidVault, underlying: .message(error.message)) }
        let record = SSHKeyRecord(key: key, confirm: false, expires: 0, generated: true)
        try writeWithinLimits(caller, StoredItem(header: header, payload: record.payload), for: id, replacing: nil)
        return key.publicKey
    }

    /// Keeps a key an `ssh-add` gave the agent. The same key again under its name replaces its
    /// constraints; another key under a name in use is refused.
    func sshKeyImport(
        _ caller: Caller, name: String, key serialized: SecretBytes, policy: String, confirm: Bool, lifetimeSeconds: UInt32
    ) throws -> SSHPublicKey {
        let key: SSHPrivateKey
        do { key = try SSHPrivateKey(serialized: serialized) } catch { throw VaultError(.invalidVault, underlying: .message(error.message)) }
        let header = try sshKeyHeader(caller, policy: policy)
        let id = try sshKeyID(name)
        let current = try store(caller).read(id, authorization: nil)
        if let current {
            let stored = try SSHKeyRecord(payload: current.payload ?? SecretBytes([]))
            guard stored.key.publicKey == key.publicKey else {
                throw VaultError(.invalidKey, underlying: .message("another SSH key is named \(name)"))
            }
        }
        let expires = lifetimeSeconds == 0 ? 0 : UInt64(time(nil)) + UInt64(lifetimeSeconds)
        let record = SSHKeyRecord(key: key, confirm: confirm, expires: expires, generated: false)
        try writeWithinLimits(caller, StoredItem(header: header, payload: record.payload), for: id, replacing: current?.header)
        return key.publicKey
    }

    func sshKeyDelete(_ caller: Caller, name: String) throws {
        let id = try sshKeyID(name)
        guard try store(caller).read(id, authorization: nil) != nil else {
            throw VaultError(.itemNotFound, underlying: .message("no SSH key is named \(name)"))
        }
        try store(caller).delete(id)
    }

    /// Signs `data` with the caller's key `publicKey` after the key's check, or inside a window of that
    /// key for the caller's process tree (the agent's); a `confirm` key asks every time. The prompt says
    /// what is signed as the service reads it from `data` itself and from the session bindings it
    /// verified (`binding`: each `session-bind@openssh.com` of the agent's connection, as SSH strings).
    /// `scopes` are read only for a key that asks (they cost logind a call). Returns the signature, the key's name, what was signed and how it was allowed, for the audit.
    func sshSign(
        _ caller: Caller, publicKey: [UInt8], data: [UInt8], flags: UInt32, binding: [UInt8], reason: String, windowSeconds: Int,
        scopes: () -> ServiceWindows.CallerScopes
    ) async throws -> (signature: [UInt8], name: String, what: String, how: String) {
        try Self.refuseExited(caller)
        guard let (name, header, record) = try sshKeyRecords(caller).first(where: { $0.record.key.publicKey.blob == publicKey }) else {
            throw VaultError(.itemNotFound, underlying: .message("the service keeps no such SSH key for this user"))
        }
        let what = try Self.describeSigned(data, keyBlob: publicKey, bindings: binding)
        let service = "ssh-key:\(name)"
        var how = "no check (the key's policy is none)"
        if let policy = header.protection.policy {
            let (token, _, checked) = try await authenticate(
                caller, policy: policy.rawValue, reason: reason, service: service, windowSeconds: record.confirm ? 0 : windowSeconds,
                windowScope: "command", scopes: record.confirm ? .none : scopes(), purpose: "SSH key \(name): \(what)")
            defer { grants.revoke(token, connection: caller.connection) }
            guard let grant = try grants.grant(token, connection: caller.connection, uid: caller.uid) else {
                throw VaultError(.vaultLocked, underlying: .message("the authentication ended"))
            }
            try grant.check(header, service: service)
            how = checked
        } else if record.confirm {
            throw VaultError(.invalidVault, underlying: .message("a key to confirm needs a policy that asks"))
        }
        do {
            return (try record.key.sign(data, flags: flags), name, what, how)
        } catch {
            throw VaultError(.invalidVault, underlying: .message(error.message))
        }
    }

    /// What a signature of `data` is for, in words for the prompt and the audit, read from the data:
    /// an SSH login (with the host as the verified session bindings name it, never as the data alone
    /// does, and the hosts a forwarded request came through), an SSHSIG signature (its namespace), or
    /// data the service cannot name.
    static func describeSigned(_ data: [UInt8], keyBlob: [UInt8], bindings: [UInt8]) throws(VaultError) -> String {
        var verified: [SSHSessionBind] = []
        do throws(SSHError) {
            var reader = SSHReader(bindings)
            while !reader.isAtEnd { verified.append(try SSHSessionBind(contents: try reader.readString())) }
        } catch {
            throw VaultError(.authenticationFailed, underlying: .message("a session binding does not verify: \(error.message)"))
        }
        let hops = verified.filter(\.isForwarding).map(\.hostKey.fingerprint)
        let forwardedFrom = switch hops.count {
        case 0: ""
        case 1: " (a request forwarded from the host \(hops[0]))"
        default: " (a request forwarded through the hosts \(hops.joined(separator: ", ")))"
        }
        switch SSHSignedData(data) {
        case .userAuthentication(let sessionID, let user, let signedKey, let hostKey):
            guard signedKey == keyBlob else {
                throw VaultError(.invalidVault, underlying: .message("the login request names another key than the one asked to sign it"))
            }
            let binding = verified.last(where: { !$0.isForwarding })
            if let binding, binding.sessionID != sessionID {
                throw VaultError(.authenticationFailed, underlying: .message("the login request is for another session than the one its client bound"))
            }
            if let hostKey, let binding, hostKey != binding.hostKey {
                throw VaultError(.authenticationFailed, underlying: .message("the login request names another host than the one its client bound"))
            }
            // The host key a `publickey-hostbound` request carries is the client's word: named only as
            // a binding whose signature the service checked names it.
            let host = binding.map { "the host \($0.hostKey.fingerprint)" } ?? "a host its client did not name"
            return "log in to \(host) as \(user)\(forwardedFrom)"
        case .sshsig(let namespace, _):
            switch namespace {
            case "git": return "sign a git commit or tag\(forwardedFrom)"
            case "file": return "sign a file\(forwardedFrom)"
            default: return "sign for \(namespace)\(forwardedFrom)"
            }
        case .other:
            return "sign data that is neither an SSH login nor an SSHSIG signature\(forwardedFrom)"
        }
    }

    // MARK: Private

    private func sshKeyID(_ name: String) throws(VaultError) -> SecretItemID {
        try SecretItemID(service: SSHKeyRecord.service, key: name)
    }

    /// The header of a new key with `policy` (`none` or a ``ProtectionPolicy`` name); a key bound to the
    /// current set is bound to the fingers enrolled now.
    private func sshKeyHeader(_ caller: Caller, policy: String) throws(VaultError) -> ItemHeader {
        if policy == "none" { return ItemHeader(protection: .none) }
        guard let policy = ProtectionPolicy(rawValue: policy) else {
            throw VaultError(.invalidVault, underlying: .message("unknown protection policy \(policy)"))
        }
        guard policy == .biometryCurrentSet else { return ItemHeader(protection: .protected(policy)) }
        guard let enrollment = try fingerprintAuthenticator(caller).probe(claiming: false, enrollment: true).enrollment else {
            throw VaultError(.biometryNotEnrolled, underlying: .message("a key bound to the enrolled fingers needs enrolled fingers"))
        }
        return ItemHeader(protection: .protected(policy), enrollment: enrollment)
    }

    /// Every key of the caller with its record; one whose lifetime passed is deleted instead.
    private func sshKeyRecords(_ caller: Caller) throws -> [(name: String, header: ItemHeader, record: SSHKeyRecord)] {
        let store = try store(caller)
        var records: [(name: String, header: ItemHeader, record: SSHKeyRecord)] = []
        for name in try store.listing(service: SSHKeyRecord.service).keys.sorted() {
            let id = try sshKeyID(name)
            guard let item = try store.read(id, authorization: nil), let payload = item.payload else { continue }
            let record = try SSHKeyRecord(payload: payload)
            if record.hasExpired {
                try? store.delete(id)
                audit.record(caller, "sshKeyExpired", item: "\(SSHKeyRecord.service)/\(name)", result: "deleted: its lifetime passed")
                continue
            }
            records.append((name, item.header, record))
        }
        return records
    }
}
#endif
