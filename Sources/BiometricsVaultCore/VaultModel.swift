import Observation

/// The vault of one key as an observable model for SwiftUI: the current state, the actions of the state
/// machine as async methods, whether one is running, and the last error.
///
/// ```swift
/// @State private var model = VaultModel<AppCredentials>(key: "login", configuration: .platformDefault)
/// var body: some View {
///     switch model.screen {
///     case .signIn: SignInView(model: model)          // model.signIn(credentials:)
///     case .locked: LockedView(model: model)          // model.unlock(), model.reauthenticateOwner()
///     case .signedIn(let credentials, _): HomeView(credentials, model: model)
///     }
/// }
/// ```
/// Every action returns whether it succeeded; a failure is also kept in ``lastError`` (show
/// ``lastErrorMessage``). While an action runs (``isWorking``) other actions are refused and
/// return `false`, so a double tap cannot start two prompts. Creating the model and ``refresh()`` never prompt.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
@MainActor
@Observable
public final class VaultModel<Credentials: Codable & Sendable> {
    /// The screens of a sign-in flow.
    public enum Screen {
        /// Nothing stored: ask the user to sign in. `biometricsAvailable`: offer "protect with biometrics";
        /// `invalidation`: why an earlier sign-in is gone (enrollment changed, reinstalled, unreadable).
        case signIn(biometricsAvailable: Bool, invalidation: VaultInvalidation?)
        /// Stored behind biometrics and locked: offer `unlock()` (and `reauthenticateOwner()` after a lockout).
        case locked
        /// Signed in: the credentials are readable. `biometricsEnabled`: protected (offer `lock()`,
        /// `downgrade()`), else stored plainly (offer `upgrade()` when ``canUpgrade``).
        case signedIn(Credentials, biometricsEnabled: Bool)
    }

    /// The key the credentials are stored under.
    public let key: String
    /// The configuration the vault is retrieved through.
    @ObservationIgnored public let configuration: VaultConfiguration
    /// The current state of the vault.
    public private(set) var vault: Vault<Credentials>
    /// Whether an action is running (a prompt may be on screen).
    public private(set) var isWorking = false
    /// The error of the last action that failed; cleared when the next action starts.
    public private(set) var lastError: VaultError?

    /// Retrieves the vault (never prompts). A store that cannot be read gives the sign-in screen and
    /// ``lastError``; the item is left in place.
    public init(key: String, configuration: VaultConfiguration) {
        self.key = key
        self.configuration = configuration
        self.vault = VaultFactory<Credentials>.retrieveVault(key: key, configuration: configuration)
        self.lastError = Self.unreadableError(of: vault)
    }

    /// The screen to show for the current state.
    public var screen: Screen {
        switch vault {
        case .emptyWithBiometrics(let empty): .signIn(biometricsAvailable: true, invalidation: empty.invalidation)
        case .empty(let empty): .signIn(biometricsAvailable: false, invalidation: empty.invalidation)
        case .keychain(let stored), .keychainUpgradable(let stored): .signedIn(stored.credentials, biometricsEnabled: false)
        case .biometrics(let unlocked): .signedIn(unlocked.credentials, biometricsEnabled: true)
        case .locked: .locked
        }
    }

    /// ``lastError`` in user words, naming this device's biometry ("Face ID is locked after too many
    /// attempts."), for an alert.
    public var lastErrorMessage: VaultUserMessage? {
        lastError?.userMessage(biometryType: configuration.authenticator.biometryType)
    }

    /// The credentials when readable without a prompt (signed in), else `nil`.
    public var credentials: Credentials? { try? vault.credentials }

    /// Whether the plainly stored credentials can be moved behind biometrics.
    public var canUpgrade: Bool {
        switch vault {
        case .keychainUpgradable: true
        case .emptyWithBiometrics, .empty, .keychain, .biometrics, .locked: false
        }
    }

    // MARK: Actions

    /// Retrieves the vault again (never prompts), e.g. when the app returns to the foreground after
    /// ``VaultConfiguration/lockAllSessions()``. Refused while an action runs.
    @discardableResult
    public func refresh() -> Bool {
        guard !isWorking else { return false }
        vault = VaultFactory<Credentials>.retrieveVault(key: key, configuration: configuration)
        lastError = Self.unreadableError(of: vault)
        return true
    }

    /// Signs in: stores `credentials` behind biometrics (one prompt) when `useBiometrics` and the device
    /// offers them, else plainly.
    @discardableResult
    public func signIn(credentials: Credentials, useBiometrics: Bool = true) async -> Bool {
        await perform { vault in
            if useBiometrics, case .emptyWithBiometrics = vault {
                return try await vault.storeToBiometrics(credentials: credentials)
            }
            return try vault.storeToKeychain(credentials: credentials)
        }
    }

    /// Unlocks the protected credentials (one prompt, none inside a `.session(timeout:)` window).
    @discardableResult
    public func unlock() async -> Bool {
        await perform { vault in try await vault.unlock() }
    }

    /// Replaces the stored credentials (no prompt while a session may be reused).
    @discardableResult
    public func update(credentials: Credentials) async -> Bool {
        await perform { vault in try await vault.update(credentials: credentials) }
    }

    /// Moves plainly stored credentials behind biometrics (one prompt).
    @discardableResult
    public func upgrade() async -> Bool {
        await perform { vault in try await vault.upgrade() }
    }

    /// Stores the protected credentials plainly again and ends the session.
    @discardableResult
    public func downgrade() async -> Bool {
        await perform { vault in try vault.downgrade() }
    }

    /// Ends this vault's session (a locked vault stays locked).
    @discardableResult
    public func lock() async -> Bool {
        await perform { vault in try vault.lock() }
    }

    /// Deletes the stored credentials (sign out).
    @discardableResult
    public func reset() async -> Bool {
        await perform { vault in try vault.reset() }
    }

    /// Authenticates the owner by passcode / login password, clearing a biometric lockout. The state
    /// does not change; `unlock()` works again afterwards.
    @discardableResult
    public func reauthenticateOwner() async -> Bool {
        await perform { vault in
            try await vault.reauthenticateOwner()
            return vault
        }
    }

    /// Forgets ``lastError`` (the app showed it).
    public func clearError() {
        lastError = nil
    }

    // MARK: Private

    private func perform(_ operation: (Vault<Credentials>) async throws -> Vault<Credentials>) async -> Bool {
        guard !isWorking else { return false }
        isWorking = true
        lastError = nil
        defer { isWorking = false }
        do {
            vault = try await operation(vault)
            return true
        } catch {
            let failure = VaultError.wrapping(error, as: .authenticationFailed)
            // These say the stored item is not what this handle thought: show what is there now.
            let stateChanged: Set<VaultError.Code> = [.biometryChanged, .itemNotFound, .invalidVault, .vaultLocked]
            if stateChanged.contains(failure.code) {
                vault = VaultFactory<Credentials>.retrieveVault(key: key, configuration: configuration)
            }
            lastError = failure
            return false
        }
    }

    private static func unreadableError(of vault: Vault<Credentials>) -> VaultError? {
        if case .unreadable(let error) = vault.invalidation { return error }
        return nil
    }
}
