import ArgumentParser
import BiometricsVault

extension BiometricsVaultCommand {
    /// `import`: adopts an item written by `secret-tool` or python `keyring`.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Adopt a Secret Service item written by secret-tool or python keyring (attributes service, username) as a plain item.",
            discussion: """
                Only with the Secret Service store. The item's secret becomes the credentials of KEY (default: \
                the username) under --service. Example, for `keyring set myapp alice`:
                  biometrics-vault import --from-service myapp --username alice --key alice
                """)

        @OptionGroup var options: GlobalOptions

        @Option(help: ArgumentHelp("The source item's `service` attribute.", valueName: "service"))
        var fromService: String

        @Option(help: ArgumentHelp("The source item's `username` attribute.", valueName: "username"))
        var username: String

        @Option(help: ArgumentHelp("The key to store it under (default: the username).", valueName: "key"))
        var key: String?

        @Flag(help: "Delete the source item once the adopted one is written.")
        var removeSource = false

        func run() async throws {
            try await Console.run(options) {
                let session = Session(options: options)
                let key = key ?? username
                try session.selection.importSecretServiceItem(
                    service: fromService, username: username, as: key, removeSource: removeSource)
                let vault = try session.retrieve(key)
                VaultReport(vault: vault, session: session, action: "imported").print()
            }
        }
    }
}
