#if os(Linux)
import BiometricsVaultLinuxAuth

/// Watches the Linux desktop for a screen lock and calls back; see
/// ``VaultConfiguration/lockAllSessionsWhenScreenLocks(sessionBusAddress:systemBusAddress:onLock:)``.
///
/// Listens, until ``stop()`` or release, to `ActiveChanged(true)` of `org.freedesktop.ScreenSaver` and
/// `org.gnome.ScreenSaver` on the session bus, and to logind's `org.freedesktop.login1.Session.Lock` and
/// `org.freedesktop.login1.Manager.PrepareForSleep(true)` (suspend or hibernate) on the system bus where
/// logind runs. Signals are accepted from any sender: one can only make the app lock, never unlock.
/// `ActiveChanged(false)` and `PrepareForSleep(false)` (resume) are ignored.
public final class ScreenLockMonitor: Sendable {
    /// Which signal reported the lock.
    public enum Signal: String, Hashable, Sendable, CaseIterable {
        /// `org.freedesktop.ScreenSaver.ActiveChanged(true)` on the session bus.
        case freedesktopScreenSaver = "org.freedesktop.ScreenSaver"
        /// `org.gnome.ScreenSaver.ActiveChanged(true)` on the session bus.
        case gnomeScreenSaver = "org.gnome.ScreenSaver"
        /// `org.freedesktop.login1.Session.Lock` on the system bus.
        case logindLock = "org.freedesktop.login1.Session"
        /// `org.freedesktop.login1.Manager.PrepareForSleep(true)` on the system bus: the machine is about
        /// to suspend or hibernate.
        case logindPrepareForSleep = "org.freedesktop.login1.Manager"

        /// `nil` for logind's `SessionRemoved`, which the monitor does not watch.
        init?(_ signal: ScreenLockWatcher.Signal) {
            switch signal {
            case .freedesktopScreenSaver: self = .freedesktopScreenSaver
            case .gnomeScreenSaver: self = .gnomeScreenSaver
            case .logindLock: self = .logindLock
            case .logindPrepareForSleep: self = .logindPrepareForSleep
            case .logindSessionRemoved: return nil
            }
        }
    }

    private let watcher: ScreenLockWatcher

    /// Starts watching; returns once the buses have the subscriptions, so no later lock is missed.
    ///
    /// - Parameters:
    ///   - sessionBusAddress: `nil` (the user's session bus) except in tests.
    ///   - systemBusAddress: `nil` (the system bus) except in tests.
    ///   - onLock: called on a watcher thread for every lock signal.
    /// - Throws: `storeUnavailable` when neither bus can be reached (nothing could ever be noticed).
    public init(
        sessionBusAddress: String? = nil, systemBusAddress: String? = nil,
        onLock: @escaping @Sendable (Signal) -> Void
    ) throws(VaultError) {
        watcher = try ScreenLockWatcher(sessionBusAddress: sessionBusAddress, systemBusAddress: systemBusAddress) { signal, _ in
            if let signal = Signal(signal) { onLock(signal) }
        }
    }

    /// The signals actually watched (a bus that could not be reached is left out).
    public var watchedSignals: Set<Signal> { Set(watcher.watchedSignals.compactMap(Signal.init)) }

    /// Stops watching: no callback starts after this returns.
    public func stop() { watcher.stop() }
}

extension VaultConfiguration {
    /// Opt-in auto-lock for Linux desktops: calls ``lockAllSessions()`` whenever the desktop session
    /// locks or the machine is about to sleep (the signals of ``ScreenLockMonitor``), until the returned
    /// monitor is stopped or released (keep it for as long as the app runs).
    ///
    /// - Parameters:
    ///   - sessionBusAddress: `nil` (the user's session bus) except in tests.
    ///   - systemBusAddress: `nil` (the system bus) except in tests.
    ///   - onLock: called after the sessions were ended (on a watcher thread), e.g. to refresh a
    ///     `VaultModel` on the main actor.
    /// - Throws: `storeUnavailable` when neither bus can be reached.
    public func lockAllSessionsWhenScreenLocks(
        sessionBusAddress: String? = nil, systemBusAddress: String? = nil,
        onLock: @escaping @Sendable (ScreenLockMonitor.Signal) -> Void = { _ in }
    ) throws(VaultError) -> ScreenLockMonitor {
        try ScreenLockMonitor(sessionBusAddress: sessionBusAddress, systemBusAddress: systemBusAddress) { signal in
            lockAllSessions()
            onLock(signal)
        }
    }
}
#endif
