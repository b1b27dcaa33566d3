#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultProcess
import BiometricsVaultSecretService
import BiometricsVaultService
import CProcessControl
import Glibc

/// `biometrics-vault secret-service`: a provider of the Secret Service API (spec 0.2) on the user's
/// session bus whose items live in the vault service (Docs/SecretServiceProvider.md).
///
/// Who asks is the sender the bus daemon wrote into each call. A plain item is open to every client, as
/// in every other provider. An item under a policy (its collection's, or its own `biometrics-vault:policy`
/// attribute) is `Locked` for each client until that client completes an `Unlock` prompt, which the
/// vault service answers only after its own fingerprint match or password check; the grant belongs to
/// that client's connection and ends when it leaves the bus, on `Lock`, or when the vault service ends
/// it. With an unlock window set, the grant also serves the clients of that client's terminal session
/// until the window ends (``ProviderWindow``). The provider never holds a protected secret longer than
/// one reply.
package final class SecretServiceProvider: DBusObjectTree {
    private let storage: ProviderStorage
    private let authenticator: @Sendable (ProtectionPolicy, String) async throws -> Authorization
    private let log: @Sendable (String) -> Void
    private let state: LockedValue<ProviderState>
    private let server = LockedValue<DBusObjectServer?>(nil)
    /// How long a window lasts (0: no windows). At most the vault service's grant's life.
    private let windowSeconds: Int

    /// The longest window: a grant of the vault service lasts 15 minutes.
    static let maximumWindowSeconds = 15 * 60

    /// Loads the catalog and every item's record from `store` (creating the `login` collection and the
    /// `default` and `login` aliases the first time). `authenticator` runs one prompt for a policy with a
    /// reason; production uses the vault service's. `windowSeconds` (at most 15 minutes): how long a
    /// client's successful prompt also serves the other clients of its terminal session (0: never).
    package init(
        store: any SecretStore,
        authenticator: @escaping @Sendable (ProtectionPolicy, String) async throws -> Authorization,
        windowSeconds: Int = 0,
        log: @escaping @Sendable (String) -> Void
    ) throws {
        storage = ProviderStorage(store: store)
        self.windowSeconds = min(max(0, windowSeconds), Self.maximumWindowSeconds)
        self.authenticator = authenticator
        self.log = log
        var catalog = try storage.loadCatalog() ?? Self.initialCatalog()
        if catalog.collections.isEmpty { catalog = Self.initialCatalog() }
        for alias in ["default", "login"] where catalog.aliases[alias].map({ id in catalog.collections.contains { $0.id == id } }) != true {
            catalog.aliases[alias] = catalog.collections.first { $0.id == "login" }?.id ?? catalog.collections[0].id
        }
        try storage.save(catalog)
        var loaded = ProviderState(catalog: catalog)
        for collection in catalog.collections {
            var items: [String: LoadedItem] = [:]
            for (id, record, secret) in try storage.loadItems(of: collection.id) {
                items[id] = LoadedItem(record: record, secret: secret)
                if let number = UInt64(id) { loaded.nextItem = max(loaded.nextItem, number + 1) }
            }
            loaded.items[collection.id] = items
        }
        state = LockedValue(loaded)
    }

    /// The catalog of a provider's first start: the `login` collection, which `default` and `login` name.
    static func initialCatalog() -> CatalogRecord {
        let now = ProviderState.now()
        return CatalogRecord(
            collections: [CollectionRecord(id: "login", label: "Login", created: now, modified: now, policy: nil)],
            aliases: ["default": "login", "login": "login"])
    }

    /// Serves on `bus` until the name is lost or the bus goes away. With `replace`, a provider that does
    /// not hand the name over (gnome-keyring) is stopped (SIGTERM), as `gnome-keyring-daemon --replace`
    /// stops another of its kind.
    package func run(bus: DBusBus, replace: Bool, ready: () -> Void = {}) throws {
        let server = try DBusObjectServer(
            bus: bus, name: ProviderInterface.busName, interfaceXML: SecretServiceAPI.introspectionXML, ownership: .replaceable(takeOver: replace),
            tree: self)
        self.server.withLock { $0 = server }
        defer { self.server.withLock { $0 = nil } }
        for path in [ProviderInterface.root, ProviderInterface.collections, ProviderInterface.aliases, ProviderInterface.sessions,
                     ProviderInterface.prompts]
        {
            try server.serve(subtreeAt: path)
        }
        for collection in state.withLock({ $0.catalog.collections.map(\.id) }) {
            try server.serve(subtreeAt: Self.collectionPath(collection))
        }
        try server.run(whenQueued: { [log] owner in
            let program = (try? String(contentsOfProcFile: "/proc/\(owner)/comm")).map { String($0.prefix { $0 != "\n" }) } ?? "?"
            log("secret service: \(program) (pid \(owner)) does not hand over org.freedesktop.secrets: stopping it")
            if owner > 1 { kill(pid_t(owner), SIGTERM) }
        }, ready: ready)
    }

    // MARK: Paths

    static func collectionPath(_ id: String) -> String { "\(ProviderInterface.collections)/\(id)" }
    static func itemPath(_ collection: String, _ item: String) -> String { "\(collectionPath(collection))/\(item)" }

    /// What an object path names.
    enum Object: Equatable {
        case service
        case folder
        case collection(String)
        case item(collection: String, item: String)
        case session(String)
        case prompt(String)
    }

    func object(at path: String, in state: ProviderState) -> Object? {
        if path == ProviderInterface.root { return .service }
        if [ProviderInterface.collections, ProviderInterface.aliases, ProviderInterface.sessions, ProviderInterface.prompts].contains(path) {
            return .folder
        }
        if path.hasPrefix(ProviderInterface.sessions + "/") {
            return state.sessions[path] != nil ? .session(path) : nil
        }
        if path.hasPrefix(ProviderInterface.prompts + "/") {
            return state.prompts[path] != nil ? .prompt(path) : nil
        }
        if path.hasPrefix(ProviderInterface.aliases + "/") {
            let alias = String(path.dropFirst(ProviderInterface.aliases.count + 1))
            guard let id = state.catalog.aliases[alias], state.items[id] != nil else { return nil }
            return .collection(id)
        }
        guard path.hasPrefix(ProviderInterface.collections + "/") else { return nil }
        let parts = path.dropFirst(ProviderInterface.collections.count + 1).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch parts.count {
        case 1: return state.items[parts[0]] != nil ? .collection(parts[0]) : nil
        case 2: return state.items[parts[0]]?[parts[1]] != nil ? .item(collection: parts[0], item: parts[1]) : nil
        default: return nil
        }
    }

    // MARK: DBusObjectTree

    package func interfaces(at path: String) -> [String]? {
        switch state.withLock({ object(at: path, in: $0) }) {
        case .service: [SecretServiceAPI.Interface.service.rawValue]
        case .folder: []
        case .collection: [SecretServiceAPI.Interface.collection.rawValue]
        case .item: [SecretServiceAPI.Interface.item.rawValue]
        case .session: [SecretServiceAPI.Interface.session.rawValue]
        case .prompt: [SecretServiceAPI.Interface.prompt.rawValue]
        case nil: nil
        }
    }

    package func children(of path: String) -> [String] {
        state.withLock { state in
            switch path {
            case ProviderInterface.root: ["collection", "aliases", "session", "prompt"]
            case ProviderInterface.collections: state.catalog.collections.map(\.id)
            case ProviderInterface.aliases: state.catalog.aliases.keys.sorted()
            case ProviderInterface.sessions: state.sessions.keys.map { String($0.split(separator: "/").last!) }
            case ProviderInterface.prompts: state.prompts.keys.map { String($0.split(separator: "/").last!) }
            default:
                if case .collection(let id) = object(at: path, in: state), path.hasPrefix(ProviderInterface.collections) {
                    Array(state.items[id, default: [:]].keys)
                } else {
                    []
                }
            }
        }
    }

    package func handle(_ call: DBusMethodCall) { answer(call) }

    /// Answers `call`, once: the bus's, or a test's.
    func answer(_ call: any DBusIncomingCall) {
        if windowSeconds > 0 { noteScope(of: call.sender) }
        do {
            let request = try ProviderRequest(interface: call.interface, member: call.member, parameters: call.parameters)
            switch request {
            case .openSession, .createCollection, .searchItems, .unlock, .lock, .getSecrets, .readAlias, .setAlias:
                try serviceCall(call, request)
            case .deleteCollection, .searchCollection, .createItem: try collectionCall(call, request)
            case .deleteItem, .getSecret, .setSecret: try itemCall(call, request)
            case .closeSession: sessionCall(call)
            case .prompt, .dismiss: try promptCall(call, request)
            }
        } catch let error as ProviderError {
            call.fail(name: error.name, message: error.message)
        } catch {
            let failure = ProviderError(error)
            call.fail(name: failure.name, message: failure.message)
        }
    }

    package func property(_ name: String, interface: String, at path: String, sender: String) -> DBusArgument? {
        guard let property = SecretServiceAPI.Property(interface: interface, name: name) else { return nil }
        return state.withLock { state -> DBusArgument? in
            switch (object(at: path, in: state), property) {
            case (.service, .collections):
                return .objectPaths(state.catalog.collections.map { Self.collectionPath($0.id) })
            case (.collection(let id), let property):
                guard let record = state.catalog.collections.first(where: { $0.id == id }) else { return nil }
                switch property {
                case .collectionItems: return .objectPaths(state.items[id, default: [:]].keys.sorted().map { Self.itemPath(id, $0) })
                case .collectionLabel: return .string(record.label)
                case .collectionLocked: return .bool(state.isLocked(collection: id, for: sender))
                case .collectionCreated: return .uint64(record.created)
                case .collectionModified: return .uint64(record.modified)
                default: return nil
                }
            case (.item(let collection, let id), let property):
                guard let item = state.items[collection]?[id] else { return nil }
                switch property {
                case .itemLocked: return .bool(state.isLocked(item.record, for: sender))
                case .itemAttributes: return .stringDict(item.record.attributes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
                case .itemLabel: return .string(item.record.label)
                case .itemType: return .string(item.record.contentType)
                case .itemCreated: return .uint64(item.record.created)
                case .itemModified: return .uint64(item.record.modified)
                default: return nil
                }
            default:
                return nil
            }
        }
    }

    package func setProperty(_ name: String, interface: String, at path: String, sender: String, value: DBusValue) -> Bool {
        guard let property = SecretServiceAPI.Property(interface: interface, name: name), property.isWritable,
            value.typeString == property.type
        else { return false }
        let result: Result<String?, any Error> = state.withLock { state in
            do {
                switch (object(at: path, in: state), property) {
                case (.collection(let id), .collectionLabel):
                    guard let label = value.string, let index = state.catalog.collections.firstIndex(where: { $0.id == id }) else { return .success(nil) }
                    var catalog = state.catalog
                    catalog.collections[index].label = label
                    catalog.collections[index].modified = ProviderState.now()
                    try storage.save(catalog)
                    state.catalog = catalog
                    return .success(Self.collectionPath(id))
                case (.item(let collection, let id), .itemLabel), (.item(let collection, let id), .itemAttributes),
                    (.item(let collection, let id), .itemType):
                    guard var item = state.items[collection]?[id] else { return .success(nil) }
                    switch property {
                    case .itemLabel:
                        guard let label = value.string else { return .success(nil) }
                        item.record.label = label
                    case .itemType:
                        guard let type = value.string else { return .success(nil) }
                        item.record.contentType = type
                    default:
                        guard let pairs = value.stringPairs else { return .success(nil) }
                        var attributes = Dictionary(pairs, uniquingKeysWith: { _, last in last })
                        // The policy is the item's protection, kept by the vault service: it cannot be
                        // taken off or changed by rewriting the attributes.
                        attributes[ProviderInterface.policyAttribute] = item.record.attributes[ProviderInterface.policyAttribute]
                        item.record.attributes = attributes
                    }
                    item.record.modified = ProviderState.now()
                    if item.record.protection != nil {
                        try storage.writeRecordOnly(collection: collection, item: id, record: item.record)
                    } else if let secret = item.secret {
                        try storage.write(collection: collection, item: id, record: item.record, secret: secret, authorization: nil)
                    }
                    state.items[collection]?[id] = item
                    return .success(Self.itemPath(collection, id))
                default:
                    return .success(nil)
                }
            } catch {
                return .failure(error)
            }
        }
        guard case .success(let changed?) = result else {
            if case .failure(let error) = result { log("secret service: a property was not set: \(ProviderError(error).message)") }
            return false
        }
        if changed.split(separator: "/").count == 6 {
            let collection = String(changed.split(separator: "/")[4])
            emit(Self.collectionPath(collection), .itemChanged, .objectPath(changed))
        } else {
            emit(ProviderInterface.root, .collectionChanged, .objectPath(changed))
        }
        return true
    }

    package func peerLeft(_ uniqueName: String) {
        let (grants, prompts) = state.withLock { state in
            state.sessions = state.sessions.filter { $0.value.owner != uniqueName }
            let prompts = state.prompts.filter { $0.value.owner == uniqueName }
            for path in prompts.keys { state.prompts[path] = nil }
            state.scopes[uniqueName] = nil
            state.scoped.remove(uniqueName)
            // A grant a window keeps serves the window's other clients until the window ends.
            let grants = (state.grants.removeValue(forKey: uniqueName) ?? [:]).values.filter { !state.windowHolds($0) }
            let now = ContinuousClock.now
            return (grants + state.closeWindows { $0.expires <= now || !$0.scope.isCurrent }, prompts.values.map { $0 })
        }
        for prompt in prompts { prompt.cancel() }
        for grant in grants { grant.invalidate() }
    }

    /// Closes every window (the screen locked, the machine is about to sleep).
    package func closeAllWindows(reason: String) {
        let (count, grants) = state.withLock { state in (state.windows.count, state.closeWindows { _ in true }) }
        for grant in grants { grant.invalidate() }
        if count > 0 { log("secret service: closed \(count) unlock window(s): \(reason)") }
    }

    /// Reads the terminal session of `sender` once per connection, from `/proc` of the pid the bus
    /// reports, while a pidfd pins that process and the bus still reports the pid for the connection.
    /// The session bus gives no pidfd of its own, and a connection can outlive the process that opened
    /// it (kept by a child), its pid given to another process since: so the process must have started no
    /// later than the bus gave the connection its name, as the bus told this provider. A connection it
    /// did not see join (one older than the provider, such as the client whose call started it) has no
    /// scope: its grants open no window.
    private func noteScope(of sender: String) {
        guard state.withLock({ !$0.scoped.contains(sender) }), let server = server.withLock({ $0 }),
            let joined = server.joinTime(of: sender)
        else { return }
        var scope: PeerScope?
        if let credentials = try? server.credentials(of: sender), credentials.uid == getuid() {
            let pid = Int32(bitPattern: credentials.pid)
            let pidfd = bv_pidfd_open(pid)
            if pidfd >= 0 {
                defer { close(pidfd) }
                if let stat = ProcessStat.read(pid: pid), stat.startTime * Self.nanosecondsPerTick <= joined,
                    ProcessStat.isAlive(pidfd: pidfd), (try? server.credentials(of: sender))?.pid == credentials.pid
                {
                    scope = PeerScope.of(stat: stat)
                }
            }
        }
        state.withLock { state in
            state.scoped.insert(sender)
            state.scopes[sender] = scope
        }
    }

    /// A process's start time in `/proc/PID/stat` counts clock ticks since boot.
    private static let nanosecondsPerTick = UInt64(1_000_000_000 / max(1, sysconf(Int32(_SC_CLK_TCK))))

    // MARK: Signals

    private func emit(_ path: String, _ signal: SecretServiceAPI.Signal, _ arguments: DBusArgument...) {
        guard let server = server.withLock({ $0 }) else { return }
        server.emit(path: path, interface: signal.interface.rawValue, member: signal.member, .tuple(arguments))
    }

    // MARK: Service

    private func serviceCall(_ call: any DBusIncomingCall, _ request: ProviderRequest) throws {
        switch request {
        case .openSession(let algorithm, let input):
            let encryption: SessionEncryption?
            let output: DBusArgument
            switch algorithm {
            case ProviderInterface.plain:
                encryption = nil
                output = .string("")
            case SessionEncryption.algorithm:
                guard let clientKey = input.bytes else {
                    throw ProviderError(ProviderInterface.Error.invalidArgs, "the session input is not a public key")
                }
                let pair = try SessionEncryption.KeyPair()
                do {
                    encryption = try SessionEncryption(peerPublicKey: clientKey, keyPair: pair)
                } catch {
                    throw ProviderError(ProviderInterface.Error.invalidArgs, "the client's public key is unusable")
                }
                output = .bytes(pair.publicKey)
            default:
                throw ProviderError(ProviderInterface.Error.notSupported, "the algorithm \(algorithm) is not supported")
            }
            let path = state.withLock { state in
                let path = "\(ProviderInterface.sessions)/\(state.nextSession)"
                state.nextSession += 1
                state.sessions[path] = OpenSession(owner: call.sender, encryption: encryption)
                return path
            }
            call.reply(.tuple([.variant(output), .objectPath(path)]))

        case .createCollection(let properties, let alias):
            let label = properties.first { $0.key == SecretServiceAPI.Property.collectionLabel.qualifiedName }?.value.string ?? ""
            let policy = try properties.first { $0.key == ProviderInterface.collectionPolicyProperty }?.value.string.map(Self.policy(named:))
            let (path, created) = try state.withLock { state throws -> (String, Bool) in
                if !alias.isEmpty, let existing = state.catalog.aliases[alias], state.items[existing] != nil {
                    return (Self.collectionPath(existing), false)
                }
                var catalog = state.catalog
                let id = Self.collectionID(label: label.isEmpty ? alias : label, taken: Set(catalog.collections.map(\.id)))
                let now = ProviderState.now()
                catalog.collections.append(CollectionRecord(id: id, label: label, created: now, modified: now, policy: policy?.rawValue))
                if !alias.isEmpty { catalog.aliases[alias] = id }
                try storage.save(catalog)
                state.catalog = catalog
                state.items[id] = [:]
                return (Self.collectionPath(id), true)
            }
            if created {
                try server.withLock { $0 }?.serve(subtreeAt: path)
                emit(ProviderInterface.root, .collectionCreated, .objectPath(path))
            }
            call.reply(.tuple([.objectPath(path), .objectPath("/")]))

        case .searchItems(let wanted):
            let (unlocked, locked) = state.withLock { state in
                var unlocked: [String] = []
                var locked: [String] = []
                for collection in state.catalog.collections {
                    for (id, item) in state.items[collection.id, default: [:]] where item.record.matches(wanted) {
                        if state.isLocked(item.record, for: call.sender) {
                            locked.append(Self.itemPath(collection.id, id))
                        } else {
                            unlocked.append(Self.itemPath(collection.id, id))
                        }
                    }
                }
                return (unlocked.sorted(), locked.sorted())
            }
            call.reply(.tuple([.objectPaths(unlocked), .objectPaths(locked)]))

        case .unlock(let objects):
            try unlock(call, objects: objects)

        case .lock(let objects):
            let (locked, revoked) = state.withLock { state -> ([String], [Authorization]) in
                var policies = Set<ProtectionPolicy>()
                var locked: [String] = []
                for path in objects {
                    switch object(at: path, in: state) {
                    case .collection(let id):
                        let record = state.catalog.collections.first { $0.id == id }
                        policies.formUnion(state.items[id, default: [:]].values.compactMap(\.record.protection))
                        if let policy = record?.protection { policies.insert(policy) }
                        if record?.protection != nil { locked.append(path) }
                    case .item(let collection, let id):
                        if let policy = state.items[collection]?[id]?.record.protection {
                            policies.insert(policy)
                            locked.append(path)
                        }
                    default: break
                    }
                }
                // Every client's grants for those policies end: a `Lock` locks for everyone, as in every
                // provider, and ending a grant only takes away.
                var revoked: [Authorization] = []
                for client in state.grants.keys {
                    for policy in policies {
                        if let grant = state.grants[client]?.removeValue(forKey: policy) { revoked.append(grant) }
                    }
                }
                revoked += state.closeWindows { policies.contains($0.policy) }
                return (locked, revoked)
            }
            for grant in revoked { grant.invalidate() }
            call.reply(.tuple([.objectPaths(locked), .objectPath("/")]))

        case .getSecrets(let items, let sessionPath):
            let session = try self.session(sessionPath, for: call.sender)
            var entries: [DBusArgument] = []
            for path in items {
                guard let secret = try? secret(at: path, for: call.sender, session: session) else { continue }
                entries.append(.dictEntry(.objectPath(path), secret))
            }
            call.reply(.tuple([.array(of: "{o(oayays)}", entries)]))

        case .readAlias(let alias):
            let path = state.withLock { state in
                state.catalog.aliases[alias].flatMap { state.items[$0] != nil ? Self.collectionPath($0) : nil } ?? "/"
            }
            call.reply(.tuple([.objectPath(path)]))

        case .setAlias(let alias, let target):
            guard !alias.isEmpty, !alias.contains("/") else { throw ProviderError(ProviderInterface.Error.invalidArgs, "an alias is a name") }
            try state.withLock { state throws in
                var catalog = state.catalog
                if target == "/" {
                    catalog.aliases[alias] = nil
                } else {
                    guard case .collection(let id) = object(at: target, in: state) else {
                        throw ProviderError(ProviderInterface.Error.noSuchObject, "no such collection")
                    }
                    catalog.aliases[alias] = id
                }
                try storage.save(catalog)
                state.catalog = catalog
            }
            call.reply(nil)

        default:
            throw ProviderError(ProviderInterface.Error.notSupported, "no method \(call.member) of the service")
        }
    }

    // MARK: Collection

    private func collectionCall(_ call: any DBusIncomingCall, _ request: ProviderRequest) throws {
        guard case .collection(let id) = state.withLock({ object(at: call.path, in: $0) }) else {
            throw ProviderError(ProviderInterface.Error.noSuchObject, "no such collection")
        }
        switch request {
        case .searchCollection(let wanted):
            let found = state.withLock { state in
                state.items[id, default: [:]].filter { $0.value.record.matches(wanted) }.keys.sorted().map { Self.itemPath(id, $0) }
            }
            call.reply(.tuple([.objectPaths(found)]))

        case .createItem(let properties, let transferred, let replace):
            let session = try self.session(transferred.session, for: call.sender)
            let secret = try session.decrypt(transferred)
            var attributes: [String: String] = [:]
            var label = ""
            for (key, value) in properties {
                switch key {
                case SecretServiceAPI.Property.itemLabel.qualifiedName: label = value.string ?? ""
                case SecretServiceAPI.Property.itemAttributes.qualifiedName:
                    attributes = Dictionary(value.stringPairs ?? [], uniquingKeysWith: { _, last in last })
                default: break
                }
            }
            let policy = try state.withLock { state throws in
                try attributes[ProviderInterface.policyAttribute].map(Self.policy(named:))
                    ?? state.catalog.collections.first { $0.id == id }?.protection
            }
            let now = ProviderState.now()
            let record = ItemRecord(
                label: label, attributes: attributes, contentType: transferred.contentType, created: now, modified: now,
                policy: policy?.rawValue)
            let write = PendingWrite(collection: id, record: record, secret: secret, replace: replace)
            if let policy, state.withLock({ $0.grant(for: policy, client: call.sender) }) == nil {
                let prompt = addPrompt(owner: call.sender, policies: [policy], objects: [], write: write)
                call.reply(.tuple([.objectPath("/"), .objectPath(prompt)]))
                return
            }
            let path = try perform(write, for: call.sender)
            call.reply(.tuple([.objectPath(path), .objectPath("/")]))

        case .deleteCollection:
            let removed = try state.withLock { state throws -> [String] in
                let ids = Array(state.items[id, default: [:]].keys)
                for item in ids { try storage.delete(collection: id, item: item) }
                var catalog = state.catalog
                catalog.collections.removeAll { $0.id == id }
                catalog.aliases = catalog.aliases.filter { $0.value != id }
                try storage.save(catalog)
                state.catalog = catalog
                state.items[id] = nil
                return ids
            }
            server.withLock { $0 }?.stopServing(subtreeAt: Self.collectionPath(id))
            for item in removed { emit(Self.collectionPath(id), .itemDeleted, .objectPath(Self.itemPath(id, item))) }
            emit(ProviderInterface.root, .collectionDeleted, .objectPath(Self.collectionPath(id)))
            call.reply(.tuple([.objectPath("/")]))

        default:
            throw ProviderError(ProviderInterface.Error.notSupported, "no method \(call.member) of a collection")
        }
    }

    // MARK: Item

    private func itemCall(_ call: any DBusIncomingCall, _ request: ProviderRequest) throws {
        guard case .item(let collection, let id) = state.withLock({ object(at: call.path, in: $0) }) else {
            throw ProviderError(ProviderInterface.Error.noSuchObject, "no such item")
        }
        switch request {
        case .getSecret(let sessionPath):
            let session = try self.session(sessionPath, for: call.sender)
            call.reply(.tuple([try secret(at: call.path, for: call.sender, session: session)]))

        case .setSecret(let transferred):
            let session = try self.session(transferred.session, for: call.sender)
            let secret = try session.decrypt(transferred)
            try state.withLock { state throws in
                guard var item = state.items[collection]?[id] else { throw ProviderError(ProviderInterface.Error.noSuchObject, "no such item") }
                let grant = try item.record.protection.map { policy throws -> Authorization in
                    guard let grant = state.grant(for: policy, client: call.sender) else {
                        throw ProviderError(ProviderInterface.Error.isLocked, "the item is locked: unlock it first")
                    }
                    return grant
                }
                item.record.contentType = transferred.contentType
                item.record.modified = ProviderState.now()
                try storage.write(collection: collection, item: id, record: item.record, secret: secret, authorization: grant)
                item.secret = item.record.protection == nil ? secret : nil
                state.items[collection]?[id] = item
            }
            emit(Self.collectionPath(collection), .itemChanged, .objectPath(call.path))
            call.reply(nil)

        case .deleteItem:
            try state.withLock { state throws in
                try storage.delete(collection: collection, item: id)
                state.items[collection]?[id] = nil
            }
            emit(Self.collectionPath(collection), .itemDeleted, .objectPath(call.path))
            call.reply(.tuple([.objectPath("/")]))

        default:
            throw ProviderError(ProviderInterface.Error.notSupported, "no method \(call.member) of an item")
        }
    }

    // MARK: Session and prompt

    private func sessionCall(_ call: any DBusIncomingCall) {
        state.withLock { state in
            if state.sessions[call.path]?.owner == call.sender { state.sessions[call.path] = nil }
        }
        call.reply(nil)
    }

    private func promptCall(_ call: any DBusIncomingCall, _ request: ProviderRequest) throws {
        guard let prompt = state.withLock({ $0.prompts[call.path] }), prompt.owner == call.sender else {
            throw ProviderError(ProviderInterface.Error.noSuchObject, "no such prompt")
        }
        switch request {
        case .prompt:
            call.reply(nil)
            let program = clientDescription(call.sender)
            prompt.start { [self] in
                await runPrompt(prompt, path: call.path, program: program)
            }
        case .dismiss:
            call.reply(nil)
            prompt.cancel()
            finishPrompt(call.path, dismissed: true) { .variant(.objectPaths([])) }
        default:
            throw ProviderError(ProviderInterface.Error.notSupported, "no method \(call.member)")
        }
    }

    private func unlock(_ call: any DBusIncomingCall, objects: [String]) throws {
        let (unlocked, policies) = state.withLock { state -> ([String], Set<ProtectionPolicy>) in
            var unlocked: [String] = []
            var policies = Set<ProtectionPolicy>()
            for path in objects {
                switch object(at: path, in: state) {
                case .collection(let id):
                    if let policy = state.catalog.collections.first(where: { $0.id == id })?.protection,
                        state.grant(for: policy, client: call.sender) == nil
                    {
                        policies.insert(policy)
                    } else {
                        unlocked.append(path)
                    }
                case .item(let collection, let id):
                    if let policy = state.items[collection]?[id]?.record.protection, state.grant(for: policy, client: call.sender) == nil {
                        policies.insert(policy)
                    } else {
                        unlocked.append(path)
                    }
                default: break
                }
            }
            return (unlocked, policies)
        }
        guard !policies.isEmpty else {
            call.reply(.tuple([.objectPaths(unlocked), .objectPath("/")]))
            return
        }
        let prompt = addPrompt(owner: call.sender, policies: policies.sorted { $0.rawValue < $1.rawValue }, objects: objects, write: nil)
        call.reply(.tuple([.objectPaths(unlocked), .objectPath(prompt)]))
    }

    private func addPrompt(owner: String, policies: [ProtectionPolicy], objects: [String], write: PendingWrite?) -> String {
        state.withLock { state in
            let path = "\(ProviderInterface.prompts)/\(state.nextPrompt)"
            state.nextPrompt += 1
            state.prompts[path] = PendingPrompt(owner: owner, policies: policies, objects: objects, write: write)
            return path
        }
    }

    /// Authenticates for each policy the prompt needs, in the vault service, then unlocks or writes.
    private func runPrompt(_ prompt: PendingPrompt, path: String, program: String) async {
        let what = prompt.write.map { "store \"\($0.record.label)\"" } ?? describe(prompt.objects)
        do {
            for policy in prompt.policies where state.withLock({ $0.grant(for: policy, client: prompt.owner) }) == nil {
                let grant = try await authenticator(policy, "\(program) asks to \(what)")
                try Task.checkCancellation()
                let windowSeconds = windowSeconds
                let (kept, replaced, window) = state.withLock { state -> (Bool, [Authorization], PeerScope?) in
                    // A client that left while the prompt ran gets nothing.
                    guard state.prompts[path] != nil else { return (false, [], nil) }
                    state.grants[prompt.owner, default: [:]][policy] = grant
                    guard windowSeconds > 0, let scope = state.scopes[prompt.owner] else { return (true, [], nil) }
                    let replaced = state.closeWindows { $0.scope == scope && $0.policy == policy }
                    state.windows.append(ProviderWindow(scope: scope, policy: policy, grant: grant, expires: .now + .seconds(windowSeconds)))
                    return (true, replaced, scope)
                }
                for old in replaced { old.invalidate() }
                if let window { log("secret service: unlock window opened for \(window), \(policy.rawValue), \(windowSeconds) s") }
                guard kept else {
                    grant.invalidate()
                    return
                }
            }
            let result: [String]
            if let write = prompt.write {
                result = [try perform(write, for: prompt.owner)]
            } else {
                let unlocked = state.withLock { state in
                    prompt.objects.filter { path in
                        switch object(at: path, in: state) {
                        case .collection(let id):
                            state.catalog.collections.first { $0.id == id }?.protection.map { state.grant(for: $0, client: prompt.owner) != nil } ?? true
                        case .item(let collection, let id):
                            state.items[collection]?[id].map { !state.isLocked($0.record, for: prompt.owner) } ?? false
                        default: false
                        }
                    }
                }
                result = unlocked
            }
            log("secret service: \(program) completed a prompt to \(what)")
            finishPrompt(path, dismissed: false) { prompt.write == nil ? .variant(.objectPaths(result)) : .variant(.objectPath(result[0])) }
        } catch {
            log("secret service: a prompt of \(program) to \(what) ended: \(ProviderError(error).message)")
            finishPrompt(path, dismissed: true) { .variant(prompt.write == nil ? .objectPaths([]) : .objectPath("/")) }
        }
    }

    /// Ends the prompt at `path` once: `result` is built only when the prompt was still open.
    private func finishPrompt(_ path: String, dismissed: Bool, result: () -> DBusArgument) {
        guard state.withLock({ $0.prompts.removeValue(forKey: path) }) != nil else { return }
        emit(path, .completed, .bool(dismissed), result())
    }

    /// Writes a new item (or replaces the one with the same attributes when asked); its path.
    private func perform(_ write: PendingWrite, for client: String) throws -> String {
        let (path, created) = try state.withLock { state throws -> (String, Bool) in
            guard state.items[write.collection] != nil else { throw ProviderError(ProviderInterface.Error.noSuchObject, "the collection was deleted") }
            var record = write.record
            var id = String(state.nextItem)
            var created = true
            if write.replace, let (existing, item) = state.items[write.collection]!.first(where: { $0.value.record.attributes == record.attributes }) {
                id = existing
                created = false
                record.created = item.record.created
            }
            let grant = try record.protection.map { policy throws -> Authorization in
                guard let grant = state.grant(for: policy, client: client) else {
                    throw ProviderError(ProviderInterface.Error.isLocked, "storing a protected item needs an unlock first")
                }
                return grant
            }
            try storage.write(collection: write.collection, item: id, record: record, secret: write.secret, authorization: grant)
            state.items[write.collection]![id] = LoadedItem(record: record, secret: record.protection == nil ? write.secret : nil)
            if created { state.nextItem += 1 }
            return (Self.itemPath(write.collection, id), created)
        }
        emit(Self.collectionPath(write.collection), created ? .itemCreated : .itemChanged, .objectPath(path))
        return path
    }

    /// The secret at `path` for `client`, as a Secret Service secret struct of `session`.
    private func secret(at path: String, for client: String, session: ProviderSession) throws -> DBusArgument {
        let (found, grant) = try state.withLock { state throws -> ((String, String, LoadedItem), Authorization?) in
            guard case .item(let collection, let id) = object(at: path, in: state), let item = state.items[collection]?[id] else {
                throw ProviderError(ProviderInterface.Error.noSuchObject, "no such item")
            }
            guard let policy = item.record.protection else { return ((collection, id, item), nil) }
            guard let grant = state.grant(for: policy, client: client) else {
                throw ProviderError(ProviderInterface.Error.isLocked, "the item is locked: unlock it first")
            }
            return ((collection, id, item), grant)
        }
        let (collection, id, item) = found
        let secret: SecretBytes
        if let plain = item.secret {
            secret = plain
        } else {
            guard let released = try storage.readSecret(collection: collection, item: id, authorization: grant) else {
                throw ProviderError(ProviderInterface.Error.isLocked, "the vault service did not release the item")
            }
            secret = released
        }
        return try session.encode(secret, contentType: item.record.contentType)
    }

    private func session(_ path: String, for client: String) throws -> ProviderSession {
        guard let session = state.withLock({ $0.sessions[path] }), session.owner == client else {
            throw ProviderError(ProviderInterface.Error.noSession, "no such session")
        }
        return ProviderSession(path: path, encryption: session.encryption)
    }

    // MARK: Helpers

    /// The client as the bus reports it: its pid, and the name its process gives itself (`comm`), which
    /// a program can set to anything: a hint for the person, never a decision.
    private func clientDescription(_ sender: String) -> String {
        guard let pid = try? server.withLock({ $0 })?.credentials(of: sender).pid else { return sender }
        let comm = (try? String(contentsOfProcFile: "/proc/\(pid)/comm")).map { String($0.prefix { $0 != "\n" }) } ?? "?"
        return "\(comm) (pid \(pid))"
    }

    private func describe(_ objects: [String]) -> String {
        state.withLock { state in
            let labels = objects.compactMap { path -> String? in
                switch object(at: path, in: state) {
                case .collection(let id): state.catalog.collections.first { $0.id == id }.map { "the collection \"\($0.label)\"" }
                case .item(let collection, let id): state.items[collection]?[id].map { "read \"\($0.record.label)\"" }
                default: nil
                }
            }
            return labels.isEmpty ? "unlock" : "unlock " + labels.prefix(3).joined(separator: ", ")
        }
    }

    static func policy(named name: String) throws -> ProtectionPolicy {
        guard let policy = ProtectionPolicy(rawValue: name) else {
            throw ProviderError(ProviderInterface.Error.invalidArgs,
                                "unknown policy \(name): one of \(ProtectionPolicy.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return policy
    }

    /// A collection id from its label: letters, digits and `_` (an object path element), unique.
    static func collectionID(label: String, taken: Set<String>) -> String {
        var base = String(label.lowercased().unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics(scalar)) ? Character(scalar) : "_"
        })
        if base.isEmpty { base = "collection" }
        var id = base
        var number = 1
        while taken.contains(id) {
            id = "\(base)\(number)"
            number += 1
        }
        return id
    }
}

private enum CharacterSet {
    static func alphanumerics(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}

extension String {
    init(contentsOfProcFile path: String) throws {
        guard let file = fopen(path, "r") else { throw VaultError(.storeUnavailable, underlying: .errno(errno)) }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 256)
        let count = fread(&buffer, 1, 255, file)
        self = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
#endif
