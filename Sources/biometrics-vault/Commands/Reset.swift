import ArgumentParser
import BiometricsVault
import BiometricsVaultJSON

extension BiometricsVaultCommand {
    /// `reset KEY`: deletes the item, whatever its state. Never prompts.
    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset",
            abstract: "Delete the credentials under KEY, protected, invalidated or unreadable alike. Never prompts; exits 0 when nothing was stored.")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var item: KeyArgument

        func run() async throws {
            try await Console.run(options) {
                let session = Session(options: options)
                // The non-throwing retrieve, so an item that cannot be read (corrupted) can still be deleted.
                let vault = VaultFactory<JSONValue>.retrieveVault(key: item.key, configuration: session.configuration)
                let empty = try vault.reset()
                VaultReport(vault: empty, session: session, action: "reset").print()
            }
        }
    }
}
