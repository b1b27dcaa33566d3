// A private dbus-daemon: Linux only (the D-Bus tests are).
#if os(Linux)
import Foundation
import Glibc

/// A `dbus-daemon` of a test's own, started as the setup scripts start theirs
/// (scripts/lib/private-session-bus.sh: anyone may own any name and eavesdrop, for `dbus-monitor`), in a
/// directory of its own. It stands in for the session bus (a private keyring, a screen saver's signals)
/// or the system bus (`doctor` with no fprintd). Nothing is activated unless a service directory is
/// given. Stopped by ``stop()`` or when released.
package final class PrivateBus {
    package let directory: URL
    package let address: String
    private let pid: pid_t
    private var stopped = false

    /// - Parameters:
    ///   - directory: where the bus lives (its socket in `run/`); a new one in the test scratch directory
    ///     when `nil`.
    ///   - serviceDirectory: `.service` files the bus may activate.
    package init(in directory: URL? = nil, serviceDirectory: String? = nil) async throws {
        self.directory = try directory ?? TestScratch.newDirectory("bus")
        let run = self.directory.appendingPathComponent("run").path
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let script = repositoryRoot().appendingPathComponent("scripts/lib/private-session-bus.sh").path
        // The function returns once the daemon printed its address, which it does once it listens.
        let started = try await Shell.run(
            "/bin/bash", ["-c", #". "$0" && start_private_session_bus "$1" "$2" && echo "$DBUS_SESSION_BUS_ADDRESS""#,
                          script, self.directory.path, serviceDirectory ?? ""])
        let pidText = (try? String(contentsOfFile: self.directory.appendingPathComponent("dbus.pid").path, encoding: .utf8)) ?? ""
        address = started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard started.status == 0, !address.isEmpty, let pid = pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("the private dbus-daemon did not start: \(started.stderr)")
        }
        self.pid = pid
    }

    /// The daemon still runs.
    package var isRunning: Bool { !stopped && kill(pid, 0) == 0 }

    /// The environment for a program that should take this bus as its session bus.
    package var sessionEnvironment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    /// Sends `signal` to the daemon: SIGSTOP gives a bus that accepts connections and answers nothing (a
    /// busy or hung dbus-daemon) until SIGCONT.
    package func send(_ signal: Int32) {
        guard !stopped else { return }
        kill(pid, signal)
    }

    /// Kills the daemon (SIGKILL: it may have inherited a blocked SIGTERM) and waits until it is gone.
    package func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGKILL)
        for _ in 0..<500 where kill(pid, 0) == 0 { usleep(10_000) }
    }

    deinit { stop() }
}
#endif
