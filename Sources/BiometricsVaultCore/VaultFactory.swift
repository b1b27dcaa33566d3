/// Finds the vault for a key. Never asks for a fingerprint or a password: a protected item gives `.locked`
/// (`.biometrics` inside a session that ``AuthenticationReuse/session(timeout:)`` keeps open).
///
/// On the Secret Service a locked collection is unlocked through the provider's own prompt, as any client
/// of it is (a login keyring locked since boot shows its password dialog; an open KWallet wallet completes
/// it at once). A configuration that must not show even that (a daemon, a status line) uses
/// `PlatformInteraction.allowsStorePrompts = false` or a store made with `SecretServiceStore(prompts: .never)`:
/// it reads a locked collection as `storeLocked`.
public enum VaultFactory<Credentials: Codable & Sendable> {
    /// The vault for `key` under `configuration`, without prompting.
    ///
    /// A protected item gives `.locked` (`.biometrics` inside an open session); a plain item `.keychain` / `.keychainUpgradable`; nothing, or a
    /// `.biometryCurrentSet` item whose enrollment changed, an empty vault (see ``EmptyVault/invalidation``).
    ///
    /// - Important: This form cannot throw, so an unreachable or locked store, a corrupted item or an
    ///   invalid key give an empty vault whose `invalidation` is `.unreadable(error)` (the item is left in
    ///   place). Prefer ``retrieveVaultOrThrow(key:configuration:)``, which throws those errors.
    public static func retrieveVault(key: String, configuration: VaultConfiguration) -> Vault<Credentials> {
        VaultDriver<Credentials>.retrieveReportingErrors(key: key, configuration: configuration)
    }

    /// Like ``retrieveVault(key:configuration:)``, but reports failures instead of calling them empty.
    ///
    /// - Throws: `invalidKey`; `storeUnavailable` (no daemon, I/O error); `storeLocked` (locked keyring);
    ///   `corruptedItem` (undecodable or tampered item; never deleted).
    public static func retrieveVaultOrThrow(key: String, configuration: VaultConfiguration) throws -> Vault<Credentials> {
        try VaultDriver<Credentials>.retrieve(key: key, configuration: configuration)
    }
}
