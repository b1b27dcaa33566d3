/// Keeps a file store's unlocked key between processes for a while, so that its passphrase or TPM PIN
/// is asked once per window (on Linux, the unlock-window agent's: `UnlockWindows.storeKeyKeeper`). Set as
/// `PlatformInteraction.storeKeyKeeper`; any failure to reach the keeper means "no key": the secret is
/// asked as without it.
public protocol StoreKeyKeeper: Sendable {
    /// The key kept for the store rooted at `store` whose key file has SHA-256 `keyFile`, if any.
    func key(store: String, keyFile: String) -> SecretBytes?
    /// Keeps `key` (the store's 32-byte master key) for the store; best effort.
    func keep(_ key: SecretBytes, store: String, keyFile: String)
    /// Drops what is kept for `store`: it no longer opened the store.
    func forget(store: String)
}
