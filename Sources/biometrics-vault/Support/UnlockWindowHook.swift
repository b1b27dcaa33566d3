import BiometricsVault
import BiometricsVaultAgent
import BiometricsVaultCore

/// The CLI's unlock-window settings (``UnlockWindows`` does the work, starting this executable as the
/// agent when needed): the window length from `--unlock-window`, else the environment or the config
/// file, and the notices they give, each once.
enum UnlockWindowHook {
    /// `authenticator` behind the unlock-window wrapper when a window length is set; else unchanged. A
    /// reason windows cannot work here is said once on stderr (commands then prompt as without windows).
    static func wrap(_ authenticator: any Authenticator, options: GlobalOptions) -> any Authenticator {
        guard let seconds = windowSeconds(options) else { return authenticator }
        let wrapped = UnlockWindows.authenticator(wrapping: authenticator, service: options.service, seconds: seconds, startsAgent: true)
        if let reason = wrapped.unavailability { noticeOnce("unlock window unavailable: \(reason)") }
        return wrapped.authenticator
    }

    /// The agent as the file store's key keeper when a window length is set: the passphrase or TPM PIN
    /// is then asked once per window.
    static func storeKeyKeeper(options: GlobalOptions) -> (any StoreKeyKeeper)? {
        windowSeconds(options).flatMap { UnlockWindows.storeKeyKeeper(seconds: $0, startsAgent: true) }
    }

    /// What `status` and `doctor` say about this terminal's windows (of `service`, when given): the vault
    /// service's when it is the store, else the agent's.
    static func state(options: GlobalOptions, service: String?, storeIsService: Bool) -> UnlockWindowState {
        #if os(Linux)
        if storeIsService { return UnlockWindows.serviceState(seconds: windowSeconds(options), service: service) }
        #endif
        return UnlockWindows.state(seconds: windowSeconds(options), service: service)
    }

    /// The option, else the environment variable, else the config file, else off.
    static func windowSeconds(_ options: GlobalOptions) -> Int? {
        windowSeconds(option: options.unlockWindow)
    }

    /// `option` when given, else the environment variable, else the config file, else off.
    static func windowSeconds(option: UnlockWindowOption?) -> Int? {
        if let option { return option.seconds }
        return configuredSetting.seconds
    }

    /// `$BIOMETRICS_VAULT_UNLOCK_WINDOW`, else `unlock-window` in the config file (``CLIConfigFile``; read
    /// on Linux only, where windows work), read once per process: the CLI's settings, which the library
    /// never reads (invalid values are reported once and ignored).
    private static let configuredSetting: UnlockWindowSetting = {
        #if os(Linux)
        let configFile = CLIConfigFile.load()
        #else
        let configFile: CLIConfigFile? = nil
        #endif
        let setting = UnlockWindowSetting.resolve(
            option: nil, environment: EnvironmentVariable.value(UnlockWindowSetting.environmentVariable), configFile: configFile)
        for notice in setting.notices { Console.notice(notice) }
        return setting
    }()

    private static let noticed = LockedValue<Set<String>>([])

    private static func noticeOnce(_ text: String) {
        guard noticed.withLock({ $0.insert(text).inserted }) else { return }
        Console.notice(text)
    }
}
