/// Credentials stored without biometric protection, readable without a prompt.
public struct KeychainSecureVault<Credentials: Codable & Sendable>: Sendable {
    let driver: VaultDriver<Credentials>

    /// The stored credentials, as read when this handle was made.
    public let credentials: Credentials

    /// Whether biometrics (or the configured policy) can be evaluated here (`.keychainUpgradable`).
    public let upgradable: Bool

    init(driver: VaultDriver<Credentials>, credentials: Credentials, upgradable: Bool) {
        self.driver = driver
        self.credentials = credentials
        self.upgradable = upgradable
    }

    init(outcome: VaultDriver<Credentials>.Outcome, driver: VaultDriver<Credentials>) {
        guard let credentials = outcome.credentials else { preconditionFailure("Invalid state: no credentials") }
        let upgradable = driver.configuration.authenticator.availability(for: driver.configuration.policy).isAvailable
        self.init(driver: driver, credentials: credentials, upgradable: upgradable)
    }

    /// The key this vault stores under.
    public var key: String { driver.id.key }

    /// Replaces the stored credentials (atomically).
    ///
    /// - Throws: `credentialsTooLarge`, `invalidVault` if another handle protected the item meanwhile,
    ///   store errors. On error the old credentials stay stored.
    public func update(credentials: Credentials) throws -> KeychainSecureVault<Credentials> {
        let outcome = try driver.run(.update, from: handle, credentials: credentials)
        return KeychainSecureVault(outcome: outcome, driver: driver)
    }

    /// Authenticates (one prompt) and replaces the plain item with a protected one, atomically: on any
    /// failure the plain item is still there; on success no plain copy remains.
    public func upgrade() async throws -> BiometricsSecureVault<Credentials> {
        let outcome = try await driver.run(.upgrade, from: handle, credentials: credentials)
        return BiometricsSecureVault(outcome: outcome, driver: driver)
    }

    /// Deletes the stored credentials and returns the now empty vault.
    public func reset() throws -> Vault<Credentials> {
        _ = try driver.run(.reset, from: handle, credentials: nil)
        return try VaultDriver<Credentials>.retrieve(key: key, configuration: driver.configuration)
    }

    /// This vault as a `Vault` case.
    public func wrap() -> Vault<Credentials> {
        upgradable ? .keychainUpgradable(self) : .keychain(self)
    }

    @available(*, deprecated, renamed: "upgrade()")
    public func upgradeWithBiometrics() async throws -> BiometricsSecureVault<Credentials> { try await upgrade() }

    @available(*, deprecated, renamed: "upgrade()")
    public func upgradeToBiometrics() async throws -> BiometricsSecureVault<Credentials> { try await upgrade() }

    private var handle: VaultDriver<Credentials>.Handle { .init(kind: .keychain, session: nil, policy: nil) }
}
