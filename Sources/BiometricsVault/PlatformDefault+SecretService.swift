#if os(Linux)
import BiometricsVaultSecretService
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one place the platform default reaches the Secret Service store.
enum SecretServiceAdapter {
    /// What connecting to the Secret Service on the session bus found.
    enum Connection {
        /// A provider answered (a locked keyring still gives a store: its calls throw `storeLocked`).
        case connected(any SecretStore)
        /// There is no Secret Service here at all (``SecretServiceStore/isAbsence(_:)``): another store hides nothing.
        case absent(VaultError)
        /// A bus or provider exists but could not be used (no answer in time, another failure): items may be there.
        case failed(VaultError)
    }

    /// Connects to the provider on the session bus. `allowsPrompts == false` gives a store that never calls
    /// `Prompt()` (``PlatformInteraction/allowsStorePrompts``).
    static func connect(allowsPrompts: Bool) -> Connection {
        do {
            return .connected(try SecretServiceStore(prompts: allowsPrompts ? .complete : .never))
        } catch {
            let error = UnopenedStore.vaultError(error)
            return SecretServiceStore.isAbsence(error) ? .absent(explained(error)) : .failed(explained(error))
        }
    }

    /// The store `auto` uses when a Secret Service exists but failed: one that reports, on every call, what
    /// happened and that the file store is there for the asking. Never a silent switch to the file store:
    /// the item would land where the next read (with the Secret Service back) does not look.
    static func failedStore(_ error: VaultError) -> any SecretStore {
        UnopenedStore(name: "secret-service", error: reworded(error) {
            "\($0); a Secret Service is there (items may be in it), so `auto` does not switch stores: retry, "
                + "or pick the encrypted file store explicitly (--store file)"
        })
    }

    /// Starts the connection that ``connect()`` will then wait for (see `SecretServiceStore.prepareConnection`).
    static func prepareConnection() {
        SecretServiceStore.prepareConnection()
    }

    /// Says "no session bus" plainly when that is the cause (GIO's own text is about X11 autolaunch).
    private static func explained(_ error: VaultError) -> VaultError {
        guard !SecretServiceStore.sessionBusIsConfigured else { return error }
        return reworded(error) { "no session bus (DBUS_SESSION_BUS_ADDRESS is not set, no $XDG_RUNTIME_DIR/bus); D-Bus: \($0)" }
    }

    /// `error` with its cause's text rewritten by `text`; the GLib or D-Bus cause (domain and code, error
    /// name) stays in the structured fields.
    private static func reworded(_ error: VaultError, _ text: (String) -> String) -> VaultError {
        switch error.underlying {
        case .gError(let domain, let code, let message)?:
            return VaultError(error.code, underlying: .gError(domain: domain, code: code, message: text(message)))
        case .dbus(let name, let message)?:
            return VaultError(error.code, underlying: .dbus(name: name, message: text(message)))
        case .osStatus?, .laError?, .pam?, .errno?, .file?, .message?, .other?, nil:
            return VaultError(error.code, underlying: .message(text(error.underlying?.description ?? error.code.name)))
        }
    }

    /// The store, or one that reports why it cannot be reached on every call (an explicit `--store`).
    static func makeStore(allowsPrompts: Bool) -> any SecretStore {
        switch connect(allowsPrompts: allowsPrompts) {
        case .connected(let store): store
        case .absent(let error), .failed(let error): UnopenedStore(name: "secret-service", error: error)
        }
    }

    /// The provider's state, without prompting; selected whenever `auto` picks it, that is whenever a Secret
    /// Service exists, usable or not: a locked keyring (unlock it and retry), a bus or provider that did not
    /// answer in time (`auto` fails then, rather than switch stores).
    static func probe() -> PlatformComponent {
        switch SecretServiceStore.probe() {
        case .available:
            var component = PlatformComponent.usable(.store, "secret-service", "a provider answers on the session bus; default collection unlocked")
            component.isSelected = true
            return component
        case .locked:
            var component = PlatformComponent.unusable(
                .store, "secret-service",
                VaultError(.storeLocked, underlying: .message(
                    "the default collection reports itself locked (a locked keyring, a closed wallet; KWallet reports an "
                        + "open wallet locked until a client unlocks it): commands that may prompt ask the provider to unlock "
                        + "it; or unlock it yourself and retry")))
            component.isSelected = true
            return component
        case .unavailable(let error):
            var component = PlatformComponent.unusable(.store, "secret-service", explained(error))
            component.isSelected = !SecretServiceStore.isAbsence(error)
            return component
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
