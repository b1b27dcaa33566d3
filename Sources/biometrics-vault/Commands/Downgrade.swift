import ArgumentParser
import BiometricsVault

extension BiometricsVaultCommand {
    /// `downgrade KEY`: removes the protection of an item (after one prompt).
    struct Downgrade: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "downgrade",
            abstract: "Store the protected credentials under KEY plainly again (unlocks first: one prompt).")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var item: KeyArgument

        func run() async throws {
            try await Console.run(options) {
                let session = Session(options: options)
                let vault = try session.retrieveStored(item.key)
                guard vault.biometricsEnabled else {
                    throw CLIFailure.wrongState("'\(item.key)' is not protected (\(vault.stateName))")
                }
                try await Interrupts.cancellingOnInterrupt {
                    let unlocked = vault.kind == .locked ? try await vault.unlock() : vault
                    let downgraded = try unlocked.downgrade()
                    VaultReport(vault: downgraded, session: session, action: "downgraded").print()
                }
            }
        }
    }
}
