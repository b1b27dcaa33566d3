#if os(Linux)
import BiometricsVaultSecretService
import Foundation

/// The one place the platform default reaches the Secret Service store.
/// (Waiting for the Secret Service store to land: until then it reports itself unreachable.)
enum SecretServiceAdapter {
    private static let pending = VaultError(.storeUnavailable, underlying: .message("the Secret Service store is not built into this version"))

    static func connect() -> Result<any SecretStore, VaultError> { .failure(pending) }

    static func makeStore() -> any SecretStore { UnopenedStore(name: "secret-service", error: pending) }

    static func probe() -> PlatformComponent { .unusable(.store, "secret-service", pending) }

    static func importItem(service: String, username: String, into id: SecretItemID, removeSource: Bool) throws {
        throw pending
    }
}
#endif
