#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultProcess
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
///   is about to start): whoever wakes the machine finds it locked;
/// - where asked (`watchesSessionRemoval`), `SessionRemoved` of `org.freedesktop.login1.Manager`: a login
///   session ended (logout, `loginctl terminate-session`).
///
/// Each callback names the login session concerned where the signal does: the object path of the
/// session whose `Lock` it is, or of the session removed.
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
        /// `org.freedesktop.login1.Manager.SessionRemoved` on the system bus.
        case logindSessionRemoved = "org.freedesktop.login1.Manager.SessionRemoved"

        /// The D-Bus interface and member of the signal.
        var interface: String { self == .logindSessionRemoved ? Signal.logindPrepareForSleep.rawValue : rawValue }
        var member: String {
            switch self {
            case .freedesktopScreenSaver, .gnomeScreenSaver: "ActiveChanged"
            case .logindLock: "Lock"
            case .logindPrepareForSleep: "PrepareForSleep"
            case .logindSessionRemoved: "SessionRemoved"
            }
        }
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
    ///   - watchesSessionRemoval: whether logind's `SessionRemoved` is reported too.
    ///   - onLock: called on a watcher thread for every signal, with the login session's object path
    ///     where the signal names one.
    /// - Throws: `storeUnavailable` when neither bus can be reached (nothing could ever be noticed).
    package init(
        sessionBusAddress: String? = nil, systemBusAddress: String? = nil, watchesSessionBus: Bool = true,
        watchesSessionRemoval: Bool = false, onLock: @escaping @Sendable (Signal, _ session: String?) -> Void
    ) throws(VaultError) {
        let stopping = DBusCancellation()
        let session: Result<Set<Signal>, DBusFailure> = watchesSessionBus
            ? Self.watch(
                bus: sessionBusAddress.map(DBusBus.address) ?? .session, name: "bv-screen-lock-session", stopping: stopping,
                signals: [.freedesktopScreenSaver, .gnomeScreenSaver], onLock: onLock)
            : .success([])
        let system = Self.watch(
            bus: systemBusAddress.map(DBusBus.address) ?? .system, name: "bv-screen-lock-system", stopping: stopping,
            signals: [.logindLock, .logindPrepareForSleep] + (watchesSessionRemoval ? [.logindSessionRemoved] : []), onLock: onLock)
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
        signals watched: [Signal], onLock: @escaping @Sendable (Signal, String?) -> Void
    ) -> Result<Set<Signal>, DBusFailure> {
        let started = LockedValue<Result<Set<Signal>, DBusFailure>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let status = DedicatedThread.start(name: name) {
            let connection: DBusConnection
            let signals: DBusSignalSubscription
            do throws(DBusFailure) {
                connection = try DBusConnection(bus, cancellation: stopping)
                signals = connection.subscribe(watched.map { signal in
                    DBusSignalMatch(sender: nil, path: nil, interface: signal.interface, member: signal.member)
                })
                // Other clients send these signals: the bus must have the match rules before we say so.
                try connection.roundTripToBus()
            } catch {
                started.withLock { $0 = .failure(error) }
                ready.signal()
                return
            }
            started.withLock { $0 = .success(Set(watched)) }
            ready.signal()
            while case .signal(let received) = signals.next(until: nil, cancellation: stopping) {
                guard let signal = watched.first(where: { $0.interface == received.interface && $0.member == received.member }) else {
                    continue
                }
                // ActiveChanged and PrepareForSleep carry (b): only `true` locks. Lock carries nothing;
                // SessionRemoved carries (so): the session's id and path.
                let session: String?
                switch signal {
                case .freedesktopScreenSaver, .gnomeScreenSaver, .logindPrepareForSleep:
                    guard received.parameters.typeString == "(b)", received.parameters[0].bool == true else { continue }
                    session = nil
                case .logindLock:
                    session = received.path
                case .logindSessionRemoved:
                    guard received.parameters.typeString == "(so)", let path = received.parameters[1].string else { continue }
                    session = path
                }
                // A stop between the signal and here: no callback starts after stop() returned.
                if stopping.isCancelled { return }
                onLock(signal, session)
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
