#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// A same-user program with no terminal opens its bus connection in a process that exits while a child
/// keeps the connection; the bus still reports the exited pid. Once a process of the user's terminal is
/// given that pid, the child asks: it must not be let into the terminal's window.
///
/// The pid is given to the terminal's process by root through `ns_last_pid` (a program of the user can
/// get there by forking until the kernel's next pid is the one it wants, but not on cue in a test).
extension VaultServiceCLITests {
    /// The vault service: the child is asked for a finger (its connection attested no process); when the
    /// exited parent had attested the connection, the child is refused outright.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser), arguments: [false, true])
    func aConnectionKeptPastItsProcessJoinsNoWindowByPidReuse(parentAttests: Bool) async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await withCleanup { () async throws -> Void in
            try await storeProtected("reuse", secret: "not-by-a-reused-pid")
            let terminal = try await session(
                ["-c", "\(CLISandbox.binary.path) show reuse --unlock-window 5m --field token && echo opened; \(Self.evalLoop)"],
                as: user, executable: "/bin/sh")
            try await answerFinger()
            #expect(try await terminal.waitFor("opened"), "\(terminal.text)")

            let outcome = try await attackByPidReuse(
                """
                from jeepney import DBusAddress, HeaderFields, new_method_call
                from jeepney.io.blocking import open_dbus_connection
                vault = DBusAddress("/io/github/biometricsvault/Vault1", bus_name="io.github.biometricsvault.Vault1",
                                    interface="io.github.biometricsvault.Vault1")
                bus = open_dbus_connection(bus="SYSTEM")
                \(Self.attestPython)
                if sys.argv[1] == "attest":
                    attest(bus)
                def ask():
                    reply = bus.send_and_get_reply(new_method_call(
                        vault, "Authenticate", "sssus", ("biometryCurrentSet", "x", "biometrics-vault", 0, "terminal")), timeout=60)
                    return reply.header.fields.get(HeaderFields.error_name) or "granted"
                """,
                argument: parentAttests ? "attest" : "plain", environment: [], terminal: terminal)
            #expect(outcome.result != "granted", "the child was let into the terminal's window by pid reuse")
            if parentAttests {
                #expect(outcome.result?.contains("interactionNotAllowed") == true, "\(outcome.result ?? "no answer")")
            } else {
                #expect(outcome.asked, "the child was neither asked nor refused: \(outcome.result ?? "no answer")")
            }
            terminal.type("exit 0\n")
            _ = try await terminal.finish()
            _ = try await run(["reset", "reuse"], as: user)
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    /// The Secret Service provider, whose session bus gives no pidfd: the child's connection is older
    /// than the process now at its pid, so the protected item stays locked for it.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aClientKeptPastItsProcessJoinsNoProviderWindowByPidReuse() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        let bus = try await providerBusWithWindows(for: user)
        try await withCleanup { () async throws -> Void in
            let store = try await sessionOnBus(
                bus.address, ["-c", "printf %s by-reuse | secret-tool store --label Reuse biometrics-vault:policy biometryAny service bv-reuse"],
                as: user, executable: "/bin/sh")
            try await answerFinger()
            #expect(try await store.finish() == 0, "\(store.text)")
            let terminal = try await sessionOnBus(
                bus.address, ["-c", "secret-tool lookup service bv-reuse && echo && echo opened; \(Self.evalLoop)"], as: user, executable: "/bin/sh")
            try await answerFinger()
            #expect(try await terminal.waitFor("opened"), "\(terminal.text)")

            let outcome = try await attackByPidReuse(
                """
                import secretstorage
                bus = secretstorage.dbus_init()
                def ask():
                    item = next(iter(secretstorage.search_items(bus, {"service": "bv-reuse"})))
                    return "locked" if item.is_locked() else "granted " + item.get_secret().decode()
                """,
                argument: "plain", environment: ["DBUS_SESSION_BUS_ADDRESS=\(bus.address)"], terminal: terminal)
            #expect(outcome.result == "locked", "\(outcome.result ?? "no answer")")
            #expect(!outcome.asked)
            terminal.type("exit 0\n")
            _ = try await terminal.finish()
        } cleanup: {
            await bus.stop()
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    /// The rest of a terminal's script: a shell that runs each line typed at it.
    static let evalLoop = #"while IFS= read -r line; do eval "$line"; done"#

    /// Runs the attack as `user`, without a terminal: `setup` (python, after `import os, socket, sys,
    /// time`, with `argument` in `sys.argv[1]`) opens a connection as `bus` and defines `ask()`, which
    /// returns what the call gave. The process that ran `setup` exits; its child, in a session of its own,
    /// keeps the connection until a process of `terminal` (a shell running ``evalLoop``) has been given the
    /// exited pid, then calls `ask()`. Its result, and whether a finger was asked for meanwhile.
    func attackByPidReuse(
        _ setup: String, argument: String, environment: [String], terminal: PTYSession
    ) async throws -> (result: String?, asked: Bool) {
        let home = sandbox.root.appendingPathComponent("home-\(user)")
        let output = home.appendingPathComponent("attacker.out")
        let go = home.appendingPathComponent("attacker.go")
        let script = try sandbox.file("attacker-\(user).py", """
            import os, socket, sys, time
            \(setup)
            if os.fork() == 0:
                # A session of its own: the parent's pid, its session's id until then, is then free.
                os.setsid()
                while not os.path.exists(sys.argv[2]):
                    time.sleep(0.05)
                try:
                    outcome = ask()
                except Exception as failure:
                    outcome = repr(failure)
                print("result:", outcome, flush=True)
                os._exit(0)
            print("parent:", os.getpid(), flush=True)
            os._exit(0)
            """)
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chmod"), ["644", script])
        let started = try await run(
            ["-c", "\(environment.joined(separator: " ")) setsid python3 \(script) \(argument) \(go.path) > \(output.path) 2>&1 < /dev/null &"],
            as: user, executable: "/bin/sh")
        #expect(started.status == 0, "\(started.stderr)")
        var parent: Int32?
        for _ in 0..<200 where parent == nil {
            parent = CLISandbox.text(of: output).split(separator: "\n").first { $0.hasPrefix("parent: ") }.flatMap { Int32($0.dropFirst(8)) }
            try await Task.sleep(for: .milliseconds(50))
        }
        let pid = try #require(parent, "the attacker did not start: \(CLISandbox.text(of: output))")
        // Exited and reaped (by PID 1, which may take seconds): until then the pid is not free.
        for _ in 0..<600 where FileManager.default.fileExists(atPath: "/proc/\(pid)") { try await Task.sleep(for: .milliseconds(50)) }

        // The terminal's shell waits on a fifo; root sets the kernel's last pid and opens the fifo with
        // nothing forked in between (shell builtins), so the shell's next fork is the first to ask for a
        // pid; root's shell then waits until it has forked, so that this process starts no thread (which
        // takes a pid) meanwhile.
        let fifo = home.appendingPathComponent("attacker.fifo").path
        let forked = home.appendingPathComponent("forked.fifo").path
        for path in [fifo, forked, go.path] { unlink(path) }
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/mkfifo"), ["-m", "666", fifo, forked])
        var given = false
        for attempt in 0..<10 where !given {
            // `bg""-N:` as typed (and echoed), `bg-N:` as printed.
            terminal.type("read _ < \(fifo); sleep 120 & echo \"bg\"\"-\(attempt):$!.\"; echo > \(forked)\n")
            let released = try await sandbox.run(
                executable: URL(fileURLWithPath: "/bin/sh"),
                ["-c", "echo \(pid - 1) > /proc/sys/kernel/ns_last_pid; echo go > \(fifo); read _ < \(forked)"])
            #expect(released.status == 0, "\(released.stderr)")
            #expect(try await terminal.waitFor("bg-\(attempt):"), "\(terminal.text)")
            let reported = terminal.text.components(separatedBy: "bg-\(attempt):").last?.components(separatedBy: ".").first
            given = reported == "\(pid)"
            if !given, let other = reported.flatMap({ Int32($0) }) { kill(other, SIGKILL) }
        }
        try #require(given, "no process of the terminal was given pid \(pid): \(terminal.text)")
        defer { kill(pid, SIGKILL) }

        try Data().write(to: go)
        var result: String?
        var asked = false
        for _ in 0..<200 where result == nil && !asked {
            result = CLISandbox.text(of: output).split(separator: "\n").first { $0.hasPrefix("result: ") }.map { String($0.dropFirst(8)) }
            asked = try await reader.fingerNeeded()
            try await Task.sleep(for: .milliseconds(50))
        }
        // Ending the child's connection ends a prompt it started.
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/pkill"), ["-f", "-u", user, "attacker-\(user).py"])
        return (result, asked)
    }
}
#endif
