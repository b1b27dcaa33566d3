#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// A login shell of a test user in the box, on a terminal of its own (a logind session with that
/// terminal; `controlling` false: a session whose processes have no controlling terminal, as a
/// desktop's), that runs each line typed and answers the reader with the enrolled finger whenever fprintd
/// asks for one meanwhile. `$B` is the installed CLI.
final class BoxSessionShell {
    let terminal: PTYSession
    let box: SystemdBox
    /// The logind session's id (`c3`).
    let id: String
    private var steps = 0

    init(_ box: SystemdBox, as user: String, controlling: Bool = true) async throws {
        self.box = box
        let script = """
            B=\(SystemdBox.cli); i=0; echo "session=$XDG_SESSION_ID."
            while IFS= read -r line; do eval "$line"; i=$((i+1)); echo "finished:$i."; done
            """
        terminal = try await box.terminal(as: user, script, controlling: controlling)
        #expect(try await terminal.waitFor("session="), "\(terminal.text)")
        id = terminal.text.components(separatedBy: "session=").last?.components(separatedBy: ".").first ?? ""
    }

    /// Runs one line of shell: whether fprintd asked for a finger while it ran (it was answered).
    @discardableResult
    func run(_ line: String) async throws -> Bool {
        steps += 1
        terminal.type(line + "\n")
        var asked = false
        for _ in 0..<1200 where !terminal.text.contains("finished:\(steps).") {
            if try await box.reader.fingerNeeded() {
                try await box.reader.scan(SystemdBox.finger)
                asked = true
                for _ in 0..<100 where try await box.reader.fingerNeeded() { try await Task.sleep(for: .milliseconds(50)) }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(terminal.text.contains("finished:\(steps)."), "\(line) did not finish: \(terminal.text)")
        return asked
    }

    func logout() async throws -> Int32 {
        terminal.type("exit 0\n")
        return try await terminal.finish()
    }
}

extension SystemdBox {
    /// The Secret Service provider's user unit.
    static let providerUnit = "biometrics-vault-secret-service.service"

    /// A login shell of the test user with the provider chosen (its activation file linked into the
    /// user's own; with `window`, unlock windows set in the config file the activated provider reads);
    /// `controlling` false: its programs have no controlling terminal, as a desktop's. Everything is undone
    /// after `body`.
    func withProviderChosen(window: Bool = false, controlling: Bool = true, _ body: (BoxSessionShell) async throws -> Void) async throws {
        let shell = try await BoxSessionShell(self, as: user, controlling: controlling)
        try await withCleanup { () async throws -> Void in
            try await shell.run("""
                mkdir -p ~/.local/share/dbus-1/services ~/.config/biometrics-vault && \
                ln -sf /usr/share/biometrics-vault/dbus-1/org.freedesktop.secrets.service ~/.local/share/dbus-1/services/ && \
                \(window ? "echo 'unlock-window = 5m' > ~/.config/biometrics-vault/config" : "rm -f ~/.config/biometrics-vault/config")
                """)
            // The session bus of an earlier test's login may still run: it sees a new activation file
            // when it gets to the directory's inotify event, and gnome-keyring's file until then. A
            // reload reads it now.
            try await shell.run(
                "dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.ReloadConfig >/dev/null")
            try await body(shell)
        } cleanup: {
            _ = try? await shell.run("systemctl --user stop \(Self.providerUnit); rm -f ~/.local/share/dbus-1/services/org.freedesktop.secrets.service ~/.config/biometrics-vault/config")
            _ = try? await shell.logout()
        }
    }
}

extension SystemdBoxTests {
    /// The service's windows where logind runs: scoped to the caller's logind session and its terminal,
    /// closed by what logind signals.
    @Suite final class LogindWindows {
        let box: SystemdBox
        static let key = "box-window"
        static let secret = "inside-the-login-window"
        static let open = "$B show \(key) --field token --unlock-window 5m"
        static let show = "$B show \(key) --field token"
        static let resume = ["dbus-send", "--system", "--type=signal", "/org/freedesktop/login1",
                             "org.freedesktop.login1.Manager.PrepareForSleep", "boolean:false"]

        init() async throws {
            box = try SystemdBox()
            try await box.ensureInstalled()
        }

        deinit { box.remove() }

        /// The item, stored with a finger enrolled for the test user; then `body`; then everything undone.
        func withProtectedItem(_ body: () async throws -> Void) async throws {
            try await box.enrollOnly(box.user, finger: SystemdBox.finger)
            try await withCleanup { () async throws -> Void in
                try await box.storeProtected(Self.key, secret: Self.secret)
                try await body()
            } cleanup: {
                _ = try? await box.run(as: box.user, "\(SystemdBox.cli) lock; \(SystemdBox.cli) reset \(Self.key)")
                _ = try? await box.run(["fprintd-delete", box.user])
            }
        }

        /// The user's audit entries of the last minutes whose result contains `text`, waited for (a
        /// signal closes windows a moment after it is sent).
        func waitForAudit(_ text: String) async throws -> Bool {
            for _ in 0..<100 {
                let audit = try await box.run(as: box.user, "\(SystemdBox.cli) audit --since 10m")
                if audit.stdout.contains(text) { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return false
        }

        /// One finger opens a window for the logind session and its terminal: a second read there is
        /// not asked; another logind session of the same user, a process that left the terminal
        /// (`setsid`) and one that left the logind session (`systemd-run --user --scope`) are.
        @Test func aWindowServesItsLogindSessionAndItsTerminalOnly() async throws {
            try await withProtectedItem {
                let shell = try await BoxSessionShell(box, as: box.user)
                #expect(try await shell.run(Self.open), "the first read was not asked: \(shell.terminal.text)")
                #expect(try await !shell.run(Self.show), "a read in the window's session and terminal was asked")
                let other = try await BoxSessionShell(box, as: box.user)
                #expect(shell.id != other.id && !other.id.isEmpty, "\(shell.id) \(other.id)")
                #expect(try await other.run(Self.show), "another logind session of the user was not asked")
                #expect(try await shell.run("setsid -w \(Self.show)"), "a process without the terminal was not asked")
                #expect(try await shell.run("systemd-run --user --scope -q \(Self.show)"), "a process moved out of the logind session was not asked")
                #expect(try await !shell.run(Self.show), "the window closed")
                #expect(try await shell.logout() == 0, "\(shell.terminal.text)")
                #expect(try await other.logout() == 0)
                #expect(shell.terminal.text.components(separatedBy: Self.secret).count - 1 == 5, "\(shell.terminal.text)")
                #expect(try await waitForAudit("on logind session \(shell.id), tty"), "the window's scope is not in the audit")
            }
        }

        /// `loginctl lock-session`, `loginctl lock-sessions` and `PrepareForSleep(true)` each close the
        /// window: the next read in the same session and terminal is asked again.
        @Test(arguments: ["lock-session", "lock-sessions", "PrepareForSleep"])
        func aLockOrASuspendClosesTheWindow(closer: String) async throws {
            try await withProtectedItem {
                let shell = try await BoxSessionShell(box, as: box.user)
                #expect(try await shell.run(Self.open), "\(shell.terminal.text)")
                #expect(try await !shell.run(Self.show), "\(shell.terminal.text)")
                switch closer {
                case "lock-session": try await box.run(["loginctl", "lock-session", shell.id])
                case "lock-sessions": try await box.run(["loginctl", "lock-sessions"])
                default:
                    try await box.run(["dbus-send", "--system", "--type=signal", "/org/freedesktop/login1",
                                       "org.freedesktop.login1.Manager.PrepareForSleep", "boolean:true"])
                }
                let reason = closer == "PrepareForSleep" ? "org.freedesktop.login1.Manager signalled: 1 window(s)" : "locked: 1 window(s)"
                #expect(try await waitForAudit(reason), "no window closed by \(closer)")
                // fprintd suspends its devices on the same signal: the resume that ends a real suspend.
                if closer == "PrepareForSleep" { try await box.run(Self.resume) }
                #expect(try await shell.run(Self.show), "a read after \(closer) was not asked: \(shell.terminal.text)")
                #expect(try await shell.logout() == 0)
            }
        }

        /// A window opened by a process without a controlling terminal serves the processes of its logind
        /// session that have none (a desktop's programs); `loginctl terminate-session` and a logout end the
        /// session, and the service closes the window when logind says the session was removed.
        @Test(arguments: ["terminate-session", "logout"])
        func theEndOfTheLogindSessionClosesTheWindow(ending: String) async throws {
            try await withProtectedItem {
                let shell = try await BoxSessionShell(box, as: box.user, controlling: false)
                #expect(try await shell.run(Self.open), "\(shell.terminal.text)")
                #expect(try await !shell.run(Self.show), "a read in the window's session was asked: \(shell.terminal.text)")
                #expect(try await waitForAudit("on logind session \(shell.id), without a terminal"), "the window's scope is not in the audit")
                if ending == "logout" {
                    #expect(try await shell.logout() == 0)
                } else {
                    try await box.run(["loginctl", "terminate-session", shell.id])
                    _ = try await shell.terminal.finish()
                }
                #expect(try await waitForAudit("logind session \(shell.id) ended: 1 window(s)"), "the window outlived its session (\(ending))")
            }
        }
    }
}
#endif
