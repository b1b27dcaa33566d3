/// Protected credentials, unlocked: this handle holds an authenticated session.
///
/// Copies of this value share the session; `lock()` on any copy ends it for all of them.
public struct BiometricsSecureVault<Credentials: Codable & Sendable>: Sendable {
    let driver: VaultDriver<Credentials>
    let session: VaultSession
    /// The policy the stored item is protected with.
    public let policy: ProtectionPolicy

    /// The credentials read (or written) when this handle was made.
    public let credentials: Credentials

    init(outcome: VaultDriver<Credentials>.Outcome, driver: VaultDriver<Credentials>) {
        guard let credentials = outcome.credentials, let session = outcome.session, let policy = outcome.policy else {
            preconditionFailure("Invalid state: an unlocked vault needs credentials, a session and a policy")
        }
        self.driver = driver
        self.session = session
        self.policy = policy
        self.credentials = credentials
    }

    /// The key this vault stores under.
    public var key: String { driver.id.key }

    /// Whether the session is still open (no copy of this handle was locked).
    public var isUnlocked: Bool {
        session.snapshot(now: driver.configuration.clock.now(), reuse: driver.configuration.reuse).isActive
    }

    /// Replaces the protected credentials, atomically, keeping the item's policy. No prompt while the
    /// session may be reused (`AuthenticationReuse.session(timeout:)`); one prompt otherwise.
    ///
    /// - Throws: `vaultLocked` after `lock()` or `lockAllSessions()`, also one that comes while this
    ///   update waits for its prompt (nothing is written), authentication errors,
    ///   `credentialsTooLarge`, store errors.
    public func update(credentials: Credentials) async throws -> BiometricsSecureVault<Credentials> {
        let outcome = try await driver.run(.update, from: handle, credentials: credentials)
        return BiometricsSecureVault(outcome: outcome, driver: driver)
    }

    /// Replaces the protected item with a plain one, atomically, and ends the session.
    ///
    /// - Throws: `vaultLocked` after `lock()` (nothing is written), store errors.
    public func downgrade() throws -> KeychainSecureVault<Credentials> {
        let outcome = try driver.run(.downgrade, from: handle, credentials: credentials)
        return KeychainSecureVault(outcome: outcome, driver: driver)
    }

    /// Ends the session for every copy of this handle. The stored item is unchanged.
    public func lock() -> LockedBiometricsSecureVault<Credentials> {
        do {
            _ = try driver.run(.lock, from: handle, credentials: nil)
        } catch {
            // Locking only ends the in-memory session; the machine defines no failure for it.
            preconditionFailure("Invalid state: lock failed: \(error)")
        }
        return LockedBiometricsSecureVault(driver: driver, policy: policy)
    }

    /// Deletes the stored credentials, ends the session and returns the now empty vault.
    public func reset() throws -> Vault<Credentials> {
        _ = try driver.run(.reset, from: handle, credentials: nil)
        return try VaultDriver<Credentials>.retrieve(key: key, configuration: driver.configuration)
    }

    /// Authenticates the owner by passcode / login password; clears a biometric lockout.
    public func reauthenticateOwner() async throws {
        _ = try await driver.run(.reauthenticateOwner, from: handle, credentials: nil)
    }

    /// This vault as a `Vault` case.
    public func wrap() -> Vault<Credentials> { .biometrics(self) }

    @available(*, deprecated, renamed: "downgrade()")
    public func downgradeToKeychain() throws -> KeychainSecureVault<Credentials> { try downgrade() }

    private var handle: VaultDriver<Credentials>.Handle { .init(kind: .biometrics, session: session, policy: policy) }
}
