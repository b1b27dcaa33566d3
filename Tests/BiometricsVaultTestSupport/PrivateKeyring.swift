#if os(Linux)
import Foundation
import Glibc

/// A private session bus with its own gnome-keyring and keyring files in a temp directory, for tests
/// that lock, restart or kill the daemon (the shared session keyring serves tests running in parallel).
package final class PrivateKeyring {
    package let directory: String
    package let bus: PrivateBus
    package var address: String { bus.address }
    package static let password = "bv-private-keyring-password"

    /// - Parameters:
    ///   - withKeyring: `false` gives a bus on which no Secret Service provider runs.
    ///   - activatable: whether the bus may start gnome-keyring (with this directory's data) when a
    ///     message is sent to `org.freedesktop.secrets`; else nothing is ever activated.
    package init(withKeyring: Bool = true, activatable: Bool = false) throws {
        let root = try TestScratch.newDirectory("keyring")
        directory = root.path
        try FileManager.default.createDirectory(atPath: "\(directory)/data", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(directory)/run", withIntermediateDirectories: true)
        chmod("\(directory)/run", 0o700)
        // When `activatable`, the bus's only service directory holds gnome-keyring; else nothing is
        // auto-activated, so the daemon runs only when this class starts it.
        var serviceDirectory: String?
        if activatable {
            let daemon = try Shell.bash("command -v gnome-keyring-daemon").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try FileManager.default.createDirectory(atPath: "\(directory)/services", withIntermediateDirectories: true)
            try """
                [D-BUS Service]
                Name=org.freedesktop.secrets
                Exec=/usr/bin/env XDG_DATA_HOME=\(directory)/data XDG_RUNTIME_DIR=\(directory)/run \(daemon) --start --foreground --components=secrets
                """.write(toFile: "\(directory)/services/org.freedesktop.secrets.service", atomically: true, encoding: .utf8)
            serviceDirectory = "\(directory)/services"
        }
        bus = try PrivateBus(in: root, serviceDirectory: serviceDirectory)
        if withKeyring { try startKeyring(password: Self.password) }
    }

    package var environment: [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": address, "XDG_DATA_HOME": "\(directory)/data", "XDG_RUNTIME_DIR": "\(directory)/run",
         "DISPLAY": "", "WAYLAND_DISPLAY": ""]
    }

    /// Starts (or replaces) gnome-keyring on this bus and unlocks "login" with `password`; a wrong
    /// password leaves the keyring locked (loaded from disk), as after a failed login.
    package func startKeyring(password: String) throws {
        let result = try Shell.bash(
            "unset DISPLAY WAYLAND_DISPLAY; gnome-keyring-daemon --replace --unlock --components=secrets >/dev/null 2>&1 && gdbus wait --session --timeout 10 org.freedesktop.secrets",
            stdin: password, environment: environment)
        guard result.status == 0 else { throw TestFailure("gnome-keyring did not start: \(result.stderr)") }
    }

    /// Locks the login collection (secret-tool lock segfaults on Debian 12; the D-Bus call does not).
    package func lock() throws {
        let result = try Shell.run(
            "gdbus",
            ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
             "--method", "org.freedesktop.Secret.Service.Lock", "['/org/freedesktop/secrets/collection/login']"],
            environment: environment)
        guard result.status == 0 else { throw TestFailure("Lock failed: \(result.stderr)") }
    }

    /// The PID of the process owning org.freedesktop.secrets on this bus.
    package func keyringPID() throws -> String? {
        let result = try Shell.run(
            "gdbus",
            ["call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
             "--method", "org.freedesktop.DBus.GetConnectionUnixProcessID", "org.freedesktop.secrets"],
            environment: environment)
        guard result.status == 0 else { return nil }
        return result.stdout.split(whereSeparator: { !$0.isNumber }).last.map(String.init)
    }

    /// Freezes (SIGSTOP) or thaws (SIGCONT) the keyring daemon: a provider that stops answering.
    package func signalKeyring(_ signal: String) throws {
        guard let pid = try keyringPID() else { throw TestFailure("no keyring daemon on the private bus") }
        try Shell.run("kill", ["-\(signal)", pid])
    }

    /// Stops the keyring daemon (by PID) and waits until its name is gone from the bus.
    package func stopKeyring() throws {
        guard let pid = try keyringPID() else { return }
        try Shell.run("kill", [pid])
        for _ in 0..<100 where try keyringPID() != nil { usleep(20_000) }
    }

    deinit {
        if let pid = try? keyringPID() { _ = try? Shell.run("kill", ["-CONT", pid]); _ = try? Shell.run("kill", [pid]) }
        bus.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
#endif
