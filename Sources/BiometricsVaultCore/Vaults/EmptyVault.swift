/// Nothing is stored for the key. Store credentials plainly or behind biometrics.
public struct EmptyVault<Credentials: Codable & Sendable>: Sendable {
    let driver: VaultDriver<Credentials>

    /// Why credentials stored earlier are gone, if they were (e.g. `.biometryChanged`).
    public let invalidation: VaultInvalidation?

    /// Whether the configured policy can be evaluated here (`.emptyWithBiometrics`).
    public let biometricsAvailable: Bool

    /// The header of the invalidated item this vault was retrieved over: a store may replace exactly
    /// that item, nothing another process stored since.
    let invalidatedHeader: ItemHeader?

    init(
        driver: VaultDriver<Credentials>, invalidation: VaultInvalidation?, biometricsOffered: Bool,
        invalidatedHeader: ItemHeader? = nil
    ) {
        self.driver = driver
        self.invalidation = invalidation
        self.biometricsAvailable = biometricsOffered
        self.invalidatedHeader = invalidatedHeader
    }

    /// The key this vault stores under.
    public var key: String { driver.id.key }

    /// Stores `credentials` without biometric protection (readable without a prompt).
    ///
    /// - Throws: `invalidKey`, `credentialsTooLarge`, `encodingFailed`, store errors. Nothing is written
    ///   on error.
    public func storeToKeychain(credentials: Credentials) throws -> KeychainSecureVault<Credentials> {
        let outcome = try driver.run(.storeToKeychain, from: handle, credentials: credentials)
        return KeychainSecureVault(outcome: outcome, driver: driver)
    }

    /// Authenticates (one prompt) and stores `credentials` under the configured policy.
    ///
    /// - Throws: the authenticator's errors (`userCancel`, `authenticationFailed`, `biometryLockout`,
    ///   `biometryNotEnrolled`, ...), `credentialsTooLarge`, store errors. Nothing is written on error.
    public func storeToBiometrics(credentials: Credentials) async throws -> BiometricsSecureVault<Credentials> {
        let outcome = try await driver.run(.storeToBiometrics, from: handle, credentials: credentials)
        return BiometricsSecureVault(outcome: outcome, driver: driver)
    }

    /// Deletes whatever is stored for the key (an unreadable or invalidated item) and retrieves again.
    public func reset() throws -> Vault<Credentials> {
        _ = try driver.run(.reset, from: handle, credentials: nil)
        return try VaultDriver<Credentials>.retrieve(key: key, configuration: driver.configuration)
    }

    /// This vault as a `Vault` case.
    public func wrap() -> Vault<Credentials> {
        biometricsAvailable ? .emptyWithBiometrics(self) : .empty(self)
    }

    @available(*, deprecated, renamed: "storeToBiometrics(credentials:)")
    public func storeWithBiometrics(credentials: Credentials) async throws -> BiometricsSecureVault<Credentials> {
        try await storeToBiometrics(credentials: credentials)
    }

    private var handle: VaultDriver<Credentials>.Handle {
        .init(kind: .empty, session: nil, policy: nil, invalidatedHeader: invalidatedHeader)
    }
}
