#if !os(Linux)
import Foundation

/// The platform default outside Linux: the native Keychain and LocalAuthentication where this package
/// has them (``NativeBackend``), else the encrypted file store without biometrics or owner authentication.
enum PlatformBackends {
    static func select(
        store storeChoice: PlatformStoreChoice,
        authenticator authenticatorChoice: PlatformAuthenticatorChoice,
        service: String,
        interaction: PlatformInteraction,
        preparesProbes: Bool = false  // LocalAuthentication's probes are local and quick: nothing to prepare
    ) -> PlatformSelection {
        let store: any SecretStore
        switch storeChoice {
        case .auto: store = NativeBackend.store ?? FileStoreAdapter.makeStore(interaction: interaction)
        case .file: store = FileStoreAdapter.makeStore(interaction: interaction)
        case .secretService, .service: store = UnsupportedStore(name: storeChoice.rawValue)
        }
        let native = authenticatorChoice == .auto ? NativeBackend.authenticator : nil
        let authenticator: any Authenticator =
            native ?? UnavailableAuthenticator(reason: unsupported("\(authenticatorChoice.rawValue) authenticator"))
        return PlatformSelection(
            configuration: VaultConfiguration(store: store, authenticator: authenticator, service: service),
            storeName: store.name, authenticatorName: native == nil ? "none" : NativeBackend.authenticatorName,
            ownerAuthenticationName: native == nil ? "none" : NativeBackend.authenticatorName,
            fingerprintTimeout: nil, notice: nil)
    }

    /// The Keychain and the file store need no connection: nothing to start.
    static func prepareStore(_ storeChoice: PlatformStoreChoice) {}

    static func diagnose(interaction: PlatformInteraction) -> PlatformDiagnosis {
        var file = FileStoreAdapter.probe(tpm: interaction.tpm)
        var native: [PlatformComponent] = []
        if NativeBackend.store != nil {
            native.append(PlatformComponent(
                role: .store, name: NativeBackend.storeName, isUsable: true, detail: "the system keychain",
                isSelected: true))
        } else {
            file.isSelected = true
        }
        if let authenticator = NativeBackend.authenticator {
            let availability = authenticator.availability(for: .biometryCurrentSet)
            var component: PlatformComponent
            switch availability {
            case .available:
                component = .usable(.authenticator, NativeBackend.authenticatorName, "\(authenticator.biometryType.rawValue)")
            case .unavailable(let error):
                component = .unusable(.authenticator, NativeBackend.authenticatorName, error)
            }
            component.isSelected = true
            native.append(component)
        }
        return PlatformDiagnosis(components: native + [
            .unusable(.store, "secret-service", unsupported("the Secret Service")),
            file,
            .unusable(.authenticator, "fprintd", unsupported("fprintd")),
            .unusable(.ownerAuthentication, "pam", unsupported("PAM owner authentication")),
            .unusable(.ownerAuthentication, "polkit", unsupported("polkit")),
        ])
    }

    static func importItem(
        service: String, username: String, into id: SecretItemID, removeSource: Bool,
        converting: (SecretBytes) throws -> SecretBytes
    ) throws {
        throw unsupported("the Secret Service")
    }

    private static func unsupported(_ what: String) -> VaultError {
        VaultError(.biometryNotAvailable, underlying: .message("\(what) is Linux only"))
    }
}

/// The Secret Service store requested where there is none.
private struct UnsupportedStore: SecretStore {
    let name: String
    private var error: VaultError { VaultError(.storeUnavailable, underlying: .message("the \(name) store is Linux only")) }
    func read(_ id: SecretItemID, authorization: Authorization?) throws -> StoredItem? { throw error }
    func write(_ item: StoredItem, for id: SecretItemID, if condition: WriteCondition, authorization: Authorization?) throws {
        throw error
    }
    func delete(_ id: SecretItemID) throws { throw error }
    func keys(service: String) throws -> [String] { throw error }
}

/// No terminal prompts outside Linux yet.
enum TerminalPrompt {
    static var isAvailable: Bool { false }
    static func show(_ text: String) {}
    static func readSecret(prompt: String) -> SecretBytes? { nil }
}
#endif
