#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultSSH

/// The user's SSH keys in the vault service, through its `SSHKey…` methods: the keys are made and kept
/// there, and the service signs with them after its own check; no call returns a private key.
/// Each call blocks its thread until the service answers (a signature, until its check ends).
package enum VaultServiceSSHKeys {
    /// One key as the service lists it.
    package struct Key: Sendable, Equatable {
        package let name: String
        package let publicKey: SSHPublicKey
        /// `none` or a ``ProtectionPolicy`` name.
        package let policy: String
        /// Every signature asks (`ssh-add -c`).
        package let confirm: Bool
        /// When the key goes (`ssh-add -t`), in seconds since 1970; 0 for never.
        package let expires: UInt64
        /// Made in the service (`ssh-key generate`); otherwise added by `ssh-add`.
        package let generated: Bool
    }

    /// The policies a key can have: `none` (signs without a check) or a protection policy's name.
    package static let policies = ["none"] + ProtectionPolicy.allCases.map(\.rawValue)

    package static func keys() throws(VaultError) -> [Key] {
        let reply = try VaultServiceConnection.call(.sshKeys, timeout: VaultServiceInterface.callTimeout)
        var keys: [Key] = []
        for entry in reply[0].children {
            guard let name = entry[0].string, let line = entry[1].string, let publicKey = try? SSHPublicKey(openSSH: line) else {
                throw VaultError(.storeUnavailable, underlying: .message("the vault service listed a key that does not parse"))
            }
            keys.append(Key(
                name: name, publicKey: publicKey, policy: entry[2].string ?? "", confirm: entry[3].bool ?? false,
                expires: entry[4].uint64 ?? 0, generated: entry[5].bool ?? false))
        }
        return keys
    }

    /// Makes a key in the service; its public key.
    package static func generate(name: String, type: String, policy: String) throws(VaultError) -> SSHPublicKey {
        try publicKey(VaultServiceConnection.call(.sshKeyGenerate(name: name, type: type, policy: policy), timeout: .seconds(60)))
    }

    /// Hands `key` to the service, which keeps it from then on.
    package static func importKey(
        name: String, key: SSHPrivateKey, policy: String, confirm: Bool, lifetimeSeconds: UInt32
    ) throws(VaultError) -> SSHPublicKey {
        let request = VaultServiceRequest.sshKeyImport(
            name: name, key: key.serialized, policy: policy, confirm: confirm, lifetimeSeconds: lifetimeSeconds)
        return try publicKey(VaultServiceConnection.call(request, timeout: VaultServiceInterface.callTimeout))
    }

    package static func delete(name: String) throws(VaultError) {
        _ = try VaultServiceConnection.call(.sshKeyDelete(name: name), timeout: VaultServiceInterface.callTimeout)
    }

    /// The service's signature of `data` with the key `publicKey`, after its check (up to `timeout`).
    /// `bindings`: the verified `session-bind@openssh.com` contents of the client's connection, each as
    /// an SSH string; `reason`: what the agent says, shown as its words.
    package static func sign(
        publicKey: [UInt8], data: [UInt8], flags: UInt32, bindings: [UInt8], reason: String, windowSeconds: UInt32,
        timeout: Duration = .seconds(150)
    ) throws(VaultError) -> [UInt8] {
        let request = VaultServiceRequest.sshSign(
            publicKey: publicKey, data: data, flags: flags, binding: bindings, reason: reason, windowSeconds: windowSeconds)
        return try VaultServiceConnection.call(request, timeout: timeout)[0].bytes ?? []
    }

    private static func publicKey(_ reply: DBusValue) throws(VaultError) -> SSHPublicKey {
        guard let line = reply[0].string, let key = try? SSHPublicKey(openSSH: line) else {
            throw VaultError(.storeUnavailable, underlying: .message("the vault service answered a public key that does not parse"))
        }
        return key
    }
}
#endif
