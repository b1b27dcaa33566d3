// The platform default's entry points: which store and which authenticator a vault uses when the app
// does not say, and the diagnosis behind that choice (`biometrics-vault doctor` prints it).
//
// The choices (`PlatformChoices.swift`), the interaction (`PlatformInteraction.swift`), the result
// (`PlatformSelection.swift`), the diagnosis (`PlatformDiagnosis.swift`), the once-per-process cache
// (`PlatformDefaultCache.swift`) and the logger that hears its fallback (`PlatformDefault+Logger.swift`) have files of
// their own. The platform-specific probing lives in `PlatformDefault+Linux.swift` /
// `PlatformDefault+Other.swift`; each backend is reached through one small adapter file
// (`PlatformDefault+FileStore.swift`, ...).

extension VaultConfiguration {
    /// The platform default configuration, with ``defaultService``.
    ///
    /// Linux: the Secret Service on the session bus; the encrypted file store only when there is none (no
    /// session bus, nothing at its address, no provider), said to the logger of ``platformDefault(logger:)``;
    /// a bus or provider that exists but fails (no answer in time) makes the store's operations fail with
    /// `storeUnavailable` instead of switching stores; fprintd when it has a device with enrolled
    /// fingers for the user, locked out or not (protected items then read as locked), else an authenticator reporting biometrics unavailable (vaults are `.empty` /
    /// `.keychain`); owner authentication by PAM on a terminal, polkit where a desktop agent exists.
    /// iOS, macOS, visionOS: the Keychain with LocalAuthentication. Other platforms: the encrypted file store
    /// without biometrics.
    ///
    /// Probed once per process; copies share one session registry. The first call selects (which may ask
    /// for the file store's passphrase on the terminal); calls from other threads meanwhile wait for that
    /// selection with no lock held.
    public static var platformDefault: VaultConfiguration {
        PlatformDefaultCache.shared.configuration
    }

    /// A configuration for explicit (or automatic) store and authenticator choices, as the CLI's
    /// `--store` / `--authenticator` flags select them.
    ///
    /// An explicit choice is used even when it is not usable here: its operations then fail with the
    /// backend's exact error (for example `storeUnavailable` "no session bus"). `auto` probes and picks
    /// the store that exists, reporting a fallback in ``PlatformSelection/notice``.
    public static func platform(
        store: PlatformStoreChoice = .auto,
        authenticator: PlatformAuthenticatorChoice = .auto,
        service: String = VaultConfiguration.defaultService,
        interaction: PlatformInteraction = .terminal
    ) -> PlatformSelection {
        PlatformBackends.select(store: store, authenticator: authenticator, service: service, interaction: interaction)
    }

    /// Starts connecting, on another thread, to the store that ``platform(store:authenticator:service:interaction:)``
    /// with this `store` choice will use, and returns at once; that call then waits for this connection
    /// instead of opening its own.
    ///
    /// For a program that knows early which store it will use and has work to do before it asks
    /// (the CLI parses its command line meanwhile). Linux: the Secret Service for `auto` and
    /// `secretService` (its bus connection and encrypted session); if it cannot be reached, `platform`
    /// tries again and falls back or reports as usual. Nothing for `file`, nor on other platforms.
    public static func prepareStore(_ store: PlatformStoreChoice = .auto) {
        PlatformBackends.prepareStore(store)
    }

    /// Probes every store and authenticator of this platform, without prompting (`biometrics-vault doctor`).
    package static func platformDiagnosis(interaction: PlatformInteraction = .terminal) -> PlatformDiagnosis {
        PlatformBackends.diagnose(interaction: interaction)
    }
}

extension VaultFactory {
    /// The vault for `key` under ``VaultConfiguration/platformDefault``, without prompting.
    ///
    /// - Important: Cannot report errors (see ``retrieveVault(key:configuration:)``); prefer
    ///   ``retrieveVaultOrThrow(key:)``.
    public static func retrieveVault(key: String) -> Vault<Credentials> {
        retrieveVault(key: key, configuration: .platformDefault)
    }

    /// Like ``retrieveVault(key:)``, but throws `invalidKey`, `storeUnavailable`, `storeLocked` and
    /// `corruptedItem` instead of calling them empty.
    ///
    /// Also throws `itemNotFound` where the platform default is the vault service (Linux, once it is
    /// installed), nothing is stored under `key` there, and the store the platform default used before
    /// holds it (the Secret Service, or the file store): the message names that store. The app's user
    /// is then not logged out: read the item there (``VaultConfiguration/platform(store:authenticator:service:interaction:)``
    /// with that store) and store it again under the platform default, with its protection, once
    /// (`biometrics-vault import --from-store` moves a user's items itself).
    public static func retrieveVaultOrThrow(key: String) throws -> Vault<Credentials> {
        let vault = try retrieveVaultOrThrow(key: key, configuration: .platformDefault)
        if vault.kind == .empty, vault.invalidation == nil,
            let earlier = VaultConfiguration.earlierStore(
                holding: key, service: VaultConfiguration.defaultService, defaultStore: PlatformDefaultCache.shared.storeName)
        {
            throw VaultError(.itemNotFound, underlying: .message(
                "nothing is stored under this key in the vault service, which the platform default uses since it was installed; "
                    + "the \(earlier == .file ? "file store" : "Secret Service") holds it: read it with VaultConfiguration.platform(store: .\(earlier == .file ? "file" : "secretService")) "
                    + "and store it again, or run `biometrics-vault import --from-store \(earlier.rawValue)`"))
        }
        return vault
    }
}

extension VaultConfiguration {
    /// Where `auto` picks the vault service (`defaultStore` is `service`): the store it picked before the
    /// service was installed that holds `key` of `service`, the Secret Service first, then the file
    /// store; `nil` when `auto` picks another store or neither holds it. Only the item's header is read,
    /// never its secret, and nothing prompts: a locked keyring or a store behind a passphrase counts as
    /// not holding it.
    package static func earlierStore(holding key: String, service: String, defaultStore: String) -> PlatformStoreChoice? {
        guard defaultStore == "service", let id = try? SecretItemID(service: service, key: key) else { return nil }
        var interaction = PlatformInteraction.noninteractive
        interaction.allowsStorePrompts = false
        for choice in [PlatformStoreChoice.secretService, .file] {
            let earlier = platform(store: choice, authenticator: .none, service: service, interaction: interaction)
            if (try? earlier.configuration.store.read(id, authorization: nil)) != nil { return choice }
        }
        return nil
    }
}
