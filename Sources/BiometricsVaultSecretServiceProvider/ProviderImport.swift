#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultSecretService
import BiometricsVaultService
import Glibc

/// `biometrics-vault secret-service --import`: every item of the provider that owns
/// `org.freedesktop.secrets` now (gnome-keyring, KeePassXC, KWallet), with its label, attributes and
/// content type, into the provider's collections in the vault service, before the provider takes over.
///
/// Each collection goes to the provider's collection of the same label (the one the source's `default`
/// alias names goes to `login`), made when missing. An item whose attributes and secret are already in
/// that collection is skipped, so an import run twice adds nothing. The secrets travel in an encrypted
/// session. A locked collection is unlocked through its provider's own prompt (its password dialog).
/// Nothing is removed from the source.
enum ProviderImport {
    static let service = "org.freedesktop.secrets"
    static let timeout: Duration = .seconds(25)

    struct Outcome: Sendable {
        var collections = 0
        var imported = 0
        var skipped = 0
    }

    static func run(from bus: DBusBus, into storage: ProviderStorage, log: (String) -> Void) throws -> Outcome {
        let connection = try DBusConnection(bus, sharing: .privateConnection)
        try refuseSelf(connection)
        func call(_ path: String, _ method: SecretServiceAPI.Method, _ arguments: DBusArgument?) throws -> DBusValue {
            try connection.call(
                DBusMethod(destination: service, path: path, interface: method.interface.rawValue, member: method.member), arguments,
                replyType: method.replyType, autoStart: false, timeout: timeout)
        }
        func property(_ path: String, _ property: SecretServiceAPI.Property) throws -> DBusValue {
            try connection.property(service, path: path, interface: property.interface.rawValue, name: property.name, timeout: timeout)
        }

        let keyPair = try SessionEncryption.KeyPair()
        let opened = try call(ProviderInterface.root, .openSession, .tuple([.string(SessionEncryption.algorithm), .variant(.bytes(keyPair.publicKey))]))
        let sessionPath = opened[1].string ?? "/"
        let encryption = try SessionEncryption(peerPublicKey: opened[0].unboxed.bytes ?? [], keyPair: keyPair)
        defer { _ = try? call(sessionPath, .closeSession, nil) }

        let defaultPath = try call(ProviderInterface.root, .readAlias, .tuple([.string("default")]))[0].string
        var catalog = try storage.loadCatalog() ?? SecretServiceProvider.initialCatalog()
        var outcome = Outcome()
        for path in try property(ProviderInterface.root, .collections).strings ?? [] {
            let label = try property(path, .collectionLabel).string ?? ""
            if try property(path, .collectionLocked).bool == true {
                try unlock(path, connection: connection, call: call)
            }
            let items = try property(path, .collectionItems).strings ?? []
            guard !items.isEmpty else { continue }
            let target: String
            if path == defaultPath {
                target = catalog.aliases["default"] ?? "login"
            } else if let existing = catalog.collections.first(where: { $0.label == label }) {
                target = existing.id
            } else {
                target = SecretServiceProvider.collectionID(label: label, taken: Set(catalog.collections.map(\.id)))
                let now = ProviderState.now()
                catalog.collections.append(CollectionRecord(id: target, label: label, created: now, modified: now, policy: nil))
                try storage.save(catalog)
            }
            outcome.collections += 1
            var existing = try storage.loadItems(of: target)
            var next = existing.compactMap { UInt64($0.id) }.max().map { $0 + 1 } ?? 1
            let secrets = try call(ProviderInterface.root, .getSecrets, .tuple([.objectPaths(items), .objectPath(sessionPath)]))[0]
            for entry in secrets.children {
                guard let item = entry[0].string else { continue }
                let value = entry[1]
                let secret = try encryption.decrypt(parameters: value[1].bytes ?? [], value: value[2].bytes ?? [])
                let attributes = Dictionary(try property(item, .itemAttributes).stringPairs ?? [],
                                            uniquingKeysWith: { _, last in last })
                if existing.contains(where: { $0.record.attributes == attributes && $0.secret == secret }) {
                    outcome.skipped += 1
                    continue
                }
                let record = ItemRecord(
                    label: try property(item, .itemLabel).string ?? "", attributes: attributes,
                    contentType: value[3].string ?? "text/plain", created: try property(item, .itemCreated).uint64 ?? 0,
                    modified: try property(item, .itemModified).uint64 ?? 0, policy: nil)
                try storage.write(collection: target, item: String(next), record: record, secret: secret, authorization: nil)
                existing.append((String(next), record, secret))
                next += 1
                outcome.imported += 1
            }
            log("secret service: imported \(label.isEmpty ? path : label)")
        }
        return outcome
    }

    /// The provider that owns the name must not be this program: the import would read its own items.
    private static func refuseSelf(_ connection: DBusConnection) throws {
        let owner: UInt32
        do {
            owner = try connection.call(
                DBusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                           member: "GetConnectionUnixProcessID"),
                .tuple([.string(service)]), replyType: "(u)")[0].uint32 ?? 0
        } catch {
            throw VaultError(.storeUnavailable, underlying: .message(
                "no Secret Service provider runs on the session bus: start the one to import from first"))
        }
        var ours = [CChar](repeating: 0, count: 4096)
        var theirs = [CChar](repeating: 0, count: 4096)
        let ourLength = readlink("/proc/self/exe", &ours, ours.count - 1)
        let theirLength = readlink("/proc/\(owner)/exe", &theirs, theirs.count - 1)
        if ourLength > 0, ourLength == theirLength, ours[0..<ourLength] == theirs[0..<theirLength] {
            throw VaultError(.storeUnavailable, underlying: .message(
                "the Secret Service provider on the bus is biometrics-vault itself: import while the old provider still runs"))
        }
    }

    /// Unlocks a collection through its provider's prompt, and waits for the prompt to complete.
    private static func unlock(
        _ path: String, connection: DBusConnection, call: (String, SecretServiceAPI.Method, DBusArgument?) throws -> DBusValue
    ) throws {
        let reply = try call(ProviderInterface.root, .unlock, .tuple([.objectPaths([path])]))
        guard let prompt = reply[1].string, prompt != "/" else { return }
        let completed = SecretServiceAPI.Signal.completed
        let signals = connection.subscribe([
            DBusSignalMatch(sender: nil, path: prompt, interface: completed.interface.rawValue, member: completed.member)
        ])
        _ = try call(prompt, .prompt, .tuple([.string("")]))
        switch signals.next(until: .now + .seconds(300)) {
        case .signal(let completed) where completed.parameters[0].bool == false:
            return
        default:
            throw VaultError(.userCancel, underlying: .message("the collection \(path) stayed locked"))
        }
    }
}
#endif
