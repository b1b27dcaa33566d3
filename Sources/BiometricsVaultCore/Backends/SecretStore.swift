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
/// 2. **`write` is an atomic replace.** After `write` returns, `read` yields exactly the new item. If
///    `write` throws, or the process dies inside it, a later `read` yields either the complete old item or
///    the complete new item: never nothing, never a mix, never the new payload under the old header.
///    A backend that needs two steps (e.g. a Secret Service item under another schema, a Keychain staging
///    item) must write the new item fully before removing the old one, and must finish or undo a
///    half-done replace on the next `read` (repair), not report it as missing.
/// 3. **`read` never prompts.** With `authorization == nil` it returns the header of a protected item and,
///    if the payload is held behind an OS access control, `payload == nil`. With an authorization it
///    returns the payload or throws the authentication error the OS reports.
/// 4. **Missing is not an error.** `read` of an absent item returns `nil`; `delete` of an absent item
///    succeeds.
/// 5. **Errors are `VaultError`.** Unreachable store or I/O failure: `storeUnavailable`; locked store:
///    `storeLocked`; undecodable or unauthenticated bytes: `corruptedItem` (and the bytes stay where they
///    are: a store never deletes an item it cannot read). Keep the platform's status in `underlying`.
/// 6. **No secret leaves the store in plaintext** except through the returned payload: not in file names,
///    attributes, logs or error descriptions.
/// 7. **Thread safety.** All methods may be called concurrently from any thread or task, also for the
///    same item; concurrent writes to one item end with one complete item (last writer wins).
/// 8. **Payload size.** Accept payloads up to ``VaultLimits/maximumCredentialsSize`` bytes.
///
/// Stores never see credentials types: the vault encodes them to JSON before calling `write`.
public protocol SecretStore: Sendable {
    /// A short human-readable name for diagnostics (`"secret-service"`, `"file"`, `"keychain"`).
    var name: String { get }

    /// Reads the item, without prompting. Returns `nil` when there is none.
    func read(_ id: SecretItemID, authorization: Authorization?) throws -> StoredItem?

    /// Atomically replaces the item (see requirement 2). `item.payload` is never `nil` here.
    /// `authorization` is the authentication that allowed a protected write, for stores whose OS ties
    /// the item's access control to it (Keychain: `kSecUseAuthenticationContext`).
    func write(_ item: StoredItem, for id: SecretItemID, authorization: Authorization?) throws

    /// Deletes the item. Succeeds when it does not exist.
    func delete(_ id: SecretItemID) throws

    /// The keys stored under `service`, sorted. Never prompts.
    func keys(service: String) throws -> [String]
}
