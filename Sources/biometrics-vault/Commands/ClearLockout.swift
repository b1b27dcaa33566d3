import ArgumentParser
import BiometricsVault

extension BiometricsVaultCommand {
    /// `clear-lockout`: ends a fingerprint lockout with the login password.
    struct ClearLockout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear-lockout",
            abstract: "End the fingerprint lockout after 5 failed attempts: asks for your login password (PAM on the terminal, or polkit). Exits 0 without asking when nothing is locked out.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Console.run(options) {
                let session = Session(options: options)
                guard let authenticator = session.configuration.authenticator as? SessionAwareAuthenticator,
                    authenticator.isLockedOut
                else {
                    return Console.emit(options, json: .object(["lockedOut": .bool(false)]), text: "fingerprints are not locked out")
                }
                guard authenticator.session.ownerAuthenticationUsable else {
                    throw VaultError(.interactionNotAllowed, underlying: .message(
                        "no terminal (PAM) or polkit agent to ask for the login password; run it on a terminal"))
                }
                try await Interrupts.cancellingOnInterrupt {
                    try await authenticator.authenticateOwner(prompt: PromptText(reason: "Unlock the fingerprint reader after failed attempts"))
                }
                Console.emit(options, json: .object(["lockedOut": .bool(false), "cleared": .bool(true)]), text: "fingerprint lockout cleared")
            }
        }
    }
}
