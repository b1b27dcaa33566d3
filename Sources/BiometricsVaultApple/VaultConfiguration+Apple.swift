#if (canImport(Security) && canImport(LocalAuthentication) && (os(iOS) || os(macOS) || os(visionOS))) || APPLE_SDK_STUBS
import BiometricsVaultCore

extension VaultConfiguration {
    /// The Keychain with LocalAuthentication: what an app on iOS, macOS or visionOS normally uses.
    ///
    /// - Parameters:
    ///   - accessGroup: a keychain access group shared with the team's other apps, or `nil`.
    ///   - synchronizable: sync plain (unprotected) items through iCloud Keychain.
    ///   - The others: as in ``VaultConfiguration/init(store:authenticator:policy:reuse:service:prompt:clock:)``.
    public static func keychain(
        policy: ProtectionPolicy = .biometryCurrentSet,
        reuse: AuthenticationReuse = .never,
        service: String = VaultConfiguration.defaultService,
        prompt: PromptText = .default,
        accessGroup: String? = nil,
        synchronizable: Bool = false
    ) -> VaultConfiguration {
        VaultConfiguration(
            store: KeychainStore(accessGroup: accessGroup, synchronizable: synchronizable),
            authenticator: LocalAuthenticator(), policy: policy, reuse: reuse, service: service, prompt: prompt)
    }
}
#endif
