import ArgumentParser
import BiometricsVault

extension BiometricsVaultCommand {
    /// `update KEY`: replaces stored credentials, keeping their protection.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Replace the credentials under KEY with the JSON on stdin, keeping their protection (a protected item prompts once).")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var item: KeyArgument
        @OptionGroup var input: CredentialsInputOptions

        func run() async throws {
            try await Console.run(options) {
                // The key and the item's state first: a bad command fails at once, before stdin is read.
                let session = Session(options: options)
                let vault = try session.retrieveStored(item.key)
                let credentials = try input.readCredentials()
                try await Interrupts.cancellingOnInterrupt {
                    let writable = vault.kind == .locked ? try await vault.unlock() : vault
                    let updated = try await writable.update(credentials: credentials)
                    VaultReport(vault: updated, session: session, action: "updated").print()
                }
            }
        }
    }
}
