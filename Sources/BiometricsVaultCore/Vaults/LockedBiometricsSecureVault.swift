/// Protected credentials, not unlocked. `unlock()` authenticates and reads them.
public struct LockedBiometricsSecureVault<Credentials: Codable & Sendable>: Sendable {
    let driver: VaultDriver<Credentials>
    /// The policy the stored item is protected with.
    public let policy: ProtectionPolicy

    init(driver: VaultDriver<Credentials>, policy: ProtectionPolicy) {
        self.driver = driver
        self.policy = policy
    }

    /// The key this vault stores under.
    public var key: String { driver.id.key }

    /// Authenticates (one prompt, or none inside a `.session(timeout:)` window) and reads the credentials.
    ///
    /// - Throws: `userCancel` / `systemCancel` (never counted as a failed attempt), `authenticationFailed`,
    ///   `biometryLockout` after five failures in a row (until `reauthenticateOwner()`), `biometryChanged`,
    ///   `corruptedItem`, store errors.
    public func unlock() async throws -> BiometricsSecureVault<Credentials> {
        let outcome = try await driver.run(.unlock, from: handle, credentials: nil)
        return BiometricsSecureVault(outcome: outcome, driver: driver)
    }

    /// Deletes the stored credentials and returns the now empty vault. No prompt.
    public func reset() throws -> Vault<Credentials> {
        _ = try driver.run(.reset, from: handle, credentials: nil)
        return try VaultDriver<Credentials>.retrieve(key: key, configuration: driver.configuration)
    }

    /// Authenticates the owner by passcode / login password; clears a biometric lockout.
    public func reauthenticateOwner() async throws {
        _ = try await driver.run(.reauthenticateOwner, from: handle, credentials: nil)
    }

    /// This vault as a `Vault` case.
    public func wrap() -> Vault<Credentials> { .locked(self) }

    private var handle: VaultDriver<Credentials>.Handle { .init(kind: .locked, session: nil, policy: policy) }
}
