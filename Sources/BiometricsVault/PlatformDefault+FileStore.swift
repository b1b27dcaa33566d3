import BiometricsVaultFileStore
import BiometricsVaultTPM
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one place the platform default reaches the encrypted file store.
enum FileStoreAdapter {
    /// The store in its default directory (`$XDG_DATA_HOME/biometrics-vault`); if it cannot be opened
    /// (for example a directory other users can write), a store that reports why on every call.
    static func makeStore(interaction: PlatformInteraction = .terminal) -> any SecretStore {
        do {
            if let keeper = interaction.storeKeyKeeper, let store = try openKept(keeper, interaction: interaction) { return store }
            return try EncryptedFileStore(keySource: FileStoreKeySource.recorded(interaction: interaction))
        } catch {
            return UnopenedStore(name: "file", error: error)
        }
    }

    /// A store whose key needs a secret (a passphrase, a TPM PIN), opened with the key `keeper` keeps for
    /// its key file as it is now; else with the secret, asked once, and the key then given to `keeper`.
    /// A kept key that does not open the store is dropped and the secret asked; so is one the store's
    /// data cannot prove to be its key (a store with no item yet): any process on the terminal can
    /// hand the keeper a key, and data written under a planted key would be the planter's to read.
    /// `nil` for a store that needs no secret (or has no key file yet): opened as usual.
    private static func openKept(_ keeper: any StoreKeyKeeper, interaction: PlatformInteraction) throws -> EncryptedFileStore? {
        switch try EncryptedFileStore.keyProtection() {
        case nil, .keyFile, .sealed(_, usesPIN: false): return nil
        case .passphrase, .sealed(_, usesPIN: true): break
        }
        let root = try EncryptedFileStore.requireDefaultDirectory().standardizedFileURL.path
        if let keyFile = try EncryptedFileStore.keyFileDigest(), let master = keeper.key(store: root, keyFile: keyFile) {
            let kept = UnlockedStoreKey(master: master, keyFileDigest: keyFile)
            do {
                if try EncryptedFileStore.provesKey(kept) { return try EncryptedFileStore(keySource: .unlocked(kept)) }
            } catch {
                keeper.forget(store: root)
            }
        }
        guard let unlocked = try EncryptedFileStore.unlockKey(source: FileStoreKeySource.recorded(interaction: interaction)) else { return nil }
        let store = try EncryptedFileStore(keySource: .unlocked(unlocked))
        keeper.keep(unlocked.master, store: root, keyFile: unlocked.keyFileDigest)
        return store
    }

    /// Where the files live (for notices and `doctor`).
    static var location: String { EncryptedFileStore.defaultDirectory().path }

    /// Whether the store opens here, without writing anything.
    static func probe(tpm: TPMConfiguration) -> PlatformComponent {
        if let described = FileStoreKeySource.describeWithoutOpening(tpm: tpm) { return described }
        do {
            _ = try EncryptedFileStore()
            return .usable(.store, "file", "encrypted files in \(location)")
        } catch {
            return .unusable(.store, "file", UnopenedStore.vaultError(error))
        }
    }
}

/// A store that could not be opened: every call throws the error that opening it threw, so the user
/// sees the exact reason (`storeUnavailable`, `storeLocked`, ...) where the operation fails.
struct UnopenedStore: SecretStore {
    let name: String
    let error: VaultError

    init(name: String, error: any Error) {
        self.name = name
        self.error = Self.vaultError(error)
    }

    static func vaultError(_ error: any Error) -> VaultError {
        error as? VaultError
            ?? VaultError(.storeUnavailable, underlying: .other(type: String(describing: type(of: error)), summary: "redacted"))
    }

    func read(_ id: SecretItemID, authorization: Authorization?) throws -> StoredItem? { throw error }
    func write(_ item: StoredItem, for id: SecretItemID, if condition: WriteCondition, authorization: Authorization?) throws {
        throw error
    }
    func delete(_ id: SecretItemID) throws { throw error }
    func keys(service: String) throws -> [String] { throw error }
}
