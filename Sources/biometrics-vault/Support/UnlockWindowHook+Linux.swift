#if os(Linux)
import BiometricsVault
import FoundationEssentials

/// The CLI's use of the unlock-window agent (BiometricsVaultAgent): the authenticator wrapper when a
/// window length is set, the `agent` and `lock` verbs.
enum UnlockWindowHook {
    /// `authenticator` behind an ``UnlockWindowAuthenticator`` when `--unlock-window` (or
    /// `$BIOMETRICS_VAULT_UNLOCK_WINDOW`) gives a length and `XDG_RUNTIME_DIR` is set; else unchanged.
    static func wrap(_ authenticator: any Authenticator, options: GlobalOptions) -> any Authenticator {
        guard let seconds = windowSeconds(options), let client = UnlockWindowAgentClient.current(startsItself: true) else {
            return authenticator
        }
        return UnlockWindowAuthenticator(wrapping: authenticator, client: client, service: options.service, seconds: seconds)
    }

    /// The agent as the file store's key keeper, under the same conditions as ``wrap(_:options:)``: the
    /// passphrase or TPM PIN is then asked once per window.
    static func storeKeyKeeper(options: GlobalOptions) -> (any StoreKeyKeeper)? {
        // Quiet: ``wrap(_:options:)`` reports an invalid value once.
        guard let seconds = windowSeconds(options, reportsInvalid: false), let client = UnlockWindowAgentClient.current(startsItself: true)
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

    /// The option, else the environment variable (an invalid value is reported and ignored), else off.
    static func windowSeconds(_ options: GlobalOptions, reportsInvalid: Bool = true) -> Int? {
        if let option = options.unlockWindow { return option.seconds }
        guard let text = EnvironmentVariable.value(UnlockWindowOption.environmentVariable), !text.isEmpty else { return nil }
        switch UnlockWindowDuration.seconds(text) {
        case .success(let seconds): return seconds
        case .failure(let error):
            if reportsInvalid { Console.notice("ignoring $\(UnlockWindowOption.environmentVariable): \(error)") }
            return nil
        }
    }

    /// `agent`: serves until idle. Also closes every window when the desktop's screen locks.
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
        ScreenLockSubscription.start { trigger.lockAll() }
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
    static func start(onLock: @escaping @Sendable () -> Void) {
        do {
            let started = try ScreenLockMonitor { _ in onLock() }
            monitor.withLock { $0 = started }
        } catch {
            Console.notice("the screen lock is not watched: \(error)")
        }
    }
}
#endif
