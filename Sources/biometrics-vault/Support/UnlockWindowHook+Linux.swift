#if os(Linux)
import BiometricsVault
import FoundationEssentials

/// The CLI's use of the unlock-window agent (BiometricsVaultAgent): the authenticator wrapper when a
/// window length is set, the `agent` and `lock` verbs.
enum UnlockWindowHook {
    /// `authenticator` behind an ``UnlockWindowAuthenticator`` when `--unlock-window`, `$BIOMETRICS_VAULT_UNLOCK_WINDOW`
    /// or the config file gives a length and `XDG_RUNTIME_DIR` is set; else unchanged. A socket path too
    /// long for a Unix socket is said once on stderr (then unchanged: commands prompt as without windows).
    static func wrap(_ authenticator: any Authenticator, options: GlobalOptions) -> any Authenticator {
        guard let seconds = windowSeconds(options), let client = UnlockWindowAgentClient.current(startsItself: true) else {
            return authenticator
        }
        if let reason = client.unavailability {
            noticeOnce("unlock window unavailable: \(reason)")
            return authenticator
        }
        return UnlockWindowAuthenticator(wrapping: authenticator, client: client, service: options.service, seconds: seconds)
    }

    /// The agent as the file store's key keeper, under the same conditions as ``wrap(_:options:)``: the
    /// passphrase or TPM PIN is then asked once per window.
    static func storeKeyKeeper(options: GlobalOptions) -> (any StoreKeyKeeper)? {
        guard let seconds = windowSeconds(options), let client = UnlockWindowAgentClient.current(startsItself: true)
        else { return nil }
        return UnlockWindowStoreKeyKeeper(client: client, seconds: seconds)
    }

    /// After a `key` verb rewrote the default store's key file: a running agent drops the keys it keeps
    /// for that store, in every scope (they were kept for the old key file, which no longer exists).
    /// Best effort: without an agent nothing is kept; a key kept for another key file is never used.
    static func forgetStoreKeys() {
        guard let client = UnlockWindowAgentClient.current(startsItself: false) else { return }
        _ = try? client.send(.forgetStoreKey(store: FileStoreKey.defaultDirectory.standardizedFileURL.path), startingAgent: false)
    }

    /// The option, else the environment variable, else the config file, else off (invalid values are
    /// reported once and ignored).
    static func windowSeconds(_ options: GlobalOptions) -> Int? {
        if let option = options.unlockWindow { return option.seconds }
        return fallbackSetting.seconds
    }

    /// The environment variable and the config file, read once per process.
    private static let fallbackSetting: UnlockWindowSetting = {
        let setting = UnlockWindowSetting.resolve(
            option: nil, environment: EnvironmentVariable.value(UnlockWindowSetting.environmentVariable), configFile: CLIConfigFile.load())
        for notice in setting.notices { Console.notice(notice) }
        return setting
    }()

    private static let noticed = LockedValue<Set<String>>([])

    private static func noticeOnce(_ text: String) {
        guard noticed.withLock({ $0.insert(text).inserted }) else { return }
        Console.notice(text)
    }

    /// What `status` and `doctor` say about this terminal's windows (of `service`, when given); never
    /// starts the agent.
    static func state(options: GlobalOptions, service: String?) -> UnlockWindowState {
        UnlockWindowAgentClient.state(seconds: windowSeconds(options), service: service)
    }

    /// `agent`: serves until idle. Also closes every window when the desktop's screen locks or the
    /// machine is about to sleep.
    static func runAgent(idleSeconds: Int) throws {
        guard let paths = AgentPaths.current() else {
            throw VaultError(.storeUnavailable, underlying: .message("XDG_RUNTIME_DIR is not set: the agent has nowhere private to listen"))
        }
        guard let agent = try UnlockWindowAgent.start(paths: paths, idleSeconds: idleSeconds) else {
            Console.notice("an agent already serves \(paths.socket)")
            return
        }
        let trigger = agent.trigger
        // After listening, so a client never waits for the buses; a bus that cannot be reached only
        // means that lock is not noticed.
        ScreenLockSubscription.start(trigger)
        agent.run()
    }

    /// `lock`: closes every window; 0 when no agent runs (then no window is open).
    static func lockAll() throws -> Int {
        guard let client = UnlockWindowAgentClient.current(startsItself: false) else { return 0 }
        guard client.isListening else { return 0 }
        switch try client.send(.lock, startingAgent: false) {
        case .locked(let count): return count
        case .opened, .window, .status, .keptStoreKey, .storeKey: throw unexpectedAnswer
        case .refused(let reason): throw VaultError(.storeUnavailable, underlying: .message("the agent refused: \(reason)"))
        }
    }

    /// This terminal's scope and open windows; `nil` when no agent runs.
    static func status() throws -> (scope: String?, windows: [UnlockWindowReport])? {
        guard let client = UnlockWindowAgentClient.current(startsItself: false), client.isListening else { return nil }
        switch try client.send(.status, startingAgent: false) {
        case .status(let scope, let windows): return (scope, windows)
        case .opened, .window, .locked, .keptStoreKey, .storeKey: throw unexpectedAnswer
        case .refused(let reason): throw VaultError(.storeUnavailable, underlying: .message("the agent refused: \(reason)"))
        }
    }

    private static var unexpectedAnswer: VaultError {
        VaultError(.storeUnavailable, underlying: .message("the agent answered another request"))
    }
}

/// The agent's screen-lock watch, kept for the agent's life.
private enum ScreenLockSubscription {
    private static let monitor = LockedValue<ScreenLockMonitor?>(nil)

    /// Subscribes on this thread (the watcher's own threads then call back): a task would need a second
    /// thread of the cooperative pool, which the agent's loop already occupies on a one-CPU machine.
    static func start(_ trigger: UnlockWindowLockTrigger) {
        do {
            let started = try ScreenLockMonitor { trigger.lockAll(because: reason($0)) }
            monitor.withLock { $0 = started }
            let watched = started.watchedSignals.map(\.rawValue).sorted().joined(separator: ", ")
            trigger.log("watching for a screen lock or sleep: \(watched)")
        } catch {
            Console.notice("the screen lock is not watched: \(error)")
        }
    }

    /// The agent log's words for `signal`.
    static func reason(_ signal: ScreenLockMonitor.Signal) -> String {
        switch signal {
        case .freedesktopScreenSaver, .gnomeScreenSaver: "the screen saver started (\(signal.rawValue).ActiveChanged(true))"
        case .logindLock: "logind locked the session (org.freedesktop.login1.Session.Lock)"
        case .logindPrepareForSleep: "the system is about to sleep (org.freedesktop.login1.Manager.PrepareForSleep(true))"
        }
    }
}
#endif
