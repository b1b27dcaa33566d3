import ArgumentParser
import BiometricsVault

extension BiometricsVaultCommand {
    /// `show KEY [--field NAME]`: prints the credentials; unlocks a protected item (one prompt).
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print the credentials stored under KEY as JSON (unlocks a protected item: one prompt).")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var item: KeyArgument

        @Option(help: ArgumentHelp("Print only this top-level field, raw (strings without quotes).", valueName: "name"))
        var field: String?

        func run() async throws {
            try await Console.run(options) {
                let session = Session(options: options, probesAvailability: false)
                let vault = try session.retrieveStored(item.key)
                let field = field
                try await Interrupts.cancellingOnInterrupt {
                    let readable = vault.kind == .locked ? try await vault.unlock() : vault
                    let credentials = try readable.credentials
                    guard let field else { return Console.out(credentials.jsonText) }
                    guard case .object(let fields) = credentials, let value = fields[field] else {
                        throw CLIFailure.notFound("the credentials under '\(vault.key)' have no field '\(field)'")
                    }
                    Console.out(value.rawText)
                }
            }
        }
    }
}
