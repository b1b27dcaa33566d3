/// Where the bytes of a vault live: the Apple Keychain, the freedesktop Secret Service, an encrypted file,
/// or the simulated device's in-memory keychain.
///
/// # Implementation requirements
///
/// A conforming store is the vault's only persistence, and the vault's atomicity rests on these rules.
/// ``SecretStoreConformance`` (in `BiometricsVaultTesting`) checks every rule it can from the outside;
/// run it from your backend's tests.
///
/// 1. **One item per ``SecretItemID``.** An item is an ``ItemHeader`` plus a payload.
/// 2. **`write` is an atomic, conditional replace.** `write` first checks the stored item's header
///    against its ``WriteCondition`` and writes only when it holds (else it throws
///    ``WriteCondition/mismatch(current:)``'s error and changes nothing). Check and write are one step
///    for every writer of the store, **also in other processes**: hold the store's own cross-process
///    lock (file lock, lock file) across read, check and replace, or use an OS primitive that is
///    conditional by itself (Keychain add-only for ``WriteCondition/absent``). A store that cannot make
///    some condition atomic must say which in its documentation.
///    After `write` returns, `read` yields exactly the new item. If
///    `write` throws, or the process dies inside it, a later `read` yields either the complete old item or
///    the complete new item: never nothing, never a mix, never the new payload under the old header.
///    A backend that needs two steps (e.g. a Secret Service item under another schema, a Keychain staging
///    item) must write the new item fully before removing the old one; a `read` that finds a half-done
///    replace must return one complete item (never report it as missing), and the half-done replace is
///    finished or undone (repair) by that read or by the next write.
/// 3. **`read` never authenticates the user.** With `authorization == nil` it returns the header of a
///    protected item and, if the payload is held behind an OS access control, `payload == nil`. With an
///    authorization it returns the payload or throws the authentication error the OS reports. A store
///    whose container is locked as a whole (a Secret Service collection) may run that container's own
///    unlock, as every client of it does, unless it was made not to; then it throws `storeLocked`.
/// 4. **Missing is not an error.** `read` of an absent item returns `nil`; `delete` of an absent item
///    succeeds.
/// 5. **Errors are `VaultError`.** Unreachable store or I/O failure: `storeUnavailable`; locked store:
///    `storeLocked`; undecodable or unauthenticated bytes: `corruptedItem` (and the bytes stay where they
///    are: a store never deletes an item it cannot read). Keep the platform's status in `underlying`.
/// 6. **No secret leaves the store in plaintext** except through the returned payload: not in file names,
///    attributes, logs or error descriptions.
/// 7. **Thread safety.** All methods may be called concurrently from any thread or task and any
///    process, also for the same item; concurrent unconditional writes to one item end with one complete
///    item (last writer wins); of concurrent writes with ``WriteCondition/absent``, exactly one succeeds.
/// 8. **Payload size.** Accept payloads up to ``VaultLimits/maximumCredentialsSize`` bytes.
///
/// Stores never see credentials types: the vault encodes them to JSON before calling `write`.
public protocol SecretStore: Sendable {
    /// A short human-readable name for diagnostics (`"secret-service"`, `"file"`, `"keychain"`).
    var name: String { get }

    /// Reads the item, without prompting. Returns `nil` when there is none.
    func read(_ id: SecretItemID, authorization: Authorization?) throws -> StoredItem?

    /// Atomically replaces the item if the stored one satisfies `condition`, checked under the store's
    /// cross-process lock (see requirement 2). `item.payload` is never `nil` here. `authorization` is the
    /// authentication that allowed a protected write, for stores whose OS ties the item's access control
    /// to it (Keychain: `kSecUseAuthenticationContext`).
    ///
    /// - Throws: ``WriteCondition/mismatch(current:)`` when the condition does not hold (nothing written).
    func write(_ item: StoredItem, for id: SecretItemID, if condition: WriteCondition, authorization: Authorization?) throws

    /// Deletes the item. Succeeds when it does not exist.
    func delete(_ id: SecretItemID) throws

    /// The keys stored under `service`, sorted. Never prompts.
    func keys(service: String) throws -> [String]

    /// The readable keys stored under `service`, sorted, and the number of items whose key cannot be
    /// read (damaged, or written under another store key). Never prompts. A store whose listing cannot
    /// meet unreadable items keeps the default, which is ``keys(service:)`` with none.
    func listing(service: String) throws -> KeyListing

    /// Why the item of `id` is missing, when the store knows that the OS destroyed it: the Keychain reports
    /// ``VaultInvalidation/passcodeRemoved`` for a protected item deleted with the device passcode. Asked
    /// by `retrieveVault` after `read` returned `nil`. Never prompts; best effort (`nil` when unknown or
    /// unreadable). Stores that cannot know keep the default, `nil`.
    func vanishedItemReason(_ id: SecretItemID) -> VaultInvalidation?
}

/// What ``SecretStore/listing(service:)`` found.
public struct KeyListing: Hashable, Sendable {
    /// The keys that could be read, sorted.
    public var keys: [String]
    /// Items that exist but whose key cannot be read (left in place, never deleted).
    public var unreadable: Int

    public init(keys: [String], unreadable: Int = 0) {
        self.keys = keys
        self.unreadable = unreadable
    }
}

extension SecretStore {
    public func listing(service: String) throws -> KeyListing {
        KeyListing(keys: try keys(service: service))
    }

    public func vanishedItemReason(_ id: SecretItemID) -> VaultInvalidation? { nil }

    /// An unconditional write (last writer wins): ``write(_:for:if:authorization:)`` with
    /// ``WriteCondition/anything``.
    public func write(_ item: StoredItem, for id: SecretItemID, authorization: Authorization?) throws {
        try write(item, for: id, if: .anything, authorization: authorization)
    }
}

/// What a conditional ``SecretStore/write(_:for:if:authorization:)`` expects to be stored: a
/// compare-and-swap on the item's header (protection and enrollment binding), so a handle never silently
/// overwrites an item that another handle or process created, deleted, protected or unprotected since
/// the handle read it.
public enum WriteCondition: Hashable, Sendable {
    /// Whatever is stored (last writer wins).
    case anything
    /// No item: `store` succeeds only into an empty key.
    case absent
    /// An item with this header's protection (and policy) and enrollment binding. The format version is
    /// not compared: an item of an older format is moved into the current one by the write.
    case matching(ItemHeader)
    /// No item, or one that ``matching(_:)`` this header (an item invalidated by an enrollment change,
    /// which a new `store` may replace).
    case absentOr(ItemHeader)

    /// A plain item.
    public static let plain = WriteCondition.matching(ItemHeader(protection: .none))

    /// A protected item under `policy`, bound to `enrollment` (`nil` for policies that bind none).
    public static func protected(_ policy: ProtectionPolicy, enrollment: EnrollmentFingerprint?) -> WriteCondition {
        .matching(ItemHeader(protection: .protected(policy), enrollment: policy.bindsEnrollment ? enrollment : nil))
    }

    /// An empty key, or the item whose header was seen there (for example an item invalidated by an
    /// enrollment change, which a new store may replace).
    public static func replacing(_ seen: ItemHeader?) -> WriteCondition {
        seen.map(WriteCondition.absentOr) ?? .absent
    }

    /// Whether `current` (the stored header, `nil` when absent) satisfies the condition.
    public func isSatisfied(by current: ItemHeader?) -> Bool {
        switch self {
        case .anything: true
        case .absent: current == nil
        case .matching(let expected): current?.protection == expected.protection && current?.enrollment == expected.enrollment
        case .absentOr(let expected): current == nil || WriteCondition.matching(expected).isSatisfied(by: current)
        }
    }

    /// Throws the error a store reports when `current` does not satisfy the condition; returns when it does.
    /// One mapping for every store: `invalidVault` when an item is there (or its protection changed),
    /// `itemNotFound` when it was deleted, `biometryChanged` when only the enrollment binding differs.
    public func check(_ current: ItemHeader?) throws(VaultError) {
        guard !isSatisfied(by: current) else { return }
        throw mismatch(current: current)
    }

    /// The error for a failed condition (see ``check(_:)``).
    public func mismatch(current: ItemHeader?) -> VaultError {
        switch self {
        case .anything:
            return VaultError(.invalidVault, underlying: .message("unconditional write refused"))
        case .absent, .absentOr:
            return VaultError(.invalidVault, underlying: .message("an item is already stored under this key"))
        case .matching(let expected):
            guard let current else {
                return VaultError(.itemNotFound, underlying: .message("the stored item was deleted"))
            }
            if current.protection != expected.protection {
                return VaultError(
                    .invalidVault,
                    underlying: .message(
                        expected.protection == .none ? "the stored item is protected now" : "the stored item's protection changed"))
            }
            return VaultError(.biometryChanged, underlying: .message("enrolled biometrics changed since the item was stored"))
        }
    }
}
