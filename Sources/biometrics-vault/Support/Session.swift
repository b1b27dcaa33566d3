import BiometricsVault
import BiometricsVaultJSON
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The configuration one invocation works with, built by the library from the global flags.
struct Session {
    let options: GlobalOptions
    let selection: PlatformSelection
    let configuration: VaultConfiguration

    /// - Parameter probesAvailability: `false` for commands that only read (see
    ///   ``FingerprintPromptAuthenticator/init(wrapping:timeout:probesAvailability:prompt:)``).
    /// - Parameter announcesStore: `false` for the credential helpers, which write nothing on stderr
    ///   unless something failed (``StoreNotice``).
    /// - Parameter allowsStorePrompts: `false` for commands that never prompt (`status`): the store never
    ///   shows the provider's unlock dialog and reports a locked keyring or closed wallet as `storeLocked`.
    init(options: GlobalOptions, probesAvailability: Bool = true, announcesStore: Bool = true, allowsStorePrompts: Bool = true) {
        self.options = options
        let storeSecret = StdinStoreSecret(pin: options.pinStdin, passphrase: options.passphraseStdin)
        var interaction = storeSecret.interaction
        interaction.allowsStorePrompts = allowsStorePrompts
        interaction.storeKeyKeeper = UnlockWindowHook.storeKeyKeeper(options: options)
        interaction.unlockWindowSeconds = UnlockWindowHook.windowSeconds(options)
        interaction.tpm = TPMSettings.current
        var selection = VaultConfiguration.platform(
            store: options.store.choice, authenticator: options.authenticator.choice, service: options.service,
            interaction: interaction)
        storeSecret.finish()
        if let notice = StoreNotice.line(for: selection.notice, verbose: options.verbose, announced: announcesStore) {
            Console.notice(notice)
        }
        var configuration = selection.configuration
        let prompt = FingerprintPromptAuthenticator(
            wrapping: configuration.authenticator, timeout: selection.fingerprintTimeout,
            probesAvailability: probesAvailability,
            prompt: selection.storeName == "service" ? FingerprintPromptLine.showNamingCaller : FingerprintPromptLine.show)
        // The vault service keeps its own windows (opened by its own prompts, `unlockWindowSeconds`); the
        // agent's cannot open its items.
        let prompting = selection.storeName == "service" ? prompt : UnlockWindowHook.wrap(prompt, options: options)
        configuration.authenticator = SessionAwareAuthenticator(
            prompting: prompting, platform: configuration.authenticator,
            session: .current(ownerAuthenticationName: selection.ownerAuthenticationName), guidance: .commandLine,
            announce: { Console.notice($0) })
        selection.configuration = configuration
        self.selection = selection
        self.configuration = configuration
    }

    /// The vault for `key`, without prompting; store failures are errors, not "empty". Its prompts name
    /// the item.
    func retrieve(_ key: String) throws -> Vault<JSONValue> {
        var configuration = configuration
        if configuration.prompt == .default { configuration.prompt = PromptText(reason: "Unlock '\(Console.terminalSafe(key, escapingLineBreaks: true))'") }
        return try VaultFactory<JSONValue>.retrieveVaultOrThrow(key: key, configuration: configuration)
    }

    /// The vault for `key` when something is stored; `notFound` (or `invalidated`) otherwise.
    func retrieveStored(_ key: String) throws -> Vault<JSONValue> {
        let vault = try retrieve(key)
        if vault.kind == .empty { throw nothingStored(vault) }
        return vault
    }

    func nothingStored(_ vault: Vault<JSONValue>) -> any Error {
        if vault.invalidation == .biometryChanged {
            return VaultError(
                .biometryChanged,
                underlying: .message("'\(vault.key)' was invalidated because the enrolled fingers changed; store it again"))
        }
        guard let elsewhere = storeHolding(vault.key) else { return CLIFailure.notFound("nothing stored under '\(vault.key)'") }
        return CLIFailure.notFound(
            "nothing stored under '\(vault.key)' in the vault service, which `auto` picks since it was installed; "
                + "the \(elsewhere.rawValue) store holds it: `biometrics-vault\(options.service == VaultConfiguration.defaultService ? "" : " --service \(options.service)") "
                + "import --from-store \(elsewhere.rawValue)` moves the items of the service there into the vault service, each with its protection")
    }

    /// The store `auto` picked before the vault service was installed that holds `key`, when `auto`
    /// picked the service (``VaultConfiguration/earlierStore(holding:service:defaultStore:)``).
    private func storeHolding(_ key: String) -> BiometricsVaultCommand.Import.SourceStore? {
        guard options.store == .auto else { return nil }
        return VaultConfiguration.earlierStore(holding: key, service: options.service, defaultStore: selection.storeName)
            .flatMap { BiometricsVaultCommand.Import.SourceStore(rawValue: $0.rawValue) }
    }
}

extension Vault {
    /// The state's name, as the `Vault` case is spelled.
    var stateName: String {
        switch self {
        case .emptyWithBiometrics: "emptyWithBiometrics"
        case .empty: "empty"
        case .keychain: "keychain"
        case .keychainUpgradable: "keychainUpgradable"
        case .biometrics: "biometrics"
        case .locked: "locked"
        }
    }
}
