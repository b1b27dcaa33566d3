import ArgumentParser
import BiometricsVault
import BiometricsVaultJSON
import BiometricsVaultTPM
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BiometricsVaultCommand {
    /// `key`: what protects the encrypted file store's master key, and changing it.
    struct Key: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "key",
            abstract: "Show or change what protects the encrypted file store's key: a key file, a passphrase, or the TPM (with an optional PIN).",
            discussion: """
                The choice is recorded in the store, so every other command opens it the same way afterwards \
                (asking for the PIN or passphrase on the terminal when one is needed). The TPM is reached through \
                $\(TPMSettings.tctiVariable) (default \(TPMConfiguration.defaultTCTI)). \
                PINs and passphrases are asked on the terminal, or read from stdin with --pin-stdin / \
                --passphrase-stdin: one per line, the current one first, then the new one.
                """,
            subcommands: [KeyStatus.self, KeySeal.self, KeyUnseal.self, KeyPassphrase.self]
        )
    }

    /// `key status`: the store's key source and the TPM's state. Never prompts.
    struct KeyStatus: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show what protects the file store's key, whether the TPM is reachable, and its lockout state. Never prompts.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Console.run(options) {
                let protection = try FileStoreKey.protection()
                let tpm = Result { try FileStoreKey.tpmState(TPMSettings.current) }
                var fields: [String: JSONValue] = [
                    "directory": .string(FileStoreKey.defaultDirectory.path),
                    "source": protection.map { .string($0.rawValue) } ?? .null,
                    "tcti": .string(TPMSettings.current.tcti),
                ]
                fields["tpm"] = TPMDoctor.json(tpm)
                var lines = [
                    "file store: \(FileStoreKey.defaultDirectory.path)",
                    "key source: \(protection?.rawValue ?? "none (no store yet)")",
                ]
                switch tpm {
                case .success(let status): lines.append("TPM: \(status.summary)")
                case .failure(let error): lines.append("TPM: unreachable: \(Console.describe(error).2)")
                }
                Console.emit(options, json: .object(fields), text: lines.joined(separator: "\n"))
            }
        }
    }

    /// `key seal --tpm`: re-wraps the store's master key with the TPM.
    struct KeySeal: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "seal",
            abstract: "Seal the file store's key with this machine's TPM, optionally behind a PIN the TPM checks (and limits guesses of).",
            discussion: """
                Atomic: the key file is replaced only after the sealed copy has been unsealed again and checked; \
                an interrupted run leaves the store readable. A store copied to another machine, or kept after \
                the TPM is cleared, no longer opens. Creates an empty sealed store when there is none yet.
                """)

        @OptionGroup var options: GlobalOptions

        @Flag(help: "Seal with the TPM (the only sealer today).")
        var tpm = false

        @Flag(help: "Protect the sealed key with a PIN, asked on the terminal (with --pin-stdin: read from stdin, after the current PIN if the store has one).")
        var pin = false

        func validate() throws {
            guard tpm else { throw ValidationError("say what seals the key: --tpm") }
        }

        func run() async throws {
            try await Console.run(options) {
                let secrets = KeySecrets(pinFromStdin: options.pinStdin, passphraseFromStdin: options.passphraseStdin)
                let change = try secrets.change()
                let newPIN: SecretBytes? = try pin || options.pinStdin ? secrets.new(.pin) : nil
                try KeySourceChange.apply(change, .tpm(pin: newPIN), options: options, action: "seal")
            }
        }
    }

    /// `key unseal`: back to a plain key file.
    struct KeyUnseal: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unseal",
            abstract: "Protect the file store's key with a plain key file again (master.key, 0600), no longer bound to the TPM.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Console.run(options) {
                let secrets = KeySecrets(pinFromStdin: options.pinStdin, passphraseFromStdin: options.passphraseStdin)
                try KeySourceChange.apply(try secrets.change(), .keyFile, options: options, action: "unseal")
            }
        }
    }

    /// `key passphrase`: wraps the key with a passphrase (scrypt).
    struct KeyPassphrase: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "passphrase",
            abstract: "Protect the file store's key with a passphrase (scrypt), asked by every later command; also changes it.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Console.run(options) {
                let secrets = KeySecrets(pinFromStdin: options.pinStdin, passphraseFromStdin: options.passphraseStdin)
                let change = try secrets.change()
                try KeySourceChange.apply(change, .passphrase(try secrets.new(.passphrase)), options: options, action: "passphrase")
            }
        }
    }
}

/// The shared output of `key seal`, `key unseal` and `key passphrase`.
enum KeySourceChange {
    static func apply(_ change: FileStoreKey.Change, _ protection: FileStoreKey.NewProtection, options: GlobalOptions, action: String) throws {
        let created: Bool
        switch try change.apply(protection) {
        case .changed: created = false
        case .created: created = true
        }
        UnlockWindows.forgetDefaultStoreKeys()
        let source = try FileStoreKey.protection()?.rawValue ?? "none"
        let fields: [String: JSONValue] = [
            "action": .string(action), "source": .string(source), "created": .bool(created),
            "directory": .string(FileStoreKey.defaultDirectory.path),
        ]
        let text = created ? "created an empty file store; its key source is \(source)" : "the file store's key source is now \(source)"
        Console.emit(options, json: .object(fields), text: text)
    }
}

extension KeySecrets {
    /// The change of the default store's key source, opened with the current PIN or passphrase (asked first).
    func change() throws -> FileStoreKey.Change {
        try FileStoreKey.Change(tpm: TPMSettings.current) { kind in
            switch kind {
            case .passphrase: try current(.passphrase)
            case .tpmPIN: try current(.pin)
            }
        }
    }
}

extension TPMStatus {
    var json: JSONValue {
        .object([
            "reachable": .bool(true), "manufacturer": .string(manufacturer), "lockoutCounter": .integer(Int64(lockoutCounter)),
            "maxTries": .integer(Int64(maximumTries)), "lockoutInterval": .integer(Int64(lockoutInterval)),
            "lockoutRecovery": .integer(Int64(lockoutRecovery)), "inLockout": .bool(inLockout),
        ])
    }

    /// One line: who made it, and its dictionary-attack state.
    var summary: String {
        let lockout = inLockout ? "IN LOCKOUT (PIN-protected keys refused; one failure is forgotten every \(lockoutInterval) s)" : "not in lockout"
        return "reachable (manufacturer \(manufacturer.isEmpty ? "unknown" : manufacturer)); failed PIN tries \(lockoutCounter) of \(maximumTries) allowed, one forgotten every \(lockoutInterval) s; \(lockout)"
    }
}

/// `doctor`'s TPM section.
enum TPMDoctor {
    /// The TPM as `doctor --json` and `key status --json` show it.
    static func json(_ status: Result<TPMStatus, any Error> = Result { try FileStoreKey.tpmState(TPMSettings.current) }) -> JSONValue {
        switch status {
        case .success(let status): status.json
        case .failure(let error): .object(["reachable": .bool(false), "error": .string(Console.describe(error).2)])
        }
    }

    static func render() -> String {
        let title = "TPM (key seal --tpm; \(TPMSettings.tctiVariable)=\(TPMSettings.current.tcti)):"
        do {
            let status = try FileStoreKey.tpmState(TPMSettings.current)
            return title + "\n    usable    " + status.summary
        } catch {
            let (_, code, message) = Console.describe(error)
            return title + "\n    unusable  \(code): \(message)"
        }
    }
}
