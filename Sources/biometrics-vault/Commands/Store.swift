import ArgumentParser
import BiometricsVault

extension BiometricsVaultCommand {
    /// `store KEY [--biometrics]`: stores new credentials from stdin.
    struct Store: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "store",
            abstract: "Store the JSON credentials on stdin under KEY (KEY must be empty; see `update`).")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var item: KeyArgument
        @OptionGroup var input: CredentialsInputOptions

        @Flag(help: "Protect the credentials: a fingerprint (or, with --authenticator pam/polkit, the login password) unlocks them. Prompts once now.")
        var biometrics = false

        func run() async throws {
            try await Console.run(options) {
                // The key and the item's state first: a bad command fails at once, before stdin is read.
                let session = Session(options: options)
                let vault = try session.retrieve(item.key)
                guard vault.kind == .empty else {
                    throw CLIFailure.wrongState("'\(item.key)' is already stored (\(vault.stateName)); use update, or reset first")
                }
                let credentials = try input.readCredentials()
                let biometrics = biometrics
                try await Interrupts.cancellingOnInterrupt {
                    let stored =
                        biometrics
                        ? try await vault.storeToBiometrics(credentials: credentials)
                        : try vault.storeToKeychain(credentials: credentials)
                    VaultReport(vault: stored, session: session, action: "stored").print()
                }
            }
        }
    }
}
