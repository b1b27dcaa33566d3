import BiometricsVaultFileStore
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
            return try EncryptedFileStore(keySource: FileStoreKeySource.recorded(interaction: interaction))
        } catch {
            return UnopenedStore(name: "file", error: error)
        }
    }

    /// Where the files live (for notices and `doctor`).
    static var location: String { EncryptedFileStore.defaultDirectory().path }

    /// Whether the store opens here, without writing anything.
    static func probe() -> PlatformComponent {
        if let described = FileStoreKeySource.describeWithoutOpening() { return described }
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
