import ArgumentParser
import BiometricsVault

extension BiometricsVaultCommand {
    /// `list`: the keys stored under the service.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the keys stored under --service, one per line. Never prompts.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Console.run(options) {
                let session = Session(options: options)
                let keys = try session.configuration.store.keys(service: session.configuration.service)
                let json: JSONValue = .object([
                    "service": .string(session.configuration.service),
                    "store": .string(session.selection.storeName),
                    "keys": .array(keys.map { .string($0) }),
                ])
                Console.emit(options, json: json, text: keys.isEmpty ? nil : keys.joined(separator: "\n"))
            }
        }
    }
}
