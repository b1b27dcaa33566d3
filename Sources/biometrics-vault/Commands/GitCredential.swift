import ArgumentParser
import BiometricsVault
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension BiometricsVaultCommand {
    /// `git-credential get|store|erase`: git's credential helper protocol over the vault.
    struct GitCredential: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "git-credential",
            abstract: "A git credential helper: get, store and erase what git asks for (see gitcredentials(7)).",
            discussion: """
                Set it up with `git config --global credential.helper biometrics-vault` (git then runs the \
                installed `git-credential-biometrics-vault` link), or `credential.helper 'biometrics-vault \
                --biometrics'` to keep new credentials behind your fingerprint. Items are keyed \
                git:PROTOCOL:USERNAME@HOST[:PATH] (`list` shows them). stdout carries protocol lines only; \
                on an error or a cancel `get` prints nothing, and git asks for the password itself. A \
                protected item that already exists is kept as it is by `store` (git stores after every \
                success; no second prompt); `erase`, which git runs when a password is rejected, removes it.
                """)

        /// The helper operations. git may add operations: an unknown one is ignored, as gitcredentials(7)
        /// asks, so it is matched here rather than refused by the parser.
        enum Operation: String, CaseIterable, Sendable {
            case get, store, erase
        }

        @OptionGroup var options: GlobalOptions

        @Flag(help: "Store new credentials behind the fingerprint (or, with --authenticator pam/polkit, the login password).")
        var biometrics = false

        @Argument(help: ArgumentHelp("get, store or erase (git passes it; others are ignored).", valueName: "operation"))
        var operation: String

        func run() async throws {
            guard let operation = Operation(rawValue: operation) else { return }
            // git may close the pipe early; a write then fails instead of killing the helper.
            signal(SIGPIPE, SIG_IGN)
            let request = GitCredentialRequest.readStandardInput()
            guard request.scheme != nil else { return }
            let biometrics = biometrics
            try await Console.run(options) {
                let session = Session(options: options)
                let helper = GitCredentialHelper(configuration: session.configuration)
                switch operation {
                case .get:
                    try await Interrupts.cancellingOnInterrupt {
                        guard let text = try await helper.get(request) else { return }
                        RawOutput.put(text, to: STDOUT_FILENO)
                    }
                case .store:
                    try await Interrupts.cancellingOnInterrupt {
                        try await helper.store(request, biometrics: biometrics)
                    }
                case .erase:
                    try helper.erase(request)
                }
            }
        }
    }
}

/// The helper's operations on the vault (the command above only reads stdin and prints).
struct GitCredentialHelper: Sendable {
    let configuration: VaultConfiguration

    private func keys() throws -> [String] {
        try configuration.store.keys(service: configuration.service).filter { $0.hasPrefix(GitCredentialKey.prefix) }
    }

    private func vault(_ key: String) throws -> Vault<GitCredentialItem> {
        try VaultFactory<GitCredentialItem>.retrieveVaultOrThrow(key: key, configuration: configuration)
    }

    /// The protocol lines of the best stored match (unlocking it: one prompt), or `nil` when nothing matches.
    func get(_ request: GitCredentialRequest) async throws -> String? {
        guard let key = GitCredentialKey.matches(request, among: try keys()).first else { return nil }
        let vault = try vault(key)
        let readable: Vault<GitCredentialItem>
        switch vault.kind {
        case .empty: return nil
        case .locked: readable = try await vault.unlock()
        case .keychain, .biometrics: readable = vault
        }
        guard let text = try readable.credentials.protocolText else {
            throw CLIFailure.badInput("the item '\(key)' holds a value that is not one protocol line")
        }
        return text
    }

    /// Stores what git approved. A plain item is replaced when it changed; a protected one is kept, since
    /// git stores after each success (also of a credential this helper answered) and checking would prompt.
    func store(_ request: GitCredentialRequest, biometrics: Bool) async throws {
        guard let item = request.item, item.username != nil, item.password != nil,
            let key = GitCredentialKey.key(for: request)
        else { return }
        let vault = try vault(key)
        switch vault.kind {
        case .empty:
            _ = biometrics ? try await vault.storeToBiometrics(credentials: item) : try vault.storeToKeychain(credentials: item)
        case .keychain:
            // A hand-made item under a git key may not decode: replace it.
            if (try? vault.credentials) == item { return }
            _ = try await vault.update(credentials: item)
        case .locked, .biometrics:
            return
        }
    }

    /// Erases the matching items (all usernames when git names none). When git sends the password, a
    /// plain item holding another password is kept (it was not the one rejected).
    func erase(_ request: GitCredentialRequest) throws {
        for key in GitCredentialKey.matches(request, among: try keys()) {
            let vault = VaultFactory<GitCredentialItem>.retrieveVault(key: key, configuration: configuration)
            if let password = request.password, vault.kind == .keychain,
                let stored = try? vault.credentials, stored.password != password
            {
                continue
            }
            _ = try vault.reset()
        }
    }
}
