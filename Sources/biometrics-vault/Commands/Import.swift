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
            abstract: "Adopt a Secret Service item written by secret-tool or python keyring (attributes service, username) as a plain item; or, with --from-store, move every item into the vault service.",
            discussion: """
                Only with the Secret Service store. The item's secret becomes the credentials of KEY (default: \
                the username) under --service. It must be JSON, or, with --as-string, any UTF-8 text, stored \
                as a JSON string (python keyring and secret-tool store plain passwords). A secret that is \
                neither is refused (exit 8) before anything is written. --remove-source deletes the source \
                only after the new item was read back as written. Example, for `keyring set myapp alice`:
                  biometrics-vault import --from-service myapp --username alice --key alice --as-string
                  biometrics-vault show alice                 # "the password", as a JSON string

                With --from-store file|secret-service instead, every item of --service in that store moves \
                into the vault service (which must answer: `auto` picks it, or --store service). A plain item \
                stays plain; a protected one keeps its policy (one prompt to read it from the source, one for \
                the service to store it). A key already in the service is left alone on both sides and \
                reported. --remove-source deletes each source item once its copy reads back from the service.
                """)

        @OptionGroup var options: GlobalOptions

        @Option(help: ArgumentHelp("Move every item of --service from this store into the vault service.", valueName: "store"))
        var fromStore: SourceStore?

        @Option(help: ArgumentHelp("The source item's `service` attribute.", valueName: "service"))
        var fromService: String?

        @Option(help: ArgumentHelp("The source item's `username` attribute.", valueName: "username"))
        var username: String?

        /// The stores items move from into the vault service.
        enum SourceStore: String, CaseIterable, ExpressibleByArgument, Sendable {
            case file
            case secretService = "secret-service"

            var option: StoreOption { self == .file ? .file : .secretService }
        }

        @Option(help: ArgumentHelp("The key to store it under (default: the username).", valueName: "key"))
        var key: String?

        @Flag(help: "Store the secret's text as a JSON string (for a plain password) instead of requiring JSON.")
        var asString = false

        @Flag(help: "Delete the source item once the adopted one is written and reads back.")
        var removeSource = false

        func validate() throws {
            if fromStore != nil {
                guard fromService == nil, username == nil, key == nil, !asString else {
                    throw ValidationError("--from-store moves whole stores: it takes none of --from-service, --username, --key, --as-string")
                }
            } else if fromService == nil || username == nil {
                throw ValidationError("give --from-service and --username (one Secret Service item), or --from-store")
            }
        }

        func run() async throws {
            try await Console.run(options) {
                if let fromStore {
                    return try await StoreMove(options: options, source: fromStore.option, removeSource: removeSource).run()
                }
                guard let fromService, let username else { return }
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

/// `import --from-store`: every item of one service moves from the file store or the Secret Service into
/// the vault service, keeping its protection and policy. Each item is written into an empty key only, and
/// its source deleted (with `--remove-source`) only once the copy reads back from the service.
struct StoreMove {
    let options: GlobalOptions
    let source: StoreOption
    let removeSource: Bool

    func run() async throws {
        let target = Session(options: options)
        guard target.selection.storeName == "service" else {
            throw VaultError(.storeUnavailable, underlying: .message(
                "--from-store moves items into the vault service, and it does not answer here (see `doctor`); nothing was moved"))
        }
        var sourceOptions = options
        sourceOptions.store = source
        let from = Session(options: sourceOptions)
        var moved: [JSONValue] = []
        var lines: [String] = []
        for key in try from.configuration.store.listing(service: options.service).keys {
            let outcome = try await move(key, from: from, to: target)
            moved.append(.object(["key": .string(key), "result": .string(outcome)]))
            lines.append("\(key): \(outcome)")
        }
        if lines.isEmpty { lines.append("nothing stored under service '\(options.service)' in the \(source.rawValue) store") }
        Console.emit(options, json: .object(["moved": .array(moved)]), text: lines.joined(separator: "\n"))
    }

    /// Moves one item; what happened, in words.
    private func move(_ key: String, from: Session, to target: Session) async throws -> String {
        let existing = try target.retrieve(key)
        if existing.kind != .empty { return "kept: the vault service already has this key (both left as they are)" }
        let credentials: JSONValue
        let policy: ProtectionPolicy?
        switch try from.retrieve(key) {
        case .empty, .emptyWithBiometrics: return "skipped: gone from the source"
        case .keychain(let vault), .keychainUpgradable(let vault):
            credentials = vault.credentials
            policy = nil
        case .biometrics(let vault):
            credentials = vault.credentials
            policy = vault.policy
        case .locked(let vault):
            policy = vault.policy
            credentials = try await Interrupts.cancellingOnInterrupt { try await vault.unlock() }.credentials
        }
        var configuration = target.configuration
        if let policy { configuration.policy = policy }
        switch try VaultFactory<JSONValue>.retrieveVaultOrThrow(key: key, configuration: configuration) {
        case .empty(let empty), .emptyWithBiometrics(let empty):
            if policy != nil {
                _ = try await Interrupts.cancellingOnInterrupt { try await empty.storeToBiometrics(credentials: credentials) }
            } else {
                _ = try empty.storeToKeychain(credentials: credentials)
            }
        case .keychain, .keychainUpgradable, .biometrics, .locked:
            return "kept: the vault service already has this key (both left as they are)"
        }
        let protection = policy.map { "protected (\($0.rawValue))" } ?? "plain"
        guard removeSource else { return "moved, \(protection); the source is kept" }
        // The copy must read back before the source goes: a plain one by value, a protected one by its state.
        let copy = try target.retrieve(key)
        let readBack = policy == nil ? (try? copy.credentials) == credentials : copy.biometricsEnabled
        guard readBack else { return "moved, \(protection); the source is kept: the copy did not read back as written" }
        _ = try from.retrieve(key).reset()
        return "moved, \(protection); the source is removed"
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
