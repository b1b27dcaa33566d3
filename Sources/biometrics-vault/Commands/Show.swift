import ArgumentParser
import BiometricsVault
import BiometricsVaultJSON

extension BiometricsVaultCommand {
    /// `show KEY [--field NAME]`: prints the credentials; unlocks a protected item (one prompt).
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print the credentials stored under KEY as JSON (unlocks a protected item: one prompt).")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var item: KeyArgument

        @Option(help: ArgumentHelp("Print only this top-level field, raw (strings without quotes; with --json, as JSON). On a terminal, control characters are shown escaped.", valueName: "name"))
        var field: String?

        func run() async throws {
            try await Console.run(options) {
                let session = Session(options: options, probesAvailability: false)
                let vault = try session.retrieveStored(item.key)
                let readable =
                    vault.kind == .locked ? try await Interrupts.cancellingOnInterrupt { try await vault.unlock() } : vault
                try printCredentials(of: readable)
            }
        }

        /// On a terminal, characters that could rewrite the screen are shown escaped; a pipe or file gets
        /// the exact bytes. (For the JSON text the escapes are JSON's own.) `--field` with `--json` prints
        /// the field's JSON text (a string quoted), so `--json` output is always JSON.
        private func printCredentials(of vault: Vault<JSONValue>) throws {
            let credentials = try vault.credentials
            let printed: String
            if let field {
                guard let value = credentials.member(named: field) else {
                    throw CLIFailure.notFound("the credentials under '\(vault.key)' have no field '\(Console.terminalSafe(field))'")
                }
                printed = options.json ? value.jsonText : value.rawText
            } else {
                printed = credentials.jsonText
            }
            Console.out(Console.stdoutIsTerminal ? Console.terminalSafe(printed) : printed)
        }
    }
}
