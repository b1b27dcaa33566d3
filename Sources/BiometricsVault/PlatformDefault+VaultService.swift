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
    /// With `failed`, a store that throws it (with the way out) on every call: the service is installed
    /// and did not answer, and it may hold the items.
    static func select(
        authenticator choice: PlatformAuthenticatorChoice, service: String, interaction: PlatformInteraction,
        failed: VaultError? = nil
    ) -> PlatformSelection {
        let authenticator: any Authenticator = choice == .none
            ? UnavailableAuthenticator(reason: VaultError(.biometryNotAvailable, underlying: .message("biometrics not used (--authenticator none)")), owner: nil)
            : VaultServiceAuthenticator(
                startsTerminalAgent: interaction.hasTerminal, service: service, windowSeconds: interaction.unlockWindowSeconds ?? 0)
        let store: any SecretStore = failed.map { error in
            UnopenedStore(name: "service", error: VaultError(error.code, underlying: .message(
                "\(error.underlying?.description ?? error.code.name); the vault service is installed (its items may be "
                    + "there), so `auto` does not switch stores: retry, or pick another store explicitly (--store file)")))
        } ?? VaultServiceStore()
        // The service's password check needs an agent for this process: the CLI's text agent on a
        // terminal, or the desktop's.
        let canAskPassword = choice != .none && (interaction.hasTerminal || LinuxAuthAdapter.hasGraphicalSession)
        return PlatformSelection(
            configuration: VaultConfiguration(store: store, authenticator: authenticator, service: service),
            storeName: store.name, authenticatorName: choice == .none ? "none" : "service",
            ownerAuthenticationName: canAskPassword ? "service" : "none", fingerprintTimeout: .seconds(30), notice: nil)
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

#if os(Linux)
/// The vault service's unlock windows and audit log, for the CLI's `lock`, `audit` and `status`.
package enum VaultServiceControls {
    /// Closes every unlock window of this user in the service; 0 when the service is not installed.
    package static func lock() throws(VaultError) -> Int {
        switch VaultServiceAdapter.presence() {
        case .answers: return try VaultServiceAuthenticator.lock()
        case .absent: return 0
        case .failed(let error): throw error
        }
    }

    /// This user's audit entries since `since` (seconds since the epoch): JSON objects, oldest first.
    package static func audit(since: Int64) throws(VaultError) -> [String] {
        switch VaultServiceAdapter.presence() {
        case .answers: return try VaultServiceAuthenticator.audit(since: since)
        case .absent(let error), .failed(let error): throw error
        }
    }

    /// Opens a window of the service for this process and its descendants (`unlock --for-command`, which
    /// then becomes the command), for `seconds`, after the service's own prompt: a finger when the reader
    /// can be asked, else the password through polkit. `fingerCheckStarted` is called when the service
    /// begins a finger check for it.
    package static func openCommandWindow(
        service: String, seconds: Int, reason: String, hasTerminal: Bool, fingerCheckStarted: @escaping @Sendable () -> Void
    ) async throws {
        if case .absent(let error) = VaultServiceAdapter.presence() { throw error }
        if case .failed(let error) = VaultServiceAdapter.presence() { throw error }
        let authenticator = VaultServiceAuthenticator(
            startsTerminalAgent: hasTerminal, service: service, windowSeconds: seconds, windowScope: .command)
        _ = try await authenticator.authenticate(for: .userPresence, prompt: PromptText(reason: reason)) { check in
            if check == .finger { fingerCheckStarted() }
        }
    }

    /// This process as the service sees it (its name, `argv[0]` and parents), for the fingerprint
    /// prompt: from the `Status` the read asked before prompting; `nil` when there was none.
    package static func caller() -> String? {
        VaultServiceAuthenticator.caller
    }

    /// The service's open windows for this process's terminal session: item service, policy, seconds
    /// left; `nil` when the service does not answer.
    package static func windows() -> [(service: String, policy: String, seconds: Int)]? {
        guard case .answers = VaultServiceAdapter.presence(), let status = try? VaultServiceAuthenticator.status() else { return nil }
        return status.windows.map { ($0.service, $0.policy, $0.seconds) }
    }
}
#endif
