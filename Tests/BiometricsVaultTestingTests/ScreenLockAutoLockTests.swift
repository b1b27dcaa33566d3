#if os(Linux)
import BiometricsVault
import BiometricsVaultTestSupport
import BiometricsVaultTesting
import Foundation
import Testing

/// The Linux auto-lock, driven by the real signals: a private `dbus-daemon` stands in for the session
/// and system buses, and `gdbus emit` sends exactly what a screen saver or logind sends.
@Suite(.onTestThreads, .serialized) struct ScreenLockAutoLockTests {
    static let dbusDaemon = "/usr/bin/dbus-daemon"
    static let gdbus = "/usr/bin/gdbus"

    struct Token: Codable, Sendable, Equatable { var value: String }

    /// The lock signals seen so far, and a way to wait for the next one without a fixed sleep.
    final class Seen: Sendable {
        private let signals = LockedValue<[ScreenLockMonitor.Signal]>([])
        func append(_ signal: ScreenLockMonitor.Signal) { signals.withLock { $0.append(signal) } }
        var all: [ScreenLockMonitor.Signal] { signals.withLock { $0 } }

        /// Polls until `count` signals arrived; gives up after a generous bound (a missing signal is a
        /// failure, never a wrong timing).
        func wait(forCount count: Int) async {
            for _ in 0..<600 where all.count < count { try? await Task.sleep(for: .microseconds(50_000)) }
        }
    }

    static let tools = DaemonNeed.executables([dbusDaemon, gdbus], remedy: "scripts/setup/20-secret-service.sh")

    /// An unlocked vault inside a reusable session, on the simulated device.
    func unlockedVault() async throws -> (SimulatedDevice, VaultConfiguration, BiometricsSecureVault<Token>) {
        let device = SimulatedDevice()
        let configuration = VaultConfiguration(
            store: device.store, authenticator: device.authenticator, reuse: .session(timeout: .seconds(3600)),
            service: "screen-lock", clock: device.clock.vaultClock)
        let vault = try await VaultFactory<Token>.retrieveVaultOrThrow(key: "k", configuration: configuration)
            .storeToBiometrics(credentials: Token(value: "v1"))
        guard case .biometrics(let unlocked) = vault else { throw VaultError.invalidVault }
        return (device, configuration, unlocked)
    }

    /// A lock signal as the desktop sends it.
    struct LockSignal: Sendable, CustomTestStringConvertible {
        var signal: ScreenLockMonitor.Signal
        var path: String
        var member: String
        var arguments: [String]
        var testDescription: String { member }
    }

    static let lockSignals: [LockSignal] = [
        LockSignal(signal: .freedesktopScreenSaver, path: "/org/freedesktop/ScreenSaver",
                   member: "org.freedesktop.ScreenSaver.ActiveChanged", arguments: ["true"]),
        LockSignal(signal: .gnomeScreenSaver, path: "/org/gnome/ScreenSaver",
                   member: "org.gnome.ScreenSaver.ActiveChanged", arguments: ["true"]),
        LockSignal(signal: .logindLock, path: "/org/freedesktop/login1/session/_32",
                   member: "org.freedesktop.login1.Session.Lock", arguments: []),
        LockSignal(signal: .logindPrepareForSleep, path: "/org/freedesktop/login1",
                   member: "org.freedesktop.login1.Manager.PrepareForSleep", arguments: ["true"]),
    ]

    @Test(.needs(tools), arguments: lockSignals)
    func aLockSignalEndsEverySession(_ lock: LockSignal) async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let (device, configuration, unlocked) = try await unlockedVault()
        let seen = Seen()
        // One private bus plays both the session bus and the system bus.
        let monitor = try configuration.lockAllSessionsWhenScreenLocks(
            sessionBusAddress: bus.address, systemBusAddress: bus.address, onLock: seen.append)
        defer { monitor.stop() }
        #expect(monitor.watchedSignals == Set(ScreenLockMonitor.Signal.allCases))
        #expect(unlocked.isUnlocked)
        // Inside the session, retrieve is unlocked without a prompt...
        guard case .biometrics = try VaultFactory<Token>.retrieveVaultOrThrow(key: "k", configuration: configuration)
        else { Issue.record("not unlocked inside the session"); return }

        try await bus.emit(path: lock.path, signal: lock.member, lock.arguments)
        await seen.wait(forCount: 1)
        #expect(seen.all == [lock.signal])
        // ...and after the screen locked, it is locked, as after lock(): nothing written through the old handle.
        #expect(!unlocked.isUnlocked)
        await #expect(throws: VaultError.vaultLocked) { _ = try await unlocked.update(credentials: Token(value: "v2")) }
        guard case .locked(let locked) = try VaultFactory<Token>.retrieveVaultOrThrow(key: "k", configuration: configuration)
        else { Issue.record("not locked after the screen locked"); return }
        let prompts = device.promptCount
        #expect(try await locked.unlock().credentials == Token(value: "v1"))
        #expect(device.promptCount == prompts + 1, "unlock after a screen lock prompts again")
    }

    @Test(.needs(tools))
    func theScreenSaverGoingAwayDoesNotLock() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let (_, configuration, unlocked) = try await unlockedVault()
        let seen = Seen()
        let unlockedWhenTheSecondSignalArrived = LockedValue<Bool?>(nil)
        let monitor = try ScreenLockMonitor(sessionBusAddress: bus.address, systemBusAddress: bus.address) { signal in
            // The first lock signal to arrive: was the vault still unlocked (i.e. `false` did nothing)?
            unlockedWhenTheSecondSignalArrived.withLock { $0 = $0 ?? unlocked.isUnlocked }
            configuration.lockAllSessions()
            seen.append(signal)
        }
        defer { monitor.stop() }
        // The emitters run one after the other, so the bus delivers `false` before `true`.
        try await bus.emit(path: "/org/freedesktop/ScreenSaver", signal: "org.freedesktop.ScreenSaver.ActiveChanged", ["false"])
        try await bus.emit(path: "/org/gnome/ScreenSaver", signal: "org.gnome.ScreenSaver.ActiveChanged", ["false"])
        try await bus.emit(path: "/org/gnome/ScreenSaver", signal: "org.gnome.ScreenSaver.ActiveChanged", ["true"])
        await seen.wait(forCount: 1)
        #expect(seen.all == [.gnomeScreenSaver], "only ActiveChanged(true) locks")
        #expect(unlockedWhenTheSecondSignalArrived.withLock { $0 } == true)
        #expect(!unlocked.isUnlocked)
    }

    /// `PrepareForSleep(false)` (the machine resumed) is ignored: logind's `Lock` sent after it, on the
    /// same bus and so delivered after it, is the first signal seen.
    @Test(.needs(tools))
    func aResumeDoesNotLock() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let seen = Seen()
        let monitor = try ScreenLockMonitor(sessionBusAddress: bus.address, systemBusAddress: bus.address, onLock: seen.append)
        defer { monitor.stop() }
        try await bus.emit(path: "/org/freedesktop/login1", signal: "org.freedesktop.login1.Manager.PrepareForSleep", ["false"])
        try await bus.emit(path: "/org/freedesktop/login1/session/_32", signal: "org.freedesktop.login1.Session.Lock")
        await seen.wait(forCount: 1)
        #expect(seen.all == [.logindLock])
    }

    @Test(.needs(tools))
    func stoppedMonitorNoLongerLocks() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let (_, configuration, unlocked) = try await unlockedVault()
        let seen = Seen()
        let stopped = try configuration.lockAllSessionsWhenScreenLocks(
            sessionBusAddress: bus.address, systemBusAddress: bus.address, onLock: seen.append)
        stopped.stop()
        // A second, running monitor tells us when the signal has been delivered.
        let witness = Seen()
        let running = try ScreenLockMonitor(sessionBusAddress: bus.address, systemBusAddress: bus.address, onLock: witness.append)
        defer { running.stop() }
        try await bus.emit(path: "/org/freedesktop/ScreenSaver", signal: "org.freedesktop.ScreenSaver.ActiveChanged", ["true"])
        await witness.wait(forCount: 1)
        #expect(witness.all == [.freedesktopScreenSaver])
        #expect(seen.all.isEmpty)
        #expect(unlocked.isUnlocked)
    }

    @Test func noBusAtAllIsAnError() throws {
        let directory = try TestScratch.newDirectory("nobus")
        let nowhere = "unix:path=" + directory.appendingPathComponent("missing").path
        #expect(throws: VaultError.storeUnavailable) {
            _ = try ScreenLockMonitor(sessionBusAddress: nowhere, systemBusAddress: nowhere) { _ in }
        }
    }
}

extension PrivateBus {
    /// Sends one signal with `gdbus emit` (a separate process and connection, as a desktop would).
    /// `--session` with the bus in its environment: `--address` would not register with the bus
    /// (no `Hello`), and the daemon would route nothing from it.
    func emit(path: String, signal: String, _ arguments: [String] = []) async throws {
        let emitted = try await Shell.run(
            ScreenLockAutoLockTests.gdbus, ["emit", "--session", "--object-path", path, "--signal", signal] + arguments,
            environment: sessionEnvironment)
        #expect(emitted.status == 0, "gdbus emit \(signal) failed: \(emitted.stderr)")
    }
}
#endif
