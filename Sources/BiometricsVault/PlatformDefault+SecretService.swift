#if os(Linux)
import BiometricsVaultSecretService
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one place the platform default reaches the Secret Service store.
enum SecretServiceAdapter {
    /// Connects to the provider on the session bus: the store, or the error saying why there is none
    /// (no session bus, no provider). A locked keyring still gives a store (its calls throw `storeLocked`).
    /// `allowsPrompts == false` gives a store that never calls `Prompt()` (``PlatformInteraction/allowsStorePrompts``).
    static func connect(allowsPrompts: Bool) -> Result<any SecretStore, VaultError> {
        do {
            return .success(try SecretServiceStore(prompts: allowsPrompts ? .complete : .never))
        } catch {
            return .failure(explained(UnopenedStore.vaultError(error)))
        }
    }

    /// Starts the connection that ``connect()`` will then wait for (see `SecretServiceStore.prepareConnection`).
    static func prepareConnection() {
        SecretServiceStore.prepareConnection()
    }

    /// Says "no session bus" plainly when that is the cause (GIO's own text is about X11 autolaunch).
    private static func explained(_ error: VaultError) -> VaultError {
        guard !EnvironmentVariable.isSet("DBUS_SESSION_BUS_ADDRESS") else { return error }
        let words = "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)"
        // The GLib cause (domain, code) stays in the structured fields; the text leads with the words.
        if case .gError(let domain, let code, let message)? = error.underlying {
            return VaultError(error.code, underlying: .gError(domain: domain, code: code, message: "\(words); D-Bus: \(message)"))
        }
        let detail = error.underlying?.description ?? error.code.name
        return VaultError(error.code, underlying: .message("\(words): \(detail)"))
    }

    /// The store, or one that reports why it cannot be reached on every call (an explicit `--store`).
    static func makeStore(allowsPrompts: Bool) -> any SecretStore {
        switch connect(allowsPrompts: allowsPrompts) {
        case .success(let store): store
        case .failure(let error): UnopenedStore(name: "secret-service", error: error)
        }
    }

    /// The provider's state, without prompting.
    static func probe() -> PlatformComponent {
        switch SecretServiceStore.probe() {
        case .available:
            return .usable(.store, "secret-service", "a provider answers on the session bus; default collection unlocked")
        case .locked:
            // Still the store auto picks (see PlatformBackends.diagnose): unlock the keyring and retry.
            return .unusable(
                .store, "secret-service",
                VaultError(.storeLocked, underlying: .message(
                    "the default collection reports itself locked (a locked keyring, a closed wallet; KWallet reports an "
                        + "open wallet locked until a client unlocks it): commands that may prompt ask the provider to unlock "
                        + "it; or unlock it yourself and retry")))
        case .unavailable(let error):
            return .unusable(.store, "secret-service", explained(error))
        }
    }

    static func importItem(
        service: String, username: String, into id: SecretItemID, removeSource: Bool,
        converting: (SecretBytes) throws -> SecretBytes
    ) throws {
        let store = try SecretServiceStore()
        try store.importItem(service: service, username: username, as: id, removeSource: removeSource, converting: converting)
    }
}
#endif
