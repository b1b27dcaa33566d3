import ArgumentParser
import BiometricsVault

extension BiometricsVaultCommand {
    /// `upgrade KEY`: protects a plainly stored item.
    struct Upgrade: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "upgrade",
            abstract: "Protect the plainly stored credentials under KEY with your fingerprint (one prompt).")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var item: KeyArgument

        func run() async throws {
            try await Console.run(options) {
                let session = Session(options: options)
                let vault = try session.retrieveStored(item.key)
                guard vault.kind == .keychain else {
                    throw CLIFailure.wrongState("'\(item.key)' is already protected (\(vault.stateName))")
                }
                try await Interrupts.cancellingOnInterrupt {
                    let upgraded = try await vault.upgrade()
                    VaultReport(vault: upgraded, session: session, action: "upgraded").print()
                }
            }
        }
    }
}
