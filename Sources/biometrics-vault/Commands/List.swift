import ArgumentParser
import BiometricsVault
import BiometricsVaultJSON

extension BiometricsVaultCommand {
    /// `list`: the keys stored under the service.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the keys stored under --service, one per line. Never prompts. Items that cannot be read are counted on stderr (exit 11).",
            discussion: "On a terminal, control characters in a key (an item another program wrote) are shown as \\uXXXX, line breaks included; a pipe or file gets the keys as stored, and --json gives them exactly.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Console.run(options) {
                let session = Session(options: options, allowsStorePrompts: false)
                let listing = try session.configuration.store.listing(service: session.configuration.service)
                let keys = listing.keys
                let json: JSONValue = .object([
                    "service": .string(session.configuration.service),
                    "store": .string(session.selection.storeName),
                    "keys": .array(keys.map { .string($0) }),
                    "unreadable": .integer(Int64(listing.unreadable)),
                ])
                // Keys another program wrote may hold terminal escapes: a terminal gets them escaped, one
                // key per line.
                let shown = Console.stdoutIsTerminal ? keys.map { Console.terminalSafe($0, escapingLineBreaks: true) } : keys
                Console.emit(options, json: json, text: shown.isEmpty ? nil : shown.joined(separator: "\n"))
                // The readable keys are listed first; the damaged items are reported, never hidden.
                guard listing.unreadable == 0 else {
                    throw VaultError(
                        .corruptedItem,
                        underlying: .message(
                            "\(listing.unreadable) item(s) under '\(session.configuration.service)' cannot be read (damaged, or written with another store key); they are left in place"))
                }
            }
        }
    }
}
