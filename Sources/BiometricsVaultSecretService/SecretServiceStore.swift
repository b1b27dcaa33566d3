#if os(Linux)
import BiometricsVaultCore
import Glibc

/// Whether a Secret Service provider (gnome-keyring, KWallet, KeePassXC) can hold vault items now.
public enum SecretServiceStatus: Sendable, Equatable {
    /// A provider answers and its default collection is unlocked.
    case available
    /// A provider answers, but its default collection is locked (unlock the login keyring and retry).
    case locked
    /// No session bus, no provider, no default collection, or no answer in time.
    case unavailable(VaultError)
}

/// What a ``SecretServiceStore`` does with a prompt a provider returns (`org.freedesktop.Secret.Prompt`,
/// from `Unlock`, `CreateItem` or `Item.Delete`).
public enum SecretServicePrompts: Sendable, Hashable {
    /// Runs it as the specification says: `Prompt("")`, then waits for `Completed` up to the store's
    /// timeout (`Dismiss` and `storeLocked` when nobody answered; `userCancel` when it was dismissed).
    /// A provider that completes it without a dialog (KeePassXC without confirmations, KWallet's unlock of
    /// an open wallet) just works; a provider that shows a dialog (a locked gnome-keyring, a closed
    /// KWallet wallet) waits for the user.
    case complete
    /// Never calls `Prompt()`: an operation that needs one is `storeLocked` (for callers that must not
    /// interact: a status line, a diagnosis).
    case never
}

/// The freedesktop Secret Service (the Linux desktop keychain: gnome-keyring and friends) as a
/// ``SecretStore``, spoken over D-Bus (the package's D-Bus layer) without libsecret.
///
/// ## Items and interoperability
/// A **plain** item (protection `.none`) is an ordinary keyring entry that python `keyring` and
/// `secret-tool` read: attributes `service` = the vault's service, `username` = the vault key, and the
/// secret is the credentials JSON itself, so `keyring.get_password(service, key)` and
/// `secret-tool lookup service S username K` return it. Two more attributes mark it as the vault's:
/// `xdg:schema` = `io.github.biometricsvault.Plain` and `bv-header` = ``ItemHeader/attributeValue``.
///
/// A **protected** item (behind biometrics) uses different attribute names, `bv-service` and `bv-key`
/// (plus `xdg:schema` = `io.github.biometricsvault.Protected` and `bv-format`), so no lookup by
/// `service`/`username` can return it as a plain password by accident. Its secret is the binary
/// `VaultEnvelope` (header + payload + checksum), so the header can never be separated from the payload.
/// As everywhere on Linux, "protected" is a presence check in this process, not a hardware key release:
/// a program of the same user that asks the Secret Service for `bv-service`/`bv-key` gets the bytes.
///
/// ## Replacing across protections (the atomicity rule)
/// A write first creates the new item completely (CreateItem, never `replace`: KeePassXC cannot replace
/// another client's item), and only then deletes the vault's items that existed before it (the previous
/// copy, the other protection's item, a stale copy under another header).
/// If the process dies in between, both a plain and a protected item exist. **The plain item wins**: reads
/// return it, and the next write or delete removes the protected copy (repair on write, so the common read
/// stays two round trips): an upgrade that did not finish is undone, a downgrade that did not finish is
/// completed, both outcomes the contract allows. Plain wins because it
/// is the only choice that can never report credentials as protected while a readable plain copy
/// still exists: reporting "protected" would first require deleting the plain copy, and that deletion
/// can fail. It also keeps the common read at the cost of a raw libsecret lookup (two D-Bus round trips).
/// Several copies of one protection (from crashed or concurrent writes) resolve to the most recently
/// created one.
///
/// Items that some other program stored under the same `service`/`username` without the vault's
/// markers are left alone: reads ignore them and writes do not delete them. Adopt them with
/// ``importItem(service:username:as:removeSource:)``. An item with the vault's plain schema but no
/// `bv-header` was not written by the vault either: it is not listed, never deleted, and a write to its
/// key is `invalidVault` (remove it first).
///
/// ## Locking, prompts and time
/// Prompts follow the Secret Service specification (``SecretServicePrompts``). When a read, write or
/// delete meets something locked (items in SearchItems' locked list; a default collection whose `Locked`
/// is true, which is how gnome-keyring and KWallet hide a locked collection's items; KWallet's
/// `IsLocked` error), the store calls `Unlock` and completes its prompt, then starts the operation over
/// once. With ``SecretServicePrompts/never`` it throws `storeLocked` instead (nothing is lost; unlock
/// the keyring and retry). An empty secret (KWallet's answer for a closed wallet) is never taken for the
/// item. The common read checks no lock state: it costs what a raw libsecret lookup costs.
/// Every call has a deadline (``init(timeout:)``), connecting to the bus included; a missing bus or provider
/// is `storeUnavailable` at once, a bus or provider that stops answering is `storeUnavailable` when the
/// deadline passes (``isAbsence(_:)`` tells the two apart). After the
/// provider restarts, the next call reconnects by itself.
public struct SecretServiceStore: SecretStore {
    let client: SecretServiceClient

    public var name: String { "secret-service" }

    /// Connects to the Secret Service on the session bus of this process.
    ///
    /// - Parameters:
    ///   - timeout: the most any single store call may take before it fails with `storeUnavailable`
    ///     (a prompt nobody answers: `storeLocked`).
    /// - Throws: `storeUnavailable`: quickly when there is no session bus or no provider on it; after
    ///   `timeout` when the bus or the provider does not answer.
    ///   - prompts: whether a prompt the provider returns is run (``SecretServicePrompts``).
    public init(timeout: Duration = .seconds(5), prompts: SecretServicePrompts = .complete) throws {
        let client = SecretServiceClient(timeout: timeout, prompts: prompts)
        try client.connect()
        self.client = client
    }

    /// A store on the bus at `busAddress` instead of the process's session bus (the package's tests reach
    /// KeePassXC and KWallet on private buses this way).
    package init(busAddress: String, timeout: Duration = .seconds(5), prompts: SecretServicePrompts = .complete) throws {
        let client = SecretServiceClient(timeout: timeout, prompts: prompts, busAddress: busAddress)
        try client.connect()
        self.client = client
    }

    /// ``probe(timeout:)`` of the bus at `busAddress`.
    package static func probe(busAddress: String, timeout: Duration = .seconds(1)) -> SecretServiceStatus {
        probe(SecretServiceClient(timeout: timeout, prompts: .never, busAddress: busAddress))
    }

    /// Starts connecting to the Secret Service on another thread and returns at once.
    ///
    /// The connection (session bus, encrypted session) is the process's one, which every
    /// `SecretServiceStore` shares: the next ``init(timeout:)`` or store call waits for this connection
    /// instead of opening another, so work done meanwhile overlaps the round trips and the key exchange.
    /// A call already waiting for it when it fails reports that failure; nothing is kept, so later calls
    /// connect again. Call it only
    /// when the store will be used (it opens a bus connection and a session).
    public static func prepareConnection(timeout: Duration = .seconds(5)) {
        SecretServiceClient.prepareConnection(timeout: timeout)
    }

    /// Asks, without prompting, whether the Secret Service on the session bus can be used now.
    public static func probe(timeout: Duration = .seconds(1)) -> SecretServiceStatus {
        probe(SecretServiceClient(timeout: timeout, prompts: .never))
    }

    /// Whether `error` (from ``init(timeout:prompts:)`` or ``probe(timeout:)``) shows that there is no Secret
    /// Service here at all, so that picking another store hides nothing: no session bus address and none
    /// GLib could find or start (``SecretServiceClient/isAbsence(_:sessionBusIsConfigured:)``), nothing
    /// listening at the bus address, or no provider owning or activatable for `org.freedesktop.secrets`.
    /// A bus or provider that exists but did not answer in time, or failed otherwise, is not absence:
    /// items may be there.
    package static func isAbsence(_ error: VaultError) -> Bool {
        SecretServiceClient.isAbsence(error, sessionBusIsConfigured: SecretServiceClient.sessionBusIsConfigured)
    }

    /// Whether the process has a session bus to connect to without X11 autolaunch: `DBUS_SESSION_BUS_ADDRESS`,
    /// else `$XDG_RUNTIME_DIR/bus` when it exists (where GLib looks, in its order).
    package static var sessionBusIsConfigured: Bool { SecretServiceClient.sessionBusIsConfigured }

    private static func probe(_ client: SecretServiceClient) -> SecretServiceStatus {
        do {
            let locked = try client.perform { call throws(VaultError) in try call.defaultCollectionIsLocked() }
            return locked ? .locked : .available
        } catch {
            return .unavailable(error)
        }
    }

    // MARK: attributes

    static let plainSchema = "io.github.biometricsvault.Plain"
    static let protectedSchema = "io.github.biometricsvault.Protected"
    static let headerAttribute = "bv-header"

    /// The exact attributes of the vault's plain item (python keyring's `service` + `username`).
    static func plainAttributes(_ id: SecretItemID, header: ItemHeader) -> SecretAttributes {
        ["xdg:schema": plainSchema, "service": id.service, "username": id.key, headerAttribute: header.attributeValue]
    }

    /// The query that finds the vault's plain items for `id`, whatever header they carry.
    static func plainQuery(_ id: SecretItemID) -> SecretAttributes {
        ["xdg:schema": plainSchema, "service": id.service, "username": id.key]
    }

    /// The exact attributes of the vault's protected item; also the query that finds it.
    static func protectedAttributes(_ id: SecretItemID) -> SecretAttributes {
        ["xdg:schema": protectedSchema, "bv-service": id.service, "bv-key": id.key,
         "bv-format": String(ItemHeader.currentFormatVersion)]
    }

    static func protectedQuery(_ id: SecretItemID) -> SecretAttributes {
        ["xdg:schema": protectedSchema, "bv-service": id.service, "bv-key": id.key]
    }

    static func label(_ id: SecretItemID, protected: Bool) -> String {
        protected ? "BiometricsVault (protected): \(id.key) on \(id.service)" : "BiometricsVault: \(id.key) on \(id.service)"
    }

    // MARK: SecretStore

    public func read(_ id: SecretItemID, authorization: Authorization?) throws -> StoredItem? {
        try perform { call throws(VaultError) -> StoredItem? in try readItem(id, call, repairs: true) }
    }

    /// Writes if the stored item satisfies `condition`. Search, check, create and delete run under the
    /// item's lock file (``ItemLockFile``), so no other BiometricsVault process writes in between; other
    /// programs do not take that lock (say so where it matters: SECURITY.md).
    public func write(_ item: StoredItem, for id: SecretItemID, if condition: WriteCondition, authorization: Authorization?) throws {
        guard let payload = item.payload else {
            throw VaultError(.storeUnavailable, underlying: .message("the Secret Service store needs the payload to write"))
        }
        let attributes: SecretAttributes
        let secret: SecretBytes
        let contentType: String
        switch item.header.protection {
        case .none:
            attributes = Self.plainAttributes(id, header: item.header)
            secret = payload
            contentType = payload.withUnsafeBytes(isValidUTF8) ? "text/plain" : "application/octet-stream"
        case .protected:
            attributes = Self.protectedAttributes(id)
            secret = VaultEnvelope.encode(item)
            contentType = "application/octet-stream"
        }
        let protected = item.header.protection != .none
        try ItemLockFile.withLock(id, timeout: client.timeout) { () throws(VaultError) in
            try perform { call throws(VaultError) in
                if condition != .anything {
                    try condition.check(readItem(id, call, repairs: false)?.header)
                }
                // What exists before the new item does; only these may be deleted afterwards.
                let before = try ownItems(id, call)
                let newPath: String
                do throws(VaultError) {
                    newPath = try call.createItem(
                        attributes: attributes, label: Self.label(id, protected: protected), secret: secret, contentType: contentType)
                } catch where SecretServiceClient.isLostSession(error) {
                    // kwalletd5 creates the item before it decrypts the secret, and keeps it with an empty
                    // secret when that fails ("Can't find session" for a session it does not know, or whose
                    // secret does not decrypt). Under the item's lock only our CreateItem made a new item here:
                    // delete it, so that the retry on a new session (or the caller) finds what was there before.
                    for path in try ownItems(id, call) where !before.contains(path) { try call.deleteItem(at: path) }
                    throw error
                }
                for path in before where path != newPath { try call.deleteItem(at: path) }
            }
        }
    }

    public func delete(_ id: SecretItemID) throws {
        try ItemLockFile.withLock(id, timeout: client.timeout) { () throws(VaultError) in try deleteLocked(id) }
    }

    private func deleteLocked(_ id: SecretItemID) throws(VaultError) {
        try perform { call throws(VaultError) in
            let found = try ownItems(id, call, skippingForeign: true)
            if found.isEmpty {
                // Absent, or hidden by a locked keyring: say which.
                try Self.checkDefaultCollectionUnlocked(call)
                return
            }
            for path in found { try call.deleteItem(at: path) }
        }
    }

    /// The vault's keys under `service`. The whole listing ends within ``listingBound(items:timeout:)``
    /// of its start: a provider that answers each attribute read slowly, but within the store's timeout,
    /// fails it with `storeUnavailable` instead of holding the caller for hours.
    public func keys(service: String) throws -> [String] {
        let start = ContinuousClock.now
        return try perform { call throws(VaultError) -> [String] in
            let plain = try call.search(["xdg:schema": Self.plainSchema, "service": service])
            let protected = try call.search(["xdg:schema": Self.protectedSchema, "bv-service": service])
            if !plain.locked.isEmpty || !protected.locked.isEmpty {
                throw call.locked(plain.locked + protected.locked, Self.lockedError)
            }
            if plain.unlocked.isEmpty && protected.unlocked.isEmpty {
                try Self.checkDefaultCollectionUnlocked(call)
                return []
            }
            let count = plain.unlocked.count + protected.unlocked.count
            let bound = Self.listingBound(items: count, timeout: client.timeout)
            let deadline = Deadline(after: max(bound - (ContinuousClock.now - start), .zero))
            defer { deadline.finish() }
            // One batch of attribute reads per schema, not a round trip per item (10,000 items list in time).
            var keys = Set<String>()
            do throws(VaultError) {
                for attributes in try call.attributes(of: plain.unlocked, within: deadline) {
                    // An item of the vault's schema without its header was not written by the vault: not listed.
                    guard let attributes, attributes[Self.headerAttribute] != nil, let key = attributes["username"] else { continue }
                    keys.insert(key)
                }
                for attributes in try call.attributes(of: protected.unlocked, within: deadline) {
                    if let key = attributes?["bv-key"] { keys.insert(key) }
                }
            } catch where deadline.isCancelled {
                throw VaultError(.storeUnavailable, underlying: .message(
                    "listing the \(count) items under the service did not finish within \(SecretServiceClient.milliseconds(bound) / 1000) s "
                        + "(the store's timeout plus \(SecretServiceClient.milliseconds(Self.listingTimePerItem)) ms an item, at most "
                        + "\(SecretServiceClient.milliseconds(Self.maximumListingTime) / 1000) s): the Secret Service answers too slowly"))
            }
            return keys.sorted()
        }
    }

    /// What a listing may take per item on top of the store's timeout: ten times gnome-keyring's slowest
    /// answer (about 1 ms an item).
    package static let listingTimePerItem: Duration = .milliseconds(10)
    /// The most any listing may take (120 s; the store's timeout, when that is longer).
    package static let maximumListingTime: Duration = .seconds(120)

    /// How long a listing of `items` items may take: the store's `timeout` plus ``listingTimePerItem`` an
    /// item, at most ``maximumListingTime`` (or `timeout`, when that is longer).
    package static func listingBound(items: Int, timeout: Duration) -> Duration {
        min(timeout + listingTimePerItem * items, max(maximumListingTime, timeout))
    }

    // MARK: import

    /// Adopts a secret that `secret-tool` or python `keyring` stored under (`service`, `username`) as
    /// the plain vault item `id` (like Valet's `migrateObjects`).
    ///
    /// `converting` turns the source's secret into the payload to store, and is where a caller checks
    /// it: the vault decodes the payload on every read, so a secret that is not the stored form of the
    /// vault's credentials type (python `keyring` stores plain text, not JSON) must be converted or
    /// refused here. It runs before anything is written: when it throws, nothing is written and the
    /// source is untouched.
    ///
    /// The vault item is written completely before the source is touched; the source is deleted only
    /// when `removeSource` is true, only after the written item was read back with exactly the payload
    /// written, and only when the source, read again just before the delete, still has the attributes and
    /// the secret that were imported. Otherwise the source stays, and is the only copy that counts. (The
    /// Secret Service has no conditional delete: a change in the instant between that last read and the
    /// delete is not seen.)
    ///
    /// - Throws: what `converting` throws; `itemNotFound` when no such foreign item exists;
    ///   `invalidVault` when `id` already holds a vault item (nothing is overwritten), or when the source
    ///   changed after it was read (the source is kept; `id` holds the secret as it was read);
    ///   `credentialsTooLarge`; `storeLocked`; `storeUnavailable`; `corruptedItem` when the written
    ///   item does not read back (the source is kept).
    public func importItem(
        service: String, username: String, as id: SecretItemID, removeSource: Bool = false,
        converting convert: (SecretBytes) throws -> SecretBytes = { $0 }
    ) throws {
        // Checked early to fail before touching the source; the write below checks again under the lock.
        guard try read(id, authorization: nil) == nil else {
            throw VaultError(.invalidVault, underlying: .message("the target key already holds a vault item"))
        }
        let (sourcePath, sourceAttributes, payload) = try perform { call throws(VaultError) -> (String, SecretAttributes, SecretBytes) in
            let found = try call.search(["service": service, "username": username])
            for path in found.unlocked {
                guard let attributes = try call.attributes(at: path), !Self.isVaultItem(attributes) else { continue }
                guard let payload = try call.secret(at: path) else { continue }
                return (path, attributes, payload)
            }
            if !found.locked.isEmpty { throw call.locked(found.locked, Self.lockedError) }
            if found.unlocked.isEmpty { try Self.checkDefaultCollectionUnlocked(call) }
            throw VaultError(.itemNotFound, underlying: .message("no Secret Service item for that service and username"))
        }
        let converted = try convert(payload)
        guard converted.count <= VaultLimits.maximumCredentialsSize else { throw VaultError.credentialsTooLarge }
        let item = StoredItem(header: ItemHeader(protection: .none), payload: converted)
        try write(item, for: id, if: .absent, authorization: nil)
        guard removeSource else { return }
        guard try read(id, authorization: nil) == item else {
            throw VaultError(
                .corruptedItem,
                underlying: .message("the imported item did not read back as written; the source item was kept"))
        }
        // Another program may have updated the source in place since it was read: the vault item then holds
        // the older secret, and the source is the only copy of the newer one. So the source is deleted only
        // while it is still that credential: the same `service` and `username` and the same secret. (Its
        // other attributes are the provider's business: gnome-keyring has been seen to report them
        // differently from one read to the next while other clients wrote.) A source that cannot be read
        // this instant (a provider busy with other clients) is read again, a few times, before it counts
        // as changed; a source read back different is changed at once.
        let identity = ["service", "username"]
        var difference = ""
        for attempt in 0..<5 {
            if attempt > 0 { usleep(200_000) }
            difference = try perform { call throws(VaultError) -> String in
                guard let attributes = try call.attributes(at: sourcePath) else { return "its attributes could not be read" }
                let changed = identity.filter { attributes[$0] != sourceAttributes[$0] }
                guard changed.isEmpty else { return "its \(changed.joined(separator: " and ")) attributes differ" }
                guard let secret = try call.secret(at: sourcePath) else { return "its secret could not be read" }
                guard secret == payload else { return "its secret differs" }
                try call.deleteItem(at: sourcePath)
                return ""
            }
            if difference.isEmpty || difference.hasSuffix("differ") || difference.hasSuffix("differs") { break }
        }
        guard difference.isEmpty else {
            throw VaultError(.invalidVault, underlying: .message(
                "the source item changed after it was read (\(difference): another program updated or removed it); it was "
                    + "kept, and the imported item holds the secret as it was read: check it, or delete it and import again"))
        }
    }

    // MARK: internals

    static let lockedError = VaultError(.storeLocked, underlying: .message("the Secret Service collection is locked"))

    /// Runs `body` on the service; when it stops at something locked (items in SearchItems' locked
    /// list, a default collection whose `Locked` is true, KWallet's `IsLocked`), unlocks that with the
    /// service's `Unlock` (completing its prompt) and runs `body` once more from the start. Under
    /// ``SecretServicePrompts/never`` nothing is unlocked: the answer is `storeLocked`.
    private func perform<Result>(_ body: (SecretServiceClient.Call) throws(VaultError) -> Result) throws(VaultError) -> Result {
        try client.perform { call throws(VaultError) -> Result in
            do throws(VaultError) {
                return try body(call)
            } catch {
                guard error.code == .storeLocked, client.prompts == .complete, let objects = call.lockedObjects.value
                else { throw error }
                call.lockedObjects.value = nil
                try call.unlock(objects)
                return try body(call)
            }
        }
    }

    /// The vault's items for `id` (both protections, every header): the only items a write replaces or a
    /// delete removes. An item with the plain schema's attributes but no `bv-header` was not written by
    /// the vault (a hand-made or another program's item): it is never deleted, and a write refuses to
    /// put a second item beside it (`invalidVault`, naming the way out) unless `skippingForeign`.
    private func ownItems(_ id: SecretItemID, _ call: SecretServiceClient.Call, skippingForeign: Bool = false) throws(VaultError) -> [String] {
        let plain = try call.search(Self.plainQuery(id))
        let protected = try call.search(Self.protectedQuery(id))
        if !plain.locked.isEmpty || !protected.locked.isEmpty {
            throw call.locked(plain.locked + protected.locked, Self.lockedError)
        }
        var own = protected.unlocked
        for (path, attributes) in zip(plain.unlocked, try call.attributes(of: plain.unlocked)) {
            guard let attributes else { continue }  // gone meanwhile
            if attributes[Self.headerAttribute] != nil {
                own.append(path)
            } else if !skippingForeign {
                throw Self.foreignItemError
            }
        }
        return own
    }

    static let foreignItemError = VaultError(.invalidVault, underlying: .message(
        "the Secret Service holds an item with the vault's schema and this service and key but without its bv-header "
            + "attribute: BiometricsVault did not write it and leaves it alone; remove it (secret-tool clear xdg:schema "
            + "io.github.biometricsvault.Plain service SERVICE username KEY), then retry"))

    /// Throws `storeLocked` (recording the collection to unlock) when the default collection is locked:
    /// gnome-keyring's SearchItems leaves a locked keyring's items out, and KWallet lists none of an
    /// open wallet's items until a client unlocks its collection.
    static func checkDefaultCollectionUnlocked(_ call: SecretServiceClient.Call) throws(VaultError) {
        if try call.defaultCollectionIsLocked() { throw call.locked([try call.defaultCollection()], lockedError) }
    }

    static func isVaultItem(_ attributes: SecretAttributes) -> Bool {
        attributes[headerAttribute] != nil || attributes["xdg:schema"] == plainSchema
            || attributes["xdg:schema"] == protectedSchema
    }

    /// The vault item for `id`: the common plain item in two round trips (search, GetSecret), as a raw
    /// libsecret lookup makes; else the slow path. A plain item wins over protected copies left by an
    /// interrupted replace without a third call: the next write or delete removes them (it deletes every
    /// copy found before it).
    ///
    /// `repairs`: a read may delete older protected copies, but only when the item's lock is free; a
    /// reader that saw a replace half-way must never delete the copy a writer is about to keep. Writers
    /// (which hold the lock and clean up themselves) pass `false`.
    private func readItem(_ id: SecretItemID, _ call: SecretServiceClient.Call, repairs: Bool) throws(VaultError) -> StoredItem? {
        // A search can name items that are gone by the time their secret is read: another writer's
        // replace creates the new copy, then deletes the old one. The new copy was there all along, so
        // search again rather than report the item absent (bounded: a replace every round is a writer
        // storm, and the operation's deadline bounds each call anyway).
        for _ in 1..<Self.searchesForAReplacedItem {
            var foundVanished = false
            if let item = try readItemOnce(id, call, repairs: repairs, foundVanished: &foundVanished) { return item }
            if !foundVanished { return nil }
        }
        var foundVanished = false
        return try readItemOnce(id, call, repairs: repairs, foundVanished: &foundVanished)
    }

    /// How many times ``readItem(_:_:repairs:)`` searches when every item it found vanished before it was read.
    static let searchesForAReplacedItem = 8

    /// One search-and-read; `nil` with `foundVanished` set when the searches found items but none could
    /// be read (deleted meanwhile).
    private func readItemOnce(
        _ id: SecretItemID, _ call: SecretServiceClient.Call, repairs: Bool, foundVanished: inout Bool
    ) throws(VaultError) -> StoredItem? {
        let plainHeader = ItemHeader(protection: .none)
        let fast = try call.search(
            ["service": id.service, "username": id.key, Self.headerAttribute: plainHeader.attributeValue] as KeyValuePairs)
        if fast.unlocked.count == 1, let payload = try call.secret(at: fast.unlocked[0]) {
            return StoredItem(header: plainHeader, payload: payload)
        }
        // Two copies: a write stopped between creating the new one and deleting the old one.
        if fast.unlocked.count > 1, let (_, payload) = try newest(fast.unlocked, call) {
            return StoredItem(header: plainHeader, payload: payload)
        }
        if !fast.locked.isEmpty { throw call.locked(fast.locked, Self.lockedError) }
        if !fast.unlocked.isEmpty { foundVanished = true }
        return try readSlowly(id, call, repairs: repairs, foundVanished: &foundVanished)
    }

    /// Everything but the common plain item: protected items, plain items under another header, locks.
    private func readSlowly(
        _ id: SecretItemID, _ call: SecretServiceClient.Call, repairs: Bool, foundVanished: inout Bool
    ) throws(VaultError) -> StoredItem? {
        let protected = try call.search(Self.protectedQuery(id))
        if !protected.unlocked.isEmpty { foundVanished = true }
        if let (path, payload) = try newest(protected.unlocked, call) {
            let item = try VaultEnvelope.decode(payload)
            guard item.header.protection != .none else {
                throw VaultError(.corruptedItem, underlying: .message("a protected Secret Service item holds a plain header"))
            }
            // Older copies from a crashed write: the newest complete one is the item.
            if repairs, protected.unlocked.count > 1 {
                _ = try ItemLockFile.ifUnlocked(id) { () throws(VaultError) in
                    for other in protected.unlocked where other != path { try call.deleteItem(at: other) }
                }
            }
            return item
        }
        if !protected.locked.isEmpty { throw call.locked(protected.locked, Self.lockedError) }

        // A plain vault item whose header is not the common one (written with an enrollment, or by
        // another format version: that is `corruptedItem`, never a guess).
        let plain = try call.search(["service": id.service, "username": id.key])
        for path in plain.unlocked {
            guard let attributes = try call.attributes(at: path) else {
                foundVanished = true
                continue
            }
            guard let header = attributes[Self.headerAttribute] else { continue }
            let parsed = try ItemHeader(attributeValue: header)
            guard parsed.protection == .none else {
                throw VaultError(.corruptedItem, underlying: .message("a plain Secret Service item holds a protected header"))
            }
            guard let payload = try call.secret(at: path) else {
                foundVanished = true
                continue
            }
            return StoredItem(header: parsed, payload: payload)
        }
        if !plain.locked.isEmpty { throw call.locked(plain.locked, Self.lockedError) }
        // gnome-keyring and KWallet answer "nothing" for a locked collection: check before saying absent.
        try Self.checkDefaultCollectionUnlocked(call)
        return nil
    }

    /// The most recently created of `paths` with its secret (`nil` when none is left).
    private func newest(_ paths: [String], _ call: SecretServiceClient.Call) throws(VaultError) -> (String, SecretBytes)? {
        var candidates: [(path: String, created: UInt64)] = []
        if paths.count == 1 {
            candidates = [(paths[0], 0)]
        } else {
            for path in paths { if let created = try call.created(at: path) { candidates.append((path, created)) } }
            candidates.sort { $0.created > $1.created }
        }
        for candidate in candidates {
            if let payload = try call.secret(at: candidate.path) { return (candidate.path, payload) }
        }
        return nil
    }
}

/// Whether `bytes` are valid UTF-8, decoded in place (no copy of the secret is made).
func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    while true {
        switch decoder.decode(&iterator) {
        case .scalarValue: continue
        case .emptyInput: return true
        case .error: return false
        }
    }
}
#endif
