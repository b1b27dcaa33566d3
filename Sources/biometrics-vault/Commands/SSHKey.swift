import ArgumentParser
import BiometricsVault
import BiometricsVaultJSON
#if os(Linux)
import BiometricsVaultService
import BiometricsVaultSSH
#endif

extension BiometricsVaultCommand {
    /// `ssh-key`: the SSH keys the vault service keeps and signs with (Docs/SSHAgent.md).
    struct SSHKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ssh-key",
            abstract: "Make, list, show and delete the SSH keys the vault service keeps; `ssh-agent` signs with them.",
            discussion: """
                A key lives only in the vault service, under its own user: no command prints or exports the \
                private key. Each signature is a check of the key's policy (a finger by default), asked by \
                the service itself; `biometrics-vault ssh-agent` is how ssh, git and ssh-keygen reach it.
                """,
            subcommands: [SSHKeyGenerate.self, SSHKeyList.self, SSHKeyPublic.self, SSHKeyDelete.self]
        )

        /// What each verb answers where there is no vault service.
        static let elsewhere = VaultError(.storeUnavailable, underlying: .message("SSH keys in the vault service are Linux only"))
    }

    /// `ssh-key generate NAME`: a new key made in the service; prints its public key.
    struct SSHKeyGenerate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate",
            abstract: "Make a new SSH key inside the vault service and print its public key (one authorized_keys line).")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The key's name (also the public key's comment).")
        var name: String

        @Option(help: "ed25519, ecdsa (P-256), ecdsa-p384 or rsa (3072 bits).")
        var type = "ed25519"

        @Option(help: "What each signature needs: biometryAny (a finger), biometryCurrentSet (a finger enrolled now), userPresence (a finger or the password), devicePasscode (the password), or none.")
        var policy = "biometryAny"

        func validate() throws {
            #if os(Linux)
            guard SSHKeyType(option: type) != nil else { throw ValidationError("--type is ed25519, ecdsa, ecdsa-p384 or rsa") }
            guard VaultServiceSSHKeys.policies.contains(policy) else {
                throw ValidationError("--policy is one of \(VaultServiceSSHKeys.policies.joined(separator: ", "))")
            }
            #endif
        }

        func run() async throws {
            try await Console.run(options) {
                #if os(Linux)
                let key = try VaultServiceSSHKeys.generate(name: name, type: type, policy: policy)
                Console.emit(
                    options, json: .object(["name": .string(name), "publicKey": .string(key.openSSH(comment: name)), "fingerprint": .string(key.fingerprint)]),
                    text: key.openSSH(comment: name))
                #else
                throw SSHKey.elsewhere
                #endif
            }
        }
    }

    /// `ssh-key list`: the keys, one a line.
    struct SSHKeyList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the SSH keys the vault service keeps: name, type, fingerprint and policy.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Console.run(options) {
                #if os(Linux)
                let keys = try VaultServiceSSHKeys.keys()
                let rows: [JSONValue] = keys.map { key in
                    .object([
                        "name": .string(key.name), "type": .string(key.publicKey.type.rawValue), "fingerprint": .string(key.publicKey.fingerprint),
                        "policy": .string(key.policy), "confirm": .bool(key.confirm), "expires": .integer(Int64(clamping: key.expires)),
                        "origin": .string(key.generated ? "generated" : "added"),
                    ])
                }
                let lines = keys.map { key in
                    "\(key.name)  \(key.publicKey.type.rawValue)  \(key.publicKey.fingerprint)  \(key.policy)"
                        + (key.confirm ? "  confirm" : "") + (key.expires != 0 ? "  expires \(key.expires)" : "")
                        + (key.generated ? "" : "  (added by ssh-add)")
                }
                Console.emit(options, json: .array(rows), text: lines.isEmpty ? nil : lines.joined(separator: "\n"))
                #else
                throw SSHKey.elsewhere
                #endif
            }
        }
    }

    /// `ssh-key public NAME`: the key's authorized_keys line.
    struct SSHKeyPublic: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "public",
            abstract: "Print an SSH key's public key as one authorized_keys line.")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The key's name.")
        var name: String

        func run() async throws {
            try await Console.run(options) {
                #if os(Linux)
                guard let key = try VaultServiceSSHKeys.keys().first(where: { $0.name == name }) else {
                    throw VaultError(.itemNotFound, underlying: .message("no SSH key is named \(name)"))
                }
                let line = key.publicKey.openSSH(comment: name)
                Console.emit(options, json: .object(["name": .string(name), "publicKey": .string(line)]), text: line)
                #else
                throw SSHKey.elsewhere
                #endif
            }
        }
    }

    /// `ssh-key delete NAME`: the key is gone (its only copy).
    struct SSHKeyDelete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete an SSH key from the vault service (its only copy).")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The key's name.")
        var name: String

        func run() async throws {
            try await Console.run(options) {
                #if os(Linux)
                try VaultServiceSSHKeys.delete(name: name)
                Console.emit(options, json: .object(["deleted": .string(name)]), text: nil)
                #else
                throw SSHKey.elsewhere
                #endif
            }
        }
    }
}
