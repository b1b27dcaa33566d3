#if os(Linux)
import BiometricsVaultCore
import Dispatch

/// Watches the desktop session for "the screen locked" and calls back, so an app can end its vault
/// sessions (``VaultConfiguration/lockAllSessions()``) the moment the user walks away. Apps reach it
/// through `BiometricsVault`'s `ScreenLockMonitor` / `VaultConfiguration.lockAllSessionsWhenScreenLocks`.
///
/// Listens, until ``stop()`` (or deinit), to:
/// - `ActiveChanged(true)` of `org.freedesktop.ScreenSaver` and `org.gnome.ScreenSaver` on the session bus
///   (KDE, GNOME, and the desktops that implement the freedesktop interface);
/// - `Lock` of `org.freedesktop.login1.Session` on the system bus (`loginctl lock-session`, idle lock),
///   where logind runs.
///
/// The signals are accepted from any sender on any object path: a signal can only make us lock, never
/// unlock, so the worst a forged one does is ask the user to authenticate again. `ActiveChanged(false)`
/// (the screen saver went away) is ignored. Each bus is watched on its own thread.
package final class ScreenLockWatcher: Sendable {
    /// Which signal reported the lock.
    package enum Signal: String, Hashable, Sendable, CaseIterable {
        /// `org.freedesktop.ScreenSaver.ActiveChanged(true)` on the session bus.
        case freedesktopScreenSaver = "org.freedesktop.ScreenSaver"
        /// `org.gnome.ScreenSaver.ActiveChanged(true)` on the session bus.
        case gnomeScreenSaver = "org.gnome.ScreenSaver"
        /// `org.freedesktop.login1.Session.Lock` on the system bus.
        case logindLock = "org.freedesktop.login1.Session"
    }

    /// The signals actually being watched (a bus that could not be reached is left out).
    package let watchedSignals: Set<Signal>

    private let state: LockedValue<(stopped: Bool, wakers: [MainContextWaker])>

    /// Starts watching. Returns once the buses have the subscriptions, so a lock signalled after this
    /// returns is never missed.
    ///
    /// - Parameters:
    ///   - sessionBusAddress: the session bus; `nil`: `DBUS_SESSION_BUS_ADDRESS` / `$XDG_RUNTIME_DIR/bus`.
    ///   - systemBusAddress: the system bus; `nil`: `DBUS_SYSTEM_BUS_ADDRESS` / the well-known socket.
    ///   - onLock: called on a watcher thread for every lock signal.
    /// - Throws: `storeUnavailable` when neither bus can be reached (nothing could ever be noticed).
    package init(
        sessionBusAddress: String? = nil, systemBusAddress: String? = nil,
        onLock: @escaping @Sendable (Signal) -> Void
    ) throws(VaultError) {
        let state = LockedValue<(stopped: Bool, wakers: [MainContextWaker])>((false, []))
        let session = Self.watch(
            bus: sessionBusAddress.map(DBusBus.address) ?? .session, name: "bv-screen-lock-session", state: state,
            subscriptions: [
                (.freedesktopScreenSaver, "ActiveChanged"), (.gnomeScreenSaver, "ActiveChanged"),
            ], onLock: onLock)
        let system = Self.watch(
            bus: systemBusAddress.map(DBusBus.address) ?? .system, name: "bv-screen-lock-system", state: state,
            subscriptions: [(.logindLock, "Lock")], onLock: onLock)
        var watched = Set<Signal>()
        var failures: [DBusFailure] = []
        for result in [session, system] {
            switch result {
            case .success(let signals): watched.formUnion(signals)
            case .failure(let failure): failures.append(failure)
            }
        }
        self.state = state
        self.watchedSignals = watched
        if watched.isEmpty {
            throw VaultError(.storeUnavailable, underlying: failures.first?.underlying)
        }
    }

    deinit { stop() }

    /// Stops watching: no callback starts after this returns (one already running may finish).
    package func stop() {
        let wakers = state.withLock { state in
            state.stopped = true
            return state.wakers
        }
        for waker in wakers { waker.wake() }
    }

    // MARK: Private

    /// Starts one watcher thread and waits until it has subscribed (or failed to connect).
    private static func watch(
        bus: DBusBus, name: String, state: LockedValue<(stopped: Bool, wakers: [MainContextWaker])>,
        subscriptions: [(Signal, String)], onLock: @escaping @Sendable (Signal) -> Void
    ) -> Result<Set<Signal>, DBusFailure> {
        let started = LockedValue<Result<Set<Signal>, DBusFailure>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let status = DedicatedThread.start(name: name) {
            let connection: SystemBusConnection
            do throws(DBusFailure) {
                connection = try SystemBusConnection(bus)
                for (signal, member) in subscriptions {
                    connection.subscribe(sender: nil, path: nil, interface: signal.rawValue, member: member) { value in
                        // ActiveChanged carries (b); Lock carries nothing.
                        if member == "ActiveChanged", value.typeString != "(b)" || value[0].bool != true { return }
                        if state.withLock({ $0.stopped }) { return }
                        onLock(signal)
                    }
                }
                try connection.sync()
            } catch {
                started.withLock { $0 = .failure(error) }
                ready.signal()
                return
            }
            let waker = connection.waker
            let stopped = state.withLock { state in
                state.wakers.append(waker)
                return state.stopped
            }
            started.withLock { $0 = .success(Set(subscriptions.map(\.0))) }
            ready.signal()
            guard !stopped else { return }
            while !state.withLock({ $0.stopped }) { connection.iterate() }
        }
        guard status == 0 else {
            return .failure(DBusFailure(name: "errno", code: status, message: "cannot start a watcher thread", isRemote: false))
        }
        ready.wait()
        return started.withLock { $0 } ?? .failure(DBusFailure(name: "unknown", code: -1, message: "watcher did not start", isRemote: false))
    }
}
#endif
