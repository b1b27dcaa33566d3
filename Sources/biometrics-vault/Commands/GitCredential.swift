import ArgumentParser
import BiometricsVault
import BiometricsVaultCredentialHelpers
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
            let biometrics = biometrics
            try await Console.run(options) {
                let request = try GitCredentialRequest.read(from: STDIN_FILENO)
                guard request.scheme != nil else { return }
                // git compares the helper's stderr in its own suite: nothing there unless something failed.
                let session = Session(options: options, announcesStore: false)
                let helper = GitCredentialHelper(configuration: session.configuration)
                switch operation {
                case .get:
                    try await Interrupts.cancellingOnInterrupt {
                        guard let text = try await helper.get(request) else { return }
                        // Through Console: an answer stdout did not take is exit 14, as for `show`.
                        Console.outRaw(text)
                    }
                case .store:
                    try await Interrupts.cancellingOnInterrupt {
                        try await helper.store(request, biometrics: biometrics)
                    }
                case .erase:
                    try await helper.erase(request)
                }
            }
        }
    }
}

/// The verb name and the helper link's name.
enum GitCredentialVerb {
    static let name = BiometricsVaultCommand.GitCredential.configuration.commandName ?? "git-credential"
    static let helperName = "git-credential-biometrics-vault"
}
