#if os(Linux)
import BiometricsVaultService

/// The one place the platform default reaches the vault service.
enum VaultServiceAdapter {
    /// Whether the vault service answers on the system bus (a ping, which D-Bus activation answers by
    /// starting it): `.absent` when it is not installed or there is no system bus, `.failed` when it is
    /// there and failed (a service that may hold the items: never a silent switch to another store).
    enum Presence {
        case answers
        case absent(VaultError)
        case failed(VaultError)
    }

    static func presence() -> Presence {
        switch VaultServiceStore.ping() {
        case .answered: .answers
        case .absent(let error): .absent(error)
        case .failed(let error): .failed(error)
        }
    }

    /// The store and its authenticator (`--authenticator none` keeps items plain: no authenticator).
    static func select(
        authenticator choice: PlatformAuthenticatorChoice, service: String, interaction: PlatformInteraction,
        notice: String? = nil
    ) -> PlatformSelection {
        let authenticator: any Authenticator = choice == .none
            ? UnavailableAuthenticator(reason: VaultError(.biometryNotAvailable, underlying: .message("biometrics not used (--authenticator none)")), owner: nil)
            : VaultServiceAuthenticator(startsTerminalAgent: interaction.hasTerminal)
        let store = VaultServiceStore()
        // The service's password check needs an agent for this process: the CLI's text agent on a
        // terminal, or the desktop's.
        let canAskPassword = choice != .none && (interaction.hasTerminal || LinuxAuthAdapter.hasGraphicalSession)
        return PlatformSelection(
            configuration: VaultConfiguration(store: store, authenticator: authenticator, service: service),
            storeName: store.name, authenticatorName: choice == .none ? "none" : "service",
            ownerAuthenticationName: canAskPassword ? "service" : "none", fingerprintTimeout: .seconds(30), notice: notice)
    }

    /// What `doctor` shows: whether the service answers, and what it says about this user's reader.
    static func probe() -> PlatformComponent {
        switch presence() {
        case .answers:
            var component = PlatformComponent.usable(.store, "service", "the vault service answers on the system bus")
            component.isSelected = true
            return component
        case .absent(let error), .failed(let error):
            return .unusable(.store, "service", error)
        }
    }
}
#endif
