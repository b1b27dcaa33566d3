#if !os(Linux)
import Foundation

/// The platform default outside Linux until a native backend is wired here: the encrypted file store,
/// without biometrics or owner authentication.
enum PlatformBackends {
    static func select(
        store storeChoice: PlatformStoreChoice,
        authenticator authenticatorChoice: PlatformAuthenticatorChoice,
        service: String,
        interaction: PlatformInteraction
    ) -> PlatformSelection {
        let store: any SecretStore =
            storeChoice == .secretService ? UnsupportedStore() : FileStoreAdapter.makeStore()
        let authenticator = UnavailableAuthenticator(reason: unsupported("\(authenticatorChoice.rawValue) authenticator"))
        return PlatformSelection(
            configuration: VaultConfiguration(store: store, authenticator: authenticator, service: service),
            storeName: store.name, authenticatorName: "none", ownerAuthenticationName: "none",
            fingerprintTimeout: nil, notice: nil)
    }

    static func diagnose(interaction: PlatformInteraction) -> PlatformDiagnosis {
        var file = FileStoreAdapter.probe()
        file.isSelected = true
        return PlatformDiagnosis(components: [
            .unusable(.store, "secret-service", unsupported("the Secret Service")),
            file,
            .unusable(.authenticator, "fprintd", unsupported("fprintd")),
            .unusable(.ownerAuthentication, "pam", unsupported("PAM owner authentication")),
            .unusable(.ownerAuthentication, "polkit", unsupported("polkit")),
        ])
    }

    static func importItem(service: String, username: String, into id: SecretItemID, removeSource: Bool) throws {
        throw unsupported("the Secret Service")
    }

    private static func unsupported(_ what: String) -> VaultError {
        VaultError(.biometryNotAvailable, underlying: .message("\(what) is Linux only"))
    }
}

/// The Secret Service store requested where there is none.
private struct UnsupportedStore: SecretStore {
    var name: String { "secret-service" }
    private var error: VaultError { VaultError(.storeUnavailable, underlying: .message("the Secret Service is Linux only")) }
    func read(_ id: SecretItemID, authorization: Authorization?) throws -> StoredItem? { throw error }
    func write(_ item: StoredItem, for id: SecretItemID, authorization: Authorization?) throws { throw error }
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
