#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultProcess
import BiometricsVaultSecretService
import BiometricsVaultService
import Glibc

/// An item as the provider holds it: its record and, for a plain item, its secret (a protected item's
/// secret stays in the vault service until a client with a grant reads it).
struct LoadedItem: Sendable {
    var record: ItemRecord
    var secret: SecretBytes?
}

/// A session a client opened, only usable by that client.
struct OpenSession: Sendable {
    let owner: String
    let encryption: SessionEncryption?
}

/// Everything the provider holds, under one lock.
struct ProviderState: Sendable {
    var catalog: CatalogRecord
    var items: [String: [String: LoadedItem]] = [:]
    var nextItem: UInt64 = 1
    var sessions: [String: OpenSession] = [:]
    var nextSession = 1
    var prompts: [String: PendingPrompt] = [:]
    var nextPrompt = 1
    /// Each client's grants from the vault service, by its unique bus name and the policy they satisfy.
    var grants: [String: [ProtectionPolicy: Authorization]] = [:]
    /// The unlock windows: a grant kept for a terminal session after a client on it authenticated.
    var windows: [ProviderWindow] = []
    /// The terminal session of each client whose scope was read (absent: none, or not read yet).
    var scopes: [String: PeerScope] = [:]
    /// The clients whose scope was read.
    var scoped: Set<String> = []

    init(catalog: CatalogRecord) { self.catalog = catalog }

    static func now() -> UInt64 { UInt64(max(0, time(nil))) }

    /// A live grant of `client` that releases items of `policy`: its own, else an open window's of its
    /// terminal session (whose leader still runs).
    func grant(for policy: ProtectionPolicy, client: String) -> Authorization? {
        if let grant = grants[client]?[policy], grant.isValid { return grant }
        guard let scope = scopes[client] else { return nil }
        let now = ContinuousClock.now
        return windows.first { $0.scope == scope && $0.policy == policy && $0.expires > now && $0.grant.isValid && scope.isCurrent }?.grant
    }

    /// Whether a window holds `grant`.
    func windowHolds(_ grant: Authorization) -> Bool { windows.contains { $0.grant === grant } }

    /// Removes the windows `closing` selects and returns the grants no client or window holds any more.
    mutating func closeWindows(where closing: (ProviderWindow) -> Bool) -> [Authorization] {
        let closed = windows.filter(closing)
        windows.removeAll(where: closing)
        return closed.map(\.grant).filter { grant in
            !windowHolds(grant) && !grants.values.contains { $0.values.contains { $0 === grant } }
        }
    }

    func isLocked(_ record: ItemRecord, for client: String) -> Bool {
        guard let policy = record.protection else { return false }
        return grant(for: policy, client: client) == nil
    }

    func isLocked(collection id: String, for client: String) -> Bool {
        guard let policy = catalog.collections.first(where: { $0.id == id })?.protection else { return false }
        return grant(for: policy, client: client) == nil
    }
}

extension ItemRecord {
    /// Whether the item has every one of `wanted`'s attributes with the same value.
    func matches(_ wanted: [String: String]) -> Bool {
        wanted.allSatisfy { attributes[$0.key] == $0.value }
    }
}

/// A grant kept for the clients of one terminal session, for one policy, until `expires`.
struct ProviderWindow: Sendable {
    let scope: PeerScope
    let policy: ProtectionPolicy
    let grant: Authorization
    let expires: ContinuousClock.Instant
}

/// An item a client asked to create, kept while its prompt runs.
struct PendingWrite: Sendable {
    let collection: String
    let record: ItemRecord
    let secret: SecretBytes
    let replace: Bool
}

/// A prompt the provider handed a client: what it authenticates for and what it then does. It runs at
/// most once; cancelling it stops the vault service's prompt.
final class PendingPrompt: Sendable {
    let owner: String
    let policies: [ProtectionPolicy]
    let objects: [String]
    let write: PendingWrite?
    private let task = LockedValue<Task<Void, Never>?>(nil)
    private let started = LockedValue(false)

    init(owner: String, policies: [ProtectionPolicy], objects: [String], write: PendingWrite?) {
        self.owner = owner
        self.policies = policies
        self.objects = objects
        self.write = write
    }

    func start(_ body: @escaping @Sendable () async -> Void) {
        guard started.withLock({ started in defer { started = true }; return !started }) else { return }
        task.withLock { $0 = Task { await body() } }
    }

    func cancel() {
        started.withLock { $0 = true }
        task.withLock { $0 }?.cancel()
    }
}

/// A client's session as one call uses it: how its secrets travel.
struct ProviderSession {
    let path: String
    let encryption: SessionEncryption?

    /// The secret struct `(oayays)` of the spec.
    func encode(_ secret: SecretBytes, contentType: String) throws -> DBusArgument {
        if let encryption {
            let (parameters, value) = try encryption.encrypt(secret)
            return .tuple([.objectPath(path), .bytes(parameters), .bytes(value), .string(contentType)])
        }
        var bytes = secret.copyBytes()
        defer { bytes.zeroize() }
        return .tuple([.objectPath(path), .bytes([]), .bytes(bytes), .string(contentType)])
    }

    /// The secret a client sent in this session.
    func decrypt(_ secret: TransferredSecret) throws -> SecretBytes {
        guard let encryption else { return secret.value }
        var bytes = secret.value.copyBytes()
        defer { bytes.zeroize() }
        do {
            return try encryption.decrypt(parameters: secret.parameters, value: bytes)
        } catch {
            throw ProviderError(ProviderInterface.Error.invalidArgs, "the secret does not decrypt in this session")
        }
    }
}

/// A D-Bus error to answer with. Its message never holds a secret.
struct ProviderError: Error {
    let name: String
    let message: String

    init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    /// From any error: a ``VaultError`` is mapped by its code, with its description (never a secret).
    init(_ error: any Error) {
        if let error = error as? ProviderError {
            self = error
            return
        }
        guard let error = error as? VaultError else {
            self.init(ProviderInterface.Error.failed, "\(type(of: error))")
            return
        }
        switch error.code {
        case .vaultLocked, .authenticationFailed, .biometryChanged: self.init(ProviderInterface.Error.isLocked, "\(error)")
        case .itemNotFound: self.init(ProviderInterface.Error.noSuchObject, "\(error)")
        case .invalidKey, .credentialsTooLarge: self.init(ProviderInterface.Error.invalidArgs, "\(error)")
        default: self.init(ProviderInterface.Error.failed, "\(error)")
        }
    }
}
#endif
