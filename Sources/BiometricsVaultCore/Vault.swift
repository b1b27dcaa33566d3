/// A vault for one key, in one of six states. Get one from ``VaultFactory``, switch over it, and call
/// the operation the state offers; each operation returns the next state.
///
/// ```
/// EmptyVault ──storeToKeychain──▶ KeychainSecureVault ──upgrade──▶ BiometricsSecureVault ──lock()──▶ Locked…
///     └──────storeToBiometrics───────────────────────────────────▶     ▲ ◀──downgrade── │   ◀──unlock()──┘
/// ```
public enum Vault<Credentials: Codable & Sendable>: Sendable {
    /// Nothing stored; biometrics (the configured policy) can be offered.
    case emptyWithBiometrics(EmptyVault<Credentials>)
    /// Nothing stored; no usable biometrics here.
    case empty(EmptyVault<Credentials>)
    /// Stored plainly; biometrics unavailable.
    case keychain(KeychainSecureVault<Credentials>)
    /// Stored plainly; `upgrade()` possible.
    case keychainUpgradable(KeychainSecureVault<Credentials>)
    /// Protected, and this handle is unlocked.
    case biometrics(BiometricsSecureVault<Credentials>)
    /// Protected; `unlock()` to read.
    case locked(LockedBiometricsSecureVault<Credentials>)
}

extension Vault {
    /// The state, without its payload.
    public var kind: VaultStateKind {
        switch self {
        case .emptyWithBiometrics, .empty: .empty
        case .keychain, .keychainUpgradable: .keychain
        case .biometrics: .biometrics
        case .locked: .locked
        }
    }

    /// The key this vault stores under.
    public var key: String {
        switch self {
        case .emptyWithBiometrics(let vault), .empty(let vault): vault.key
        case .keychain(let vault), .keychainUpgradable(let vault): vault.key
        case .biometrics(let vault): vault.key
        case .locked(let vault): vault.key
        }
    }

    /// The credentials, where readable without a prompt (`.keychain*`, `.biometrics`).
    ///
    /// - Throws: `invalidVault` in the other states.
    public var credentials: Credentials {
        get throws {
            switch self {
            case .keychain(let vault), .keychainUpgradable(let vault): return vault.credentials
            case .biometrics(let vault): return vault.credentials
            case .emptyWithBiometrics, .empty, .locked: throw invalid("credentials")
            }
        }
    }

    /// Whether the credentials are protected (`.biometrics` or `.locked`).
    public var biometricsEnabled: Bool {
        switch self {
        case .biometrics, .locked: true
        case .emptyWithBiometrics, .empty, .keychain, .keychainUpgradable: false
        }
    }

    /// Why credentials stored earlier are gone (empty states only).
    public var invalidation: VaultInvalidation? {
        switch self {
        case .emptyWithBiometrics(let vault), .empty(let vault): vault.invalidation
        case .keychain, .keychainUpgradable, .biometrics, .locked: nil
        }
    }

    /// `EmptyVault.storeToKeychain(credentials:)`; `invalidVault` in other states.
    public func storeToKeychain(credentials: Credentials) throws -> Vault {
        switch self {
        case .emptyWithBiometrics(let vault), .empty(let vault):
            return try vault.storeToKeychain(credentials: credentials).wrap()
        case .keychain, .keychainUpgradable, .biometrics, .locked: throw invalid("storeToKeychain")
        }
    }

    /// `EmptyVault.storeToBiometrics(credentials:)`; `invalidVault` in other states.
    public func storeToBiometrics(credentials: Credentials) async throws -> Vault {
        switch self {
        case .emptyWithBiometrics(let vault), .empty(let vault):
            return try await vault.storeToBiometrics(credentials: credentials).wrap()
        case .keychain, .keychainUpgradable, .biometrics, .locked: throw invalid("storeToBiometrics")
        }
    }

    /// `update(credentials:)` of a keychain or unlocked vault; `invalidVault` in other states.
    public func update(credentials: Credentials) async throws -> Vault {
        switch self {
        case .keychain(let vault), .keychainUpgradable(let vault): return try vault.update(credentials: credentials).wrap()
        case .biometrics(let vault): return try await vault.update(credentials: credentials).wrap()
        case .emptyWithBiometrics, .empty, .locked: throw invalid("update")
        }
    }

    /// `KeychainSecureVault.upgrade()`; `invalidVault` in other states.
    public func upgrade() async throws -> Vault {
        switch self {
        case .keychain(let vault), .keychainUpgradable(let vault): return try await vault.upgrade().wrap()
        case .emptyWithBiometrics, .empty, .biometrics, .locked: throw invalid("upgrade")
        }
    }

    /// `BiometricsSecureVault.downgrade()`; `invalidVault` in other states.
    public func downgrade() throws -> Vault {
        switch self {
        case .biometrics(let vault): return try vault.downgrade().wrap()
        case .emptyWithBiometrics, .empty, .keychain, .keychainUpgradable, .locked: throw invalid("downgrade")
        }
    }

    /// `BiometricsSecureVault.lock()`; a locked vault stays locked; `invalidVault` in other states.
    public func lock() throws -> Vault {
        switch self {
        case .biometrics(let vault): return vault.lock().wrap()
        case .locked: return self
        case .emptyWithBiometrics, .empty, .keychain, .keychainUpgradable: throw invalid("lock")
        }
    }

    /// `LockedBiometricsSecureVault.unlock()`; `invalidVault` in other states.
    public func unlock() async throws -> Vault {
        switch self {
        case .locked(let vault): return try await vault.unlock().wrap()
        case .emptyWithBiometrics, .empty, .keychain, .keychainUpgradable, .biometrics: throw invalid("unlock")
        }
    }

    /// Deletes the stored credentials from any state and returns the empty vault.
    public func reset() throws -> Vault {
        switch self {
        case .emptyWithBiometrics(let vault), .empty(let vault): return try vault.reset()
        case .keychain(let vault), .keychainUpgradable(let vault): return try vault.reset()
        case .biometrics(let vault): return try vault.reset()
        case .locked(let vault): return try vault.reset()
        }
    }

    /// Owner authentication (passcode / login password) from a protected state; `invalidVault` otherwise.
    public func reauthenticateOwner() async throws {
        switch self {
        case .biometrics(let vault): try await vault.reauthenticateOwner()
        case .locked(let vault): try await vault.reauthenticateOwner()
        case .emptyWithBiometrics, .empty, .keychain, .keychainUpgradable: throw invalid("reauthenticateOwner")
        }
    }

    @available(*, deprecated, renamed: "storeToBiometrics(credentials:)")
    public func storeWithBiometrics(credentials: Credentials) async throws -> Vault {
        try await storeToBiometrics(credentials: credentials)
    }

    @available(*, deprecated, renamed: "upgrade()")
    public func upgradeWithBiometrics() async throws -> Vault { try await upgrade() }

    @available(*, deprecated, renamed: "upgrade()")
    public func upgradeToBiometrics() async throws -> Vault { try await upgrade() }

    @available(*, deprecated, renamed: "downgrade()")
    public func downgradeToKeychain() throws -> Vault { try downgrade() }

    private func invalid(_ operation: String) -> VaultError {
        VaultError(.invalidVault, underlying: .message("\(operation) does not apply to a \(kind.rawValue) vault"))
    }
}
