import BiometricsVaultCore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A `SecretStore` of AES-256-GCM encrypted files: the embedded default for machines without a keyring
/// daemon (headless servers, containers, SSH sessions, CI). Runs on every platform.
///
/// ## Layout
/// ```
/// <root>/                      0700, owned by the user; default $XDG_DATA_HOME/biometrics-vault
///   master.key                 0600, the store's key file (see KeySource)
///   .lock                      advisory lock taken while the key file is created (flock)
///   <service-id>/              0700, one per service; the name is a keyed hash of the service
///     <item-id>.bvi            0600, one encrypted file per item; the name is a keyed hash of service+key
///     .check                   the key check value: proof that master.key is the key of this directory
///     .lock                    advisory lock taken by writers (flock)
///     .pending                 the temporary file of the write in progress
/// ```
/// Service and key names never become path components: `../`, NUL, very long or odd Unicode keys cannot
/// escape the directory or collide. The key name is stored inside the ciphertext, so ``keys(service:)``
/// lists real keys while the disk shows only hashes.
///
/// ## Cryptography
/// A random 256-bit master key per store; HKDF-SHA256 derives an AES-256-GCM key for item files and an
/// HMAC-SHA256 key for names. Each item file's associated data binds the format version, the service, the
/// key and the protection level, so a swapped, renamed, edited or foreign file fails authentication and
/// reads as `corruptedItem`. It is never deleted by the store, and never decrypted into the wrong slot.
///
/// ## Durability and concurrency
/// A write is: temporary file in the service directory, `fsync`, `rename` over the item, `fsync` of the
/// directory, under an exclusive `flock` of the service's lock file. Readers take no lock: a rename is
/// atomic, so they see the complete old or the complete new file, never a torn one. A writer killed at any
/// point leaves the old item intact. A conditional write checks the stored header under the same lock,
/// and ``update(_:authorization:_:)`` is a read-modify-write under it: both are safe across processes.
///
/// ## Errors
/// Damaged, truncated or foreign files: `corruptedItem`. Wrong passphrase: `authenticationFailed`.
/// Disk full, permission denied, I/O errors: `storeUnavailable` with the `errno` as underlying cause. A
/// root directory (or a parent) that other users can write: `storeUnavailable`, and nothing is written.
public struct EncryptedFileStore: SecretStore {
    /// What protects the store's master key.
    public enum KeySource: Sendable {
        /// A key file (`master.key`, 0600) in the store root. The default. It protects the credentials
        /// against other users of the machine and against copies of the item files made without the key
        /// file; it does not protect against someone who can read your files (your own account, root, a
        /// full backup of the directory).
        case keyFile
        /// A passphrase, stretched with scrypt (N = 2^15, r = 8, p = 1) to wrap the master key. A wrong
        /// passphrase throws `authenticationFailed`.
        case passphrase(SecretBytes)
        /// Sealed by a ``MasterKeySealer`` (the TPM on Linux: `BiometricsVaultTPM`'s `TPMSealer`), so the
        /// key file opens only where the sealer can unseal it.
        case sealed(any MasterKeySealer)
        /// A master key unlocked earlier from this store's key file (``unlockKey(directory:source:)``):
        /// opens the store only while that key file is unchanged; creates no key file.
        case unlocked(UnlockedStoreKey)
    }

    /// The store root.
    public let directory: URL
    /// What protects the master key.
    public let keySource: KeySource

    let rootPath: String
    let cache: StoreCache

    /// Opens (or prepares to create) a store. Nothing is written until the first `write`.
    ///
    /// - Parameters:
    ///   - directory: the store root; `nil` for ``defaultDirectory()``.
    ///   - keySource: ``KeySource/keyFile`` (default) or a passphrase.
    /// - Throws: `storeUnavailable` when the root or one of its parents can be written by other users or
    ///   is owned by another user, or is not a directory; `authenticationFailed` for a wrong passphrase;
    ///   `storeLocked` when a passphrase store is opened without one; `corruptedItem` for a damaged key file
    ///   or one that is not the key of the store's data (copied in from another store).
    public init(directory: URL? = nil, keySource: KeySource = .keyFile) throws {
        let url = try (directory ?? Self.requireDefaultDirectory()).standardizedFileURL
        if case .passphrase(let passphrase) = keySource, passphrase.isEmpty {
            throw VaultError(.authenticationFailed, underlying: .message("the passphrase is empty"))
        }
        self.directory = url
        self.keySource = keySource
        self.rootPath = url.path
        self.cache = StoreCache()
        try StoreLocation.validate(rootPath)
        if let keys = try KeyFile.load(root: rootPath, source: keySource) {
            try KeyCheck.verify(root: rootPath, keys: keys)
            cache.keys.withLock { $0 = keys }
        }
    }

    /// `$XDG_DATA_HOME/biometrics-vault`, or `~/.local/share/biometrics-vault` when `XDG_DATA_HOME` is unset,
    /// empty or not absolute (as the XDG Base Directory specification says); an empty or relative `HOME`
    /// is replaced by the password database's home directory, never the current directory.
    ///
    /// When there is no usable home at all this names `/nonexistent/...` (for display); opening a store
    /// there fails with `storeUnavailable` saying why (``requireDefaultDirectory()``).
    public static func defaultDirectory() -> URL {
        URL(fileURLWithPath: defaultDirectoryPath() ?? "/nonexistent/.local/share/biometrics-vault", isDirectory: true)
    }

    /// ``defaultDirectory()``, or `storeUnavailable` when there is no usable home directory.
    public static func requireDefaultDirectory() throws -> URL {
        guard let path = defaultDirectoryPath() else {
            throw VaultError(.storeUnavailable, underlying: .message("cannot place the file store: \(BaseDirectory.noHome("XDG_DATA_HOME"))"))
        }
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    private static func defaultDirectoryPath() -> String? {
        guard let dataHome = BaseDirectory.path("XDG_DATA_HOME", orUnderHome: ".local/share") else { return nil }
        return (dataHome.hasSuffix("/") ? dataHome : dataHome + "/") + "biometrics-vault"
    }

    /// `"file"`.
    public var name: String { "file" }

    // MARK: SecretStore

    /// Reads and authenticates the item; `nil` when there is none. Never prompts: the file store always
    /// returns the payload, and `authorization` is not needed (the vault enforces the protection).
    ///
    /// - Throws: `corruptedItem` for a damaged, moved or foreign file (left in place); `storeUnavailable`
    ///   for I/O errors, with the `errno`.
    public func read(_ id: SecretItemID, authorization: Authorization?) throws -> StoredItem? {
        let id = try SecretItemID(service: id.service, key: id.key)
        guard let keys = try storeKeys(creating: false), let directory = try openServiceDirectory(keys, id.service, creating: false) else {
            return nil
        }
        return try readItem(id, keys: keys, directory: directory)
    }

    /// Durably and atomically replaces the item (temporary file, `fsync`, `rename`, directory `fsync`)
    /// if the stored item satisfies `condition`, all under the service's exclusive `flock`: no writer in
    /// this or another process runs between the check and the rename. Creates the store and its key on
    /// first use.
    ///
    /// - Throws: ``WriteCondition/mismatch(current:)`` when the condition does not hold;
    ///   `credentialsTooLarge` over ``VaultLimits/maximumCredentialsSize``; `corruptedItem` when a
    ///   condition must be checked against an item that cannot be read; `storeUnavailable` with the
    ///   `errno` for disk full, permission denied and other I/O errors (the old item stays).
    public func write(
        _ item: StoredItem, for id: SecretItemID, if condition: WriteCondition, authorization: Authorization?
    ) throws {
        let id = try SecretItemID(service: id.service, key: id.key)
        try Self.checkSize(item)
        guard let keys = try storeKeys(creating: true), let directory = try openServiceDirectory(keys, id.service, creating: true) else { return }
        let sealed = try ItemFile.seal(item, key: id.key, digest: keys.itemDigest(service: id.service, key: id.key), using: keys.itemKey)
        try FileSystem.withExclusiveLock(Self.lockName, in: directory) { () throws(VaultError) in
            if condition != .anything {
                try condition.check(readItem(id, keys: keys, directory: directory)?.header)
            }
            try Self.replace(sealed, id: id, keys: keys, directory: directory)
        }
    }

    /// Removes the item's file (and makes the removal durable). Succeeds when there is none.
    public func delete(_ id: SecretItemID) throws {
        let id = try SecretItemID(service: id.service, key: id.key)
        guard let keys = try storeKeys(creating: false), let directory = try openServiceDirectory(keys, id.service, creating: false) else {
            return
        }
        try FileSystem.withExclusiveLock(Self.lockName, in: directory) { () throws(VaultError) in
            try Self.remove(id, keys: keys, directory: directory)
        }
    }

    /// The keys stored under `service`, sorted.
    ///
    /// - Throws: `corruptedItem` when a file in the service's directory cannot be authenticated (its key
    ///   name is inside the ciphertext, so it cannot be listed); ``listing(service:)`` lists the others.
    public func keys(service: String) throws -> [String] {
        let listing = try listing(service: service)
        guard listing.unreadable == 0 else { throw ItemFile.corrupt("\(listing.unreadable) item file(s) cannot be authenticated") }
        return listing.keys
    }

    /// The readable keys under `service`, and how many item files cannot be authenticated (left in place).
    public func listing(service: String) throws -> KeyListing {
        _ = try SecretItemID(service: service, key: "k")
        guard let keys = try storeKeys(creating: false), let directory = try openServiceDirectory(keys, service, creating: false),
            let entries = try FileSystem.directoryEntries(directory.path)
        else { return KeyListing(keys: []) }
        let itemKey = keys.itemKey
        var names: [String] = []
        var unreadable = 0
        for entry in entries where !entry.hasPrefix(".") && entry.hasSuffix(Self.itemSuffix) {
            guard let digest = Hex.decode(entry.dropLast(Self.itemSuffix.count)), digest.count == 32 else { continue }
            switch try FileSystem.readFile(entry, in: directory, limit: ItemFile.maximumFileSize) {
            case .missing:
                continue  // deleted since the listing
            case .notAFile, .tooLarge:
                unreadable += 1
            case .contents(let bytes):
                guard let opened = try? ItemFile.open(bytes, digest: digest, using: itemKey),
                    keys.itemDigest(service: service, key: opened.key) == digest
                else {
                    unreadable += 1
                    continue
                }
                names.append(opened.key)
            }
        }
        return KeyListing(keys: names.sorted(), unreadable: unreadable)
    }

    // MARK: read-modify-write

    /// Reads the item, passes it to `transform`, and stores what it returns (`nil` deletes), all under
    /// the service's exclusive lock: no other writer, in this or another process, runs in between.
    ///
    /// `transform` must not call back into this store for the same service (the lock is not re-entrant).
    /// `authorization` is accepted for symmetry with ``write(_:for:if:authorization:)`` and not needed.
    ///
    /// - Throws: what ``read(_:authorization:)`` or ``write(_:for:if:authorization:)`` throw, or what
    ///   `transform` throws (then nothing is written).
    public func update(
        _ id: SecretItemID, authorization: Authorization?, _ transform: (StoredItem?) throws -> StoredItem?
    ) throws {
        let id = try SecretItemID(service: id.service, key: id.key)
        guard let keys = try storeKeys(creating: true), let directory = try openServiceDirectory(keys, id.service, creating: true) else { return }
        let digest = keys.itemDigest(service: id.service, key: id.key)
        // `withExclusiveLock` takes a typed-throws body; carry other errors out through a Result.
        let outcome: Result<Void, any Error> = try FileSystem.withExclusiveLock(Self.lockName, in: directory) { () throws(VaultError) in
            let current = try readItem(id, keys: keys, directory: directory)
            do {
                guard let next = try transform(current) else {
                    try Self.remove(id, keys: keys, directory: directory)
                    return .success(())
                }
                try Self.checkSize(next)
                let sealed = try ItemFile.seal(next, key: id.key, digest: digest, using: keys.itemKey)
                try Self.replace(sealed, id: id, keys: keys, directory: directory)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
    }

    // MARK: internals

    static let lockName = ".lock"
    static let pendingName = ".pending"
    static let itemSuffix = ".bvi"

    private static func checkSize(_ item: StoredItem) throws {
        guard let payload = item.payload else {
            throw VaultError(.storeUnavailable, underlying: .message("the file store needs the payload to write an item"))
        }
        guard payload.count <= VaultLimits.maximumCredentialsSize else {
            throw VaultError(.credentialsTooLarge, underlying: .message("payload exceeds \(VaultLimits.maximumCredentialsSize) bytes"))
        }
    }

    private static func fileName(_ keys: StoreKeys, _ id: SecretItemID) -> String {
        Hex.encode(keys.itemDigest(service: id.service, key: id.key)) + itemSuffix
    }

    private static func replace(
        _ sealed: [UInt8], id: SecretItemID, keys: StoreKeys, directory: FileSystem.Directory
    ) throws(VaultError) {
        try FileSystem.replaceDurably(in: directory, temporaryName: pendingName, finalName: fileName(keys, id), bytes: sealed)
    }

    private static func remove(_ id: SecretItemID, keys: StoreKeys, directory: FileSystem.Directory) throws(VaultError) {
        if try FileSystem.removeFile(fileName(keys, id), in: directory) {
            try FileSystem.syncDirectory(directory)
        }
    }

    private func readItem(_ id: SecretItemID, keys: StoreKeys, directory: FileSystem.Directory) throws(VaultError) -> StoredItem? {
        let digest = keys.itemDigest(service: id.service, key: id.key)
        switch try FileSystem.readFile(Hex.encode(digest) + Self.itemSuffix, in: directory, limit: ItemFile.maximumFileSize) {
        case .missing:
            return nil
        case .notAFile:
            throw ItemFile.corrupt("the item path is not a regular file")
        case .tooLarge:
            throw ItemFile.corrupt("the item file is larger than any valid item")
        case .contents(let bytes):
            let opened = try ItemFile.open(bytes, digest: digest, using: keys.itemKey)
            guard opened.key == id.key else { throw ItemFile.corrupt("the item file names another key") }
            return opened.item
        }
    }

    private func serviceDirectoryPath(_ keys: StoreKeys, _ service: String) -> String {
        if let path = cache.directoryPaths.withLock({ $0[service] }) { return path }
        let path = rootPath + "/" + keys.serviceDirectoryName(service)
        // A handful of services per process; the bound only guards against unbounded growth.
        cache.directoryPaths.withLock { paths in
            if paths.count >= 64 { paths.removeAll() }
            paths[service] = path
        }
        return path
    }

    /// The service's directory, created 0700 (with its key check value) on first use and checked once
    /// per process.
    private func serviceDirectory(_ keys: StoreKeys, _ service: String) throws(VaultError) -> String {
        let path = serviceDirectoryPath(keys, service)
        if cache.checkedDirectories.withLock({ $0.contains(path) }) { return path }
        try FileSystem.makeDirectory(path, mode: 0o700)
        try StoreLocation.checkOwnDirectory(path)
        try KeyCheck.ensure(directory: path, keys: keys)
        cache.checkedDirectories.withLock { _ = $0.insert(path) }
        return path
    }

    /// The service's directory if it exists, with the same checks as for a write (a real directory of
    /// ours, closed to others): reads, lists and deletes never follow a planted symlink or trust a
    /// directory others can write. `nil` when the service has no directory yet.
    private func existingServiceDirectory(_ keys: StoreKeys, _ service: String) throws(VaultError) -> String? {
        let path = serviceDirectoryPath(keys, service)
        if cache.checkedDirectories.withLock({ $0.contains(path) }) { return path }
        guard try FileSystem.linkStatus(path) != nil else { return nil }
        try StoreLocation.checkOwnDirectory(path)
        cache.checkedDirectories.withLock { _ = $0.insert(path) }
        return path
    }

    /// The service's directory opened for one operation (created first when `creating`): the root, then
    /// the service's directory in it, never through a symlink, checked to be ours and closed to others'
    /// writes each time. What the operation reads and writes is named relative to it, so a directory
    /// swapped for a symlink after an earlier check (the checks above run once per process) cannot
    /// send a write outside the store. `nil` when the service has no directory and `creating` is false.
    private func openServiceDirectory(
        _ keys: StoreKeys, _ service: String, creating: Bool
    ) throws(VaultError) -> FileSystem.Directory? {
        if creating {
            _ = try serviceDirectory(keys, service)
        } else if try existingServiceDirectory(keys, service) == nil {
            return nil
        }
        guard let root = try FileSystem.Directory.open(rootPath, followingLink: true),
            let directory = try FileSystem.Directory.open(keys.serviceDirectoryName(service), in: root, followingLink: false)
        else {
            guard creating else { return nil }
            throw StoreLocation.refuse(serviceDirectoryPath(keys, service), "it vanished while being opened")
        }
        return directory
    }

    /// The store's keys: cached, else loaded from the key file, else (when `creating`) a new store.
    /// `nil` when there is no store yet and `creating` is false.
    private func storeKeys(creating: Bool) throws -> StoreKeys? {
        try cache.keys.withLock { cached in
            if let cached { return cached }
            if let loaded = try KeyFile.load(root: rootPath, source: keySource) {
                try KeyCheck.verify(root: rootPath, keys: loaded)
                cached = loaded
                return loaded
            }
            // Items without a key file cannot be read; say so instead of calling the store empty, and do
            // not start a second key beside them.
            let entries = try FileSystem.directoryEntries(rootPath) ?? []
            if entries.contains(where: { !$0.hasPrefix(".") }) {
                // Another process may have created the store between our load and the listing: its key
                // file is in place before any item exists, so a second load after the listing finds it.
                if let loaded = try KeyFile.load(root: rootPath, source: keySource) {
                    try KeyCheck.verify(root: rootPath, keys: loaded)
                    cached = loaded
                    return loaded
                }
                throw VaultError(.corruptedItem, underlying: .message("the store key file is missing; its items cannot be decrypted"))
            }
            guard creating else { return nil }
            try StoreLocation.create(rootPath)
            let created = try KeyFile.create(root: rootPath, source: keySource)
            cached = created
            return created
        }
    }
}

/// State shared by copies of one store value.
final class StoreCache: Sendable {
    let keys = LockedValue<StoreKeys?>(nil)
    let checkedDirectories = LockedValue<Set<String>>([])
    /// Service name -> directory path (a keyed hash per service, computed once).
    let directoryPaths = LockedValue<[String: String]>([:])
}

/// The safety checks on the store's location.
enum StoreLocation {
    static func refuse(_ path: String, _ why: String) -> VaultError {
        VaultError(.storeUnavailable, underlying: .message("refusing to use \(path) for the file store: \(why)"))
    }

    /// Checks the root (if it exists) and every existing parent. Writes nothing, except tightening the
    /// root's mode to 0700 when it is ours and merely readable by others.
    static func validate(_ root: String) throws(VaultError) {
        var existing = root
        var rootExists = true
        while try FileSystem.status(existing) == nil {
            rootExists = false
            existing = parent(of: existing)
        }
        let real = try FileSystem.canonicalPath(existing)
        var path = real
        while true {
            guard let status = try FileSystem.status(path) else { throw refuse(path, "it vanished while being checked") }
            guard status.isDirectory else { throw refuse(path, "it is not a directory") }
            let isRoot = rootExists && path == real
            if isRoot {
                guard status.owner == FileSystem.effectiveUserID else { throw refuse(path, "it is owned by another user") }
                guard !status.writableByOthers else { throw refuse(path, "other users can write to it") }
                if status.permissions & 0o077 != 0 { try FileSystem.tightenPermissions(path, 0o700) }
            } else {
                guard status.owner == 0 || status.owner == FileSystem.effectiveUserID else {
                    throw refuse(path, "it is owned by another user")
                }
                // A sticky world-writable directory (like /tmp) lets others add entries but not replace ours.
                guard !status.writableByOthers || status.isSticky else {
                    throw refuse(path, "other users can write to it (and could replace the store)")
                }
            }
            if path == "/" { break }
            path = parent(of: path)
        }
    }

    /// Creates the root and any missing parents, 0700, then validates again.
    static func create(_ root: String) throws(VaultError) {
        var missing: [String] = []
        var path = root
        while try FileSystem.status(path) == nil {
            missing.append(path)
            path = parent(of: path)
        }
        for directory in missing.reversed() { try FileSystem.makeDirectory(directory, mode: 0o700) }
        try validate(root)
    }

    /// A directory inside the store must be a real directory of ours, closed to others.
    static func checkOwnDirectory(_ path: String) throws(VaultError) {
        guard let status = try FileSystem.linkStatus(path), status.isDirectory else { throw refuse(path, "it is not a directory") }
        guard status.owner == FileSystem.effectiveUserID else { throw refuse(path, "it is owned by another user") }
        guard !status.writableByOthers else { throw refuse(path, "other users can write to it") }
        if status.permissions & 0o077 != 0 { try FileSystem.tightenPermissions(path, 0o700) }
    }

    static func parent(of path: String) -> String { FileSystem.parent(of: path) }
}
