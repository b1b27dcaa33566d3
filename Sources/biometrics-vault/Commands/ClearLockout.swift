import ArgumentParser
import BiometricsVault
import BiometricsVaultJSON

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
                guard let authenticator = session.configuration.authenticator as? SessionAwareAuthenticator else {
                    return Console.emit(options, json: .object(["lockedOut": .bool(false)]), text: "fingerprints are not locked out")
                }
                switch try await Interrupts.cancellingOnInterrupt({ try await authenticator.clearLockout() }) {
                case .notLockedOut:
                    Console.emit(options, json: .object(["lockedOut": .bool(false)]), text: "fingerprints are not locked out")
                case .cleared:
                    Console.emit(options, json: .object(["lockedOut": .bool(false), "cleared": .bool(true)]), text: "fingerprint lockout cleared")
                }
            }
        }
    }
}

extension SessionAwareAuthenticator.Guidance {
    /// The ways out the CLI names: its own commands.
    static let commandLine = SessionAwareAuthenticator.Guidance(
        lockoutWayOut: "run `biometrics-vault clear-lockout` on a terminal (it asks for your login password)",
        readerDiagnosis: "`biometrics-vault doctor` shows what is missing")
}
