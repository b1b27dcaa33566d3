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
    package init(withKeyring: Bool = true, activatable: Bool = false) async throws {
        let root = try TestScratch.newDirectory("keyring")
        directory = root.path
        try FileManager.default.createDirectory(atPath: "\(directory)/data", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(directory)/run", withIntermediateDirectories: true)
        chmod("\(directory)/run", 0o700)
        // When `activatable`, the bus's only service directory holds gnome-keyring; else nothing is
        // auto-activated, so the daemon runs only when this class starts it.
        var serviceDirectory: String?
        if activatable {
            let daemon = try await Shell.bash("command -v gnome-keyring-daemon").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try FileManager.default.createDirectory(atPath: "\(directory)/services", withIntermediateDirectories: true)
            try """
                [D-BUS Service]
                Name=org.freedesktop.secrets
                Exec=/usr/bin/env XDG_DATA_HOME=\(directory)/data XDG_RUNTIME_DIR=\(directory)/run \(daemon) --start --foreground --components=secrets
                """.write(toFile: "\(directory)/services/org.freedesktop.secrets.service", atomically: true, encoding: .utf8)
            serviceDirectory = "\(directory)/services"
        }
        bus = try await PrivateBus(in: root, serviceDirectory: serviceDirectory)
        if withKeyring { try await startKeyring(password: Self.password) }
    }

    package var environment: [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": address, "XDG_DATA_HOME": "\(directory)/data", "XDG_RUNTIME_DIR": "\(directory)/run",
         "DISPLAY": "", "WAYLAND_DISPLAY": ""]
    }

    /// Starts (or replaces) gnome-keyring on this bus and unlocks "login" with `password`; a wrong
    /// password leaves the keyring locked (loaded from disk), as after a failed login.
    package func startKeyring(password: String) async throws {
        let result = try await Shell.bash(
            "unset DISPLAY WAYLAND_DISPLAY; gnome-keyring-daemon --replace --unlock --components=secrets >/dev/null 2>&1 && gdbus wait --session --timeout 10 org.freedesktop.secrets",
            stdin: password, environment: environment)
        guard result.status == 0 else { throw TestFailure("gnome-keyring did not start: \(result.stderr)") }
    }

    /// Locks the login collection (secret-tool lock segfaults on Debian 12; the D-Bus call does not).
    package func lock() async throws {
        let result = try await Shell.run(
            "gdbus",
            ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
             "--method", "org.freedesktop.Secret.Service.Lock", "['/org/freedesktop/secrets/collection/login']"],
            environment: environment)
        guard result.status == 0 else { throw TestFailure("Lock failed: \(result.stderr)") }
    }

    /// The PID of the process owning org.freedesktop.secrets on this bus.
    package func keyringPID() async throws -> String? {
        let result = try await Shell.run(
            "gdbus",
            ["call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
             "--method", "org.freedesktop.DBus.GetConnectionUnixProcessID", "org.freedesktop.secrets"],
            environment: environment)
        guard result.status == 0 else { return nil }
        return result.stdout.split(whereSeparator: { !$0.isNumber }).last.map(String.init)
    }

    /// Freezes (SIGSTOP) or thaws (SIGCONT) the keyring daemon: a provider that stops answering.
    package func signalKeyring(_ signal: String) async throws {
        guard let pid = try await keyringPID() else { throw TestFailure("no keyring daemon on the private bus") }
        try await Shell.run("kill", ["-\(signal)", pid])
    }

    /// Stops the keyring daemon (by PID) and waits until its name is gone from the bus.
    package func stopKeyring() async throws {
        guard let pid = try await keyringPID() else { return }
        try await Shell.run("kill", [pid])
        for _ in 0..<100 where try await keyringPID() != nil { try await Task.sleep(for: .milliseconds(20)) }
    }

    /// The gnome-keyring daemons started for this keyring (their environment names its runtime
    /// directory), read from /proc: a deinit cannot ask the bus.
    private var daemonPIDs: [pid_t] {
        let marker = Array("XDG_RUNTIME_DIR=\(directory)/run".utf8)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = pid_t(entry),
                let command = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                String(decoding: command, as: UTF8.self).contains("gnome-keyring-daemon"),
                let environment = FileManager.default.contents(atPath: "/proc/\(entry)/environ")
            else { return nil }
            return environment.split(separator: 0).contains { Array($0) == marker } ? pid : nil
        }
    }

    deinit {
        for pid in daemonPIDs {
            kill(pid, SIGCONT)
            kill(pid, SIGTERM)
        }
        bus.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
#endif
