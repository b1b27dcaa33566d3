#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultSecretService
import BiometricsVaultTestSupport
import Foundation
import Testing

/// Whether the real Secret Service is there (a test's need: skipped without it, failed under
/// `BV_REQUIRE_DAEMONS=1`).
enum Daemon {
    /// The session bus of the test run has an unlocked gnome-keyring (scripts/setup/20-secret-service.sh).
    static let sessionAvailable: Bool = {
        guard ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] != nil else { return false }
        return SecretServiceStore.probe(timeout: .seconds(2)) == .available
    }()

    /// The binaries to start a private bus + keyring inside a test.
    static let privateKeyringPossible: Bool = ["dbus-daemon", "gnome-keyring-daemon", "gdbus"].allSatisfy {
        Shell.which($0) != nil
    }

    /// The Secret Service on the session bus, as a test's need.
    static let session = DaemonNeed(
        "the Secret Service on the session bus", remedy: "scripts/setup/20-secret-service.sh",
        problem: sessionAvailable ? nil : "no unlocked provider answers on DBUS_SESSION_BUS_ADDRESS")
    /// What a private bus with its own keyring needs, as a test's need.
    static let privateKeyring = DaemonNeed(
        "dbus-daemon, gnome-keyring-daemon and gdbus", remedy: "scripts/setup/20-secret-service.sh",
        problem: privateKeyringPossible ? nil : "not installed")

    /// The store on the session bus; a clear failure when it is missing.
    static func sessionStore() throws -> SecretServiceStore {
        guard ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] != nil else {
            throw TestFailure("BV_REQUIRE_DAEMONS=1 but DBUS_SESSION_BUS_ADDRESS is not set: run scripts/setup/20-secret-service.sh")
        }
        let status = SecretServiceStore.probe(timeout: .seconds(2))
        guard status == .available else { throw TestFailure("the Secret Service on the session bus is not usable: \(status)") }
        return try SecretServiceStore()
    }

    /// The python with `keyring` installed by the setup script.
    static func pythonKeyring() async throws -> String {
        if let python = ProcessInfo.processInfo.environment["BV_PYTHON_KEYRING"] { return python }
        for candidate in ["\(FileManager.default.currentDirectoryPath)/.build-ci/secret-service/keyring-venv/bin/python", "/usr/bin/python3"] {
            if (try? await Shell.run(candidate, ["-c", "import keyring"]))?.status == 0 { return candidate }
        }
        throw TestFailure("python keyring not found: run scripts/setup/20-secret-service.sh (sets BV_PYTHON_KEYRING)")
    }
}

/// A unique service name per test, so tests on the shared keyring never see each other's items.
func uniqueService(_ name: String) -> String { "bv-test.\(name).\(UUID().uuidString.prefix(8))" }

#endif
#if os(Linux)
/// A `SecretServiceTestDriver` process (one store, one connection) talking to a private bus.
final class StoreDriver {
    private let child: Shell.Child

    /// The driver is built next to the test bundle (`swift build --build-tests` builds every target).
    static var executable: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        // `swift test` may run ".../debug/X.xctest" or a path inside it.
        while !directory.path.isEmpty, directory.path != "/" {
            let candidate = directory.appendingPathComponent("SecretServiceTestDriver").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return "SecretServiceTestDriver"
    }

    init(environment: [String: String]) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw TestFailure("SecretServiceTestDriver is not built: run `swift build --build-tests` first")
        }
        child = try await Shell.spawn(Self.executable, [], environment: environment)
    }

    /// Sends one command and returns the one-line answer.
    @discardableResult
    func send(_ command: String) async throws -> String {
        let bytes = Array((command + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(child.stdin, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw TestFailure("driver stdin closed") }
        do {
            return try await Shell.readLine(child.stdout)
        } catch {
            throw TestFailure("driver exited while answering \(command.split(separator: " ").first ?? "")")
        }
    }

    /// Closing its stdin ends the driver; swift-subprocess reaps it.
    deinit {
        close(child.stdin)
        close(child.stdout)
        close(child.stderr)
    }
}
#endif

#if os(Linux)
/// `dbus-monitor` on a private bus (whose configuration allows eavesdropping), to count the method calls
/// a program makes there. Stopped by ``methodCalls()`` or when released.
final class BusMonitor {
    private let pid: String
    private let log: String
    private let address: String

    init(_ keyring: PrivateKeyring) async throws {
        address = keyring.address
        log = "\(keyring.directory)/monitor-\(UUID().uuidString.prefix(8)).log"
        pid = try await Shell.run(
            "/bin/bash", ["-c", "dbus-monitor --address \"$0\" >\"$1\" 2>&1 </dev/null & echo $!", keyring.address, log]
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // Monitoring has begun once the bus took the monitor's name away (BecomeMonitor).
        for _ in 0..<200 {
            if let text = try? String(contentsOfFile: log, encoding: .utf8), text.contains("member=NameLost") { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("dbus-monitor did not start on \(keyring.address)")
    }

    /// Stops the monitor and returns the member names of the method calls it saw, in order.
    func methodCalls() async throws -> [String] {
        try await capture().split(separator: "\n").filter { $0.hasPrefix("method call ") }.compactMap { line in
            line.range(of: "member=").map { String(line[$0.upperBound...].prefix { !$0.isWhitespace }) }
        }
    }

    /// Stops the monitor and returns everything it printed, once it printed every message sent before:
    /// a loaded machine can leave the monitor's socket unread for seconds after the calls were made. The
    /// bus hands the monitor messages in the order it routed them, so a marker signal sent now is printed
    /// after all of them.
    func capture() async throws -> String {
        let marker = "Flushed\(UUID().uuidString.prefix(8))"
        _ = try await Shell.run("/usr/bin/dbus-send", ["--address=\(address)", "--type=signal", "/io/github/biometricsvault/Test", "io.github.biometricsvault.Test.\(marker)"])
        var flushed = false
        for _ in 0..<1_000 where !flushed {
            flushed = (try? String(contentsOfFile: log, encoding: .utf8))?.contains("member=\(marker)") ?? false
            if !flushed { try await Task.sleep(for: .milliseconds(10)) }
        }
        await stop()
        guard flushed else { throw TestFailure("dbus-monitor did not print a marker signal within 10 s") }
        return try String(contentsOfFile: log, encoding: .utf8)
    }

    private func stop() async {
        guard !pid.isEmpty else { return }
        _ = try? await Shell.run("/bin/bash", ["-c", "kill \"$0\" 2>/dev/null; while kill -0 \"$0\" 2>/dev/null; do sleep 0.01; done", pid])
    }

    /// A monitor nobody stopped is killed (it is no child of ours: nothing to reap).
    deinit { if let pid = pid_t(pid) { kill(pid, SIGTERM) } }
}

/// A fake Secret Service provider (python with jeepney) on a private bus, for what gnome-keyring cannot
/// be made to do. Its script prints "ready" once it owns `org.freedesktop.secrets`, then one line per
/// call it wants the test to see.
final class FakeProvider {
    private let child: Shell.Child
    private var stopped = false

    init(script: String, on bus: PrivateKeyring) async throws {
        child = try await Shell.spawn(try Daemon.pythonKeyring(), ["-c", script], environment: bus.environment)
        guard try await Shell.readLine(child.stdout) == "ready" else {
            stop()
            throw TestFailure("the fake provider did not start")
        }
    }

    /// Stops the provider and returns the lines it printed after "ready". Stopping first means a store
    /// that never called cannot make the test wait for a line that never comes.
    func stopAndReadCalls() async -> [String] {
        stop()
        var lines = [String]()
        while let line = try? await Shell.readLine(child.stdout) { lines.append(line) }
        return lines
    }

    private func stop() {
        guard !stopped else { return }
        stopped = true
        child.process.signal(SIGTERM)
    }

    deinit {
        stop()
        close(child.stdin)
        close(child.stdout)
        close(child.stderr)
    }
}
#endif
