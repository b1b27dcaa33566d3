#if os(Linux)
import BiometricsVaultAgent
import BiometricsVaultCore
import BiometricsVaultProcess
import FoundationEssentials

/// This user's unlock windows, kept by the unlock-window agent that `biometrics-vault agent` runs, for a
/// program that offers them: an app opts in with ``authenticator(wrapping:service:seconds:startsAgent:)``
/// and ``storeKeyKeeper(seconds:startsAgent:)``, for a window length it chooses (the library reads no
/// setting of its own). Linux only: elsewhere windows are off.
public enum UnlockWindows {
    /// `authenticator` wrapped so that one authentication opens a window of `seconds` for `service` on
    /// this terminal, inside which reads ask nothing (the agent keeps it); unchanged without
    /// `XDG_RUNTIME_DIR`. When windows cannot work with this user's agent
    /// paths (a socket path too long for a Unix socket), `authenticator` unchanged and the reason.
    ///
    /// - Parameter startsAgent: start this process's own executable with the argument `agent` when no
    ///   agent runs: only for an executable that then runs it, as `biometrics-vault` does (an app passes
    ///   `false` and uses the agent `biometrics-vault agent` runs).
    public static func authenticator(
        wrapping authenticator: any Authenticator, service: String, seconds: Int, startsAgent: Bool
    ) -> (authenticator: any Authenticator, unavailability: String?) {
        guard let client = UnlockWindowAgentClient.current(startsItself: startsAgent) else { return (authenticator, nil) }
        if let reason = client.unavailability { return (authenticator, reason) }
        return (UnlockWindowAuthenticator(wrapping: authenticator, client: client, service: service, seconds: seconds), nil)
    }

    /// The agent as the file store's key keeper for windows of `seconds` (``PlatformInteraction/storeKeyKeeper``):
    /// the passphrase or TPM PIN is then asked once per window. `nil` without `XDG_RUNTIME_DIR`.
    /// `startsAgent`: as for ``authenticator(wrapping:service:seconds:startsAgent:)``.
    public static func storeKeyKeeper(seconds: Int, startsAgent: Bool) -> (any StoreKeyKeeper)? {
        UnlockWindowAgentClient.current(startsItself: startsAgent).map { UnlockWindowStoreKeyKeeper(client: $0, seconds: seconds) }
    }

    /// This terminal's windows (of `service` only, when given) for a window length of `seconds` (`nil`:
    /// windows are off); never starts the agent.
    package static func state(seconds: Int?, service: String?) -> UnlockWindowState {
        UnlockWindowAgentClient.state(seconds: seconds, service: service)
    }

    /// The vault service's windows for this terminal session (of `service` only, when given), as
    /// ``state(seconds:service:)`` gives the agent's: asked of the service, which never opens one here.
    package static func serviceState(seconds: Int?, service: String?) -> UnlockWindowState {
        guard seconds != nil else { return .off }
        guard PeerScope.thisProcessHasTerminal else { return .noTerminal }
        guard let windows = VaultServiceControls.windows() else { return .unavailable("the vault service does not answer") }
        let mine = windows.filter { service == nil || $0.service == service }
        guard !mine.isEmpty else { return .none }
        return .open(mine.map {
            OpenUnlockWindow(
                report: UnlockWindowReport(service: $0.service, policy: $0.policy, remainingSeconds: $0.seconds, enrollment: nil),
                endsAt: AgentSocket.localTimeOfDay(secondsFromNow: $0.seconds))
        })
    }

    /// After the default file store's key file was rewritten (``FileStoreKey/Change/apply(_:)``): a
    /// running agent drops the keys it keeps for that store, in every scope (they were kept for the old
    /// key file). Best effort: without an agent nothing is kept, and a key kept for another key file is
    /// never used.
    package static func forgetDefaultStoreKeys() {
        guard let client = UnlockWindowAgentClient.current(startsItself: false) else { return }
        _ = try? client.send(.forgetStoreKey(store: FileStoreKey.defaultDirectory.standardizedFileURL.path), startingAgent: false)
    }

    /// Closes every window of every scope; returns how many were open (0 when no agent runs).
    package static func lockAll() throws(VaultError) -> Int {
        guard let client = UnlockWindowAgentClient.current(startsItself: false), client.isListening else { return 0 }
        switch try client.send(.lock, startingAgent: false) {
        case .locked(let count): return count
        case .opened, .window, .status, .keptStoreKey, .storeKey: throw unexpectedAnswer
        case .refused(let reason): throw VaultError(.storeUnavailable, underlying: .message("the agent refused: \(reason)"))
        }
    }

    /// This terminal's scope (`nil` without a controlling terminal) and its open windows; `nil` when no
    /// agent runs.
    package static func status() throws(VaultError) -> (scope: String?, windows: [UnlockWindowReport])? {
        guard let client = UnlockWindowAgentClient.current(startsItself: false), client.isListening else { return nil }
        switch try client.send(.status, startingAgent: false) {
        case .status(let scope, let windows): return (scope, windows)
        case .opened, .window, .locked, .keptStoreKey, .storeKey: throw unexpectedAnswer
        case .refused(let reason): throw VaultError(.storeUnavailable, underlying: .message("the agent refused: \(reason)"))
        }
    }

    /// Runs this user's agent in this process until it is idle for `idleSeconds`. It also closes every
    /// window when the desktop's screen locks or the machine is about to sleep (``ScreenLockMonitor``).
    /// `notice` hears what the agent's log should say: another agent already serves (this one then
    /// returns at once), or the screen lock cannot be watched (the agent serves anyway).
    ///
    /// - Parameter logToFile: log to `agent.log` in the agent's directory, which the agent opens itself
    ///   (refusing a symlink) and starts anew past 1 MiB, instead of stderr (never truncated).
    /// - Throws: `storeUnavailable` without `XDG_RUNTIME_DIR`, or when the agent cannot listen.
    package static func runAgent(
        idleSeconds: Int, logToFile: Bool = false, notice: @escaping @Sendable (String) -> Void
    ) async throws(VaultError) {
        guard let paths = AgentPaths.current() else {
            throw VaultError(.storeUnavailable, underlying: .message("XDG_RUNTIME_DIR is not set: the agent has nowhere private to listen"))
        }
        // After listening, so a client never waits for the buses; a bus that cannot be reached only
        // means that lock is not noticed.
        let served = try await UnlockWindowAgent.serve(paths: paths, idleSeconds: idleSeconds, logToFile: logToFile) { trigger in
            ScreenLockSubscription.start(trigger, notice: notice)
        }
        if !served { notice("an agent already serves \(paths.socket)") }
    }

    private static var unexpectedAnswer: VaultError {
        VaultError(.storeUnavailable, underlying: .message("the agent answered another request"))
    }
}

/// The agent's screen-lock watch, kept for the agent's life.
private enum ScreenLockSubscription {
    private static let monitor = LockedValue<ScreenLockMonitor?>(nil)

    /// Subscribes on the agent's thread before its loop starts (the watcher's own threads then call back).
    static func start(_ trigger: UnlockWindowLockTrigger, notice: (String) -> Void) {
        do {
            let started = try ScreenLockMonitor { trigger.lockAll(because: reason($0)) }
            monitor.withLock { $0 = started }
            let watched = started.watchedSignals.map(\.rawValue).sorted().joined(separator: ", ")
            trigger.log("watching for a screen lock or sleep: \(watched)")
        } catch {
            notice("the screen lock is not watched: \(error)")
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
