#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import Dispatch

/// Watches the desktop session for "the screen locked" and calls back, so an app can end its vault
/// sessions (``VaultConfiguration/lockAllSessions()``) the moment the user walks away. Apps reach it
/// through `BiometricsVault`'s `ScreenLockMonitor` / `VaultConfiguration.lockAllSessionsWhenScreenLocks`.
///
/// Listens, until ``stop()`` (or deinit), to:
/// - `ActiveChanged(true)` of `org.freedesktop.ScreenSaver` and `org.gnome.ScreenSaver` on the session bus
///   (KDE, GNOME, and the desktops that implement the freedesktop interface);
/// - `Lock` of `org.freedesktop.login1.Session` on the system bus (`loginctl lock-session`, idle lock),
///   where logind runs;
/// - `PrepareForSleep(true)` of `org.freedesktop.login1.Manager` on the system bus (suspend or hibernate
///   is about to start): whoever wakes the machine finds it locked.
///
/// The signals are accepted from any sender on any object path: a signal can only make us lock, never
/// unlock, so the worst a forged one does is ask the user to authenticate again. `ActiveChanged(false)`
/// (the screen saver went away) and `PrepareForSleep(false)` (the machine resumed) are ignored. Each bus is watched on its own thread, through the package's
/// D-Bus layer (BiometricsVaultDBus).
package final class ScreenLockWatcher: Sendable {
    /// Which signal reported the lock.
    package enum Signal: String, Hashable, Sendable, CaseIterable {
        /// `org.freedesktop.ScreenSaver.ActiveChanged(true)` on the session bus.
        case freedesktopScreenSaver = "org.freedesktop.ScreenSaver"
        /// `org.gnome.ScreenSaver.ActiveChanged(true)` on the session bus.
        case gnomeScreenSaver = "org.gnome.ScreenSaver"
        /// `org.freedesktop.login1.Session.Lock` on the system bus.
        case logindLock = "org.freedesktop.login1.Session"
        /// `org.freedesktop.login1.Manager.PrepareForSleep(true)` on the system bus.
        case logindPrepareForSleep = "org.freedesktop.login1.Manager"
    }

    /// The signals actually being watched (a bus that could not be reached is left out).
    package let watchedSignals: Set<Signal>

    /// Fired by ``stop()``: ends both watcher threads' waits.
    private let stopping: DBusCancellation

    /// Starts watching. Returns once the buses have the subscriptions, so a lock signalled after this
    /// returns is never missed.
    ///
    /// - Parameters:
    ///   - sessionBusAddress: the session bus; `nil`: `DBUS_SESSION_BUS_ADDRESS` / `$XDG_RUNTIME_DIR/bus`.
    ///   - systemBusAddress: the system bus; `nil`: `DBUS_SYSTEM_BUS_ADDRESS` / the well-known socket.
    ///   - watchesSessionBus: `false` for a system service, which has no session bus.
    ///   - onLock: called on a watcher thread for every lock signal.
    /// - Throws: `storeUnavailable` when neither bus can be reached (nothing could ever be noticed).
    package init(
        sessionBusAddress: String? = nil, systemBusAddress: String? = nil, watchesSessionBus: Bool = true,
        onLock: @escaping @Sendable (Signal) -> Void
    ) throws(VaultError) {
        let stopping = DBusCancellation()
        let session: Result<Set<Signal>, DBusFailure> = watchesSessionBus
            ? Self.watch(
                bus: sessionBusAddress.map(DBusBus.address) ?? .session, name: "bv-screen-lock-session", stopping: stopping,
                subscriptions: [
                    (.freedesktopScreenSaver, "ActiveChanged"), (.gnomeScreenSaver, "ActiveChanged"),
                ], onLock: onLock)
            : .success([])
        let system = Self.watch(
            bus: systemBusAddress.map(DBusBus.address) ?? .system, name: "bv-screen-lock-system", stopping: stopping,
            subscriptions: [(.logindLock, "Lock"), (.logindPrepareForSleep, "PrepareForSleep")], onLock: onLock)
        var watched = Set<Signal>()
        var failures: [DBusFailure] = []
        for result in [session, system] {
            switch result {
            case .success(let signals): watched.formUnion(signals)
            case .failure(let failure): failures.append(failure)
            }
        }
        self.stopping = stopping
        self.watchedSignals = watched
        if watched.isEmpty {
            throw VaultError(.storeUnavailable, underlying: failures.first?.underlying)
        }
    }

    deinit { stop() }

    /// Stops watching: no callback starts after this returns (one already running may finish).
    package func stop() {
        stopping.cancel()
    }

    // MARK: Private

    /// Starts one watcher thread and waits until it has subscribed (or failed to connect).
    private static func watch(
        bus: DBusBus, name: String, stopping: DBusCancellation,
        subscriptions: [(Signal, String)], onLock: @escaping @Sendable (Signal) -> Void
    ) -> Result<Set<Signal>, DBusFailure> {
        let started = LockedValue<Result<Set<Signal>, DBusFailure>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let status = DedicatedThread.start(name: name) {
            let connection: DBusConnection
            let signals: DBusSignalSubscription
            do throws(DBusFailure) {
                connection = try DBusConnection(bus, cancellation: stopping)
                signals = connection.subscribe(subscriptions.map { signal, member in
                    DBusSignalMatch(sender: nil, path: nil, interface: signal.rawValue, member: member)
                })
                // Other clients send these signals: the bus must have the match rules before we say so.
                try connection.roundTripToBus()
            } catch {
                started.withLock { $0 = .failure(error) }
                ready.signal()
                return
            }
            started.withLock { $0 = .success(Set(subscriptions.map(\.0))) }
            ready.signal()
            while case .signal(let received) = signals.next(until: nil, cancellation: stopping) {
                guard let signal = Signal(rawValue: received.interface) else { continue }
                // ActiveChanged and PrepareForSleep carry (b): only `true` locks. Lock carries nothing.
                if received.member == "ActiveChanged" || received.member == "PrepareForSleep",
                    received.parameters.typeString != "(b)" || received.parameters[0].bool != true
                { continue }
                // A stop between the signal and here: no callback starts after stop() returned.
                if stopping.isCancelled { return }
                onLock(signal)
            }
        }
        guard status == 0 else {
            return .failure(DBusFailure(name: "errno", code: status, message: "cannot start a watcher thread", isRemote: false))
        }
        ready.wait()
        return started.withLock { $0 } ?? .failure(DBusFailure(name: "unknown", code: -1, message: "watcher did not start", isRemote: false))
    }
}
#endif
