import ArgumentParser
import BiometricsVault
import BiometricsVaultJSON
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BiometricsVaultCommand {
    /// `import`: adopts an item written by `secret-tool` or python `keyring`.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Adopt a Secret Service item written by secret-tool or python keyring (attributes service, username) as a plain item.",
            discussion: """
                Only with the Secret Service store. The item's secret becomes the credentials of KEY (default: \
                the username) under --service. It must be JSON, or, with --as-string, any UTF-8 text, stored \
                as a JSON string (python keyring and secret-tool store plain passwords). A secret that is \
                neither is refused (exit 8) before anything is written. --remove-source deletes the source \
                only after the new item was read back as written. Example, for `keyring set myapp alice`:
                  biometrics-vault import --from-service myapp --username alice --key alice --as-string
                  biometrics-vault show alice                 # "the password", as a JSON string
                """)

        @OptionGroup var options: GlobalOptions

        @Option(help: ArgumentHelp("The source item's `service` attribute.", valueName: "service"))
        var fromService: String

        @Option(help: ArgumentHelp("The source item's `username` attribute.", valueName: "username"))
        var username: String

        @Option(help: ArgumentHelp("The key to store it under (default: the username).", valueName: "key"))
        var key: String?

        @Flag(help: "Store the secret's text as a JSON string (for a plain password) instead of requiring JSON.")
        var asString = false

        @Flag(help: "Delete the source item once the adopted one is written and reads back.")
        var removeSource = false

        func run() async throws {
            try await Console.run(options) {
                let session = Session(options: options)
                let key = key ?? username
                let asString = asString
                try session.selection.importSecretServiceItem(
                    service: fromService, username: username, as: key, removeSource: removeSource,
                    converting: { secret in try ImportedSecret.credentials(from: secret, asString: asString) })
                let vault = try session.retrieve(key)
                VaultReport(vault: vault, session: session, action: "imported").print()
            }
        }
    }
}

/// What `import` stores for a source item's secret: the stored text of credentials `show` can read.
enum ImportedSecret {
    /// The secret's JSON (compact, as `store` keeps it), or with `asString` its text as a JSON string.
    /// Errors say what is wrong with the secret, never its content.
    static func credentials(from secret: SecretBytes, asString: Bool) throws(CLIFailure) -> SecretBytes {
        var bytes = secret.copyBytes()
        defer { for index in bytes.indices { bytes[index] = 0 } }
        if asString {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw .badInput("the source item's secret is not UTF-8 text; nothing was imported and the source is untouched")
            }
            return SecretBytes(utf8: JSONValue.string(text).jsonText)
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes, source: "the source item's secret")
        } catch {
            throw .badInput(
                "\(error.message); nothing was imported and the source is untouched. python keyring and secret-tool "
                    + "store plain text: add --as-string to store it as a JSON string")
        }
        return SecretBytes(utf8: value.jsonText)
    }
}
