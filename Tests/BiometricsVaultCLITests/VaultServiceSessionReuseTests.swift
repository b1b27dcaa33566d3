#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// A window of the vault service against the terminal session it was opened for being re-created: the
/// session's leader exits, and a new process given the leader's pid (root sets the system's
/// `ns_last_pid`, as an attacker gets by forking until the pids wrap) makes a session of that number on
/// the same pty. The service scopes a window by the leader's start time and pidfd too, so the new session
/// is asked for a finger. Part of the vault service's serialized suite: one reader.
extension VaultServiceCLITests {
    /// Run as root: two sessions on one pty, each a `runuser` of the test user as its leader.
    static let sessionReuseDriver = #"""
        import fcntl, json, os, pwd, select, signal, sys, termios, time
        binary, user, home, asan, lsan = sys.argv[1:6]
        account = pwd.getpwnam(user)
        master, slave = os.openpty()
        terminal = os.ttyname(slave)
        os.chown(terminal, account.pw_uid, -1)
        prefix = ["/usr/sbin/runuser", "-u", user, "--", "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=" + home,
                  "USER=" + user, "XDG_RUNTIME_DIR=" + home + "/run", "ASAN_OPTIONS=" + asan, "LSAN_OPTIONS=" + lsan,
                  "SWIFT_BACKTRACE=enable=no", "/bin/sh", "-c"]

        def lead(script, wanted_pid=None):
            pid = os.fork()
            if pid == 0:
                if wanted_pid is not None and os.getpid() != wanted_pid:
                    os._exit(99)
                os.setsid()
                descriptor = os.open(terminal, os.O_RDWR)
                fcntl.ioctl(descriptor, termios.TIOCSCTTY, 0)
                for target in (0, 1, 2):
                    os.dup2(descriptor, target)
                os.execv(prefix[0], prefix + [script])
            return pid

        def read_until(marker, seconds):
            text, deadline = b"", time.time() + seconds
            while marker.encode() not in text and time.time() < deadline:
                ready, _, _ = select.select([master], [], [], 0.1)
                if ready:
                    try:
                        text += os.read(master, 65536)
                    except OSError:
                        break
            return text.decode(errors="replace")

        result = {}
        first = lead(f"{binary} show reuse --field token --unlock-window 5m; {binary} show reuse --field token; echo first-done")
        seen = read_until("Touch the fingerprint reader", 30)
        print("finger", flush=True)
        seen += read_until("first-done", 60)
        os.waitpid(first, 0)
        result["first"] = seen
        # Two clock ticks later, so that the start times differ (/proc counts 10 ms ticks).
        time.sleep(0.05)
        # The number is free once nothing of the first session holds it (a process, or its group or session
        # id), and only if no other process of the machine forks between the write and the fork: on a busy
        # machine either can take a while, so this tries for up to 30 s.
        second = None
        deadline = time.time() + 30
        while second is None and time.time() < deadline:
            with open("/proc/sys/kernel/ns_last_pid", "w") as file:
                file.write(str(first - 1))
            pid = lead(f"{binary} show reuse --field token; echo second-done", wanted_pid=first)
            if pid == first:
                second = pid
                break
            os.waitpid(pid, 0)
            time.sleep(0.02)
        result["reused"] = second == first
        if second:
            seen = read_until("Touch the fingerprint reader", 15)
            result["second"] = seen
            os.killpg(second, signal.SIGTERM)
            os.waitpid(second, 0)
        print(json.dumps(result), flush=True)
        """#

    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aSessionRecreatedOnTheWindowsTerminalWithItsLeadersPidIsAsked() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await withCleanup { () async throws -> Void in
            let secret = "not-for-a-new-session"
            try await storeProtected("reuse", secret: secret)
            let environment = ProcessInfo.processInfo.environment
            let driver = try await Shell.spawn(
                "/usr/bin/python3",
                ["-c", Self.sessionReuseDriver, CLISandbox.binary.path, user, sandbox.root.appendingPathComponent("home-\(user)").path,
                 environment["ASAN_OPTIONS"] ?? "", environment["LSAN_OPTIONS"] ?? ""])
            defer {
                driver.process.terminate()
                for fd in [driver.stdin, driver.stdout, driver.stderr] { close(fd) }
            }
            #expect(try await Shell.readLine(driver.stdout) == "finger")
            try await answerFinger()
            let line = try await Shell.readLine(driver.stdout)
            let result = try #require(line.jsonObject, "driver: \(line)")
            let first = result["first"] as? String ?? ""
            // One finger for the first session's two reads: its window served the second.
            #expect(first.components(separatedBy: secret).count - 1 == 2, "\(first)")
            #expect(first.components(separatedBy: "Touch the fingerprint reader").count - 1 == 1, "\(first)")
            try #require(result["reused"] as? Bool == true, "the leader's pid was not given to the new session: \(result)")
            let second = result["second"] as? String ?? ""
            #expect(second.contains("Touch the fingerprint reader"), "the re-created session was not asked: \(second)")
            #expect(!second.contains(secret), "\(second)")
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }
}
#endif

#if os(Linux)
extension VaultServiceCLITests {
    /// Python (jeepney): `attest(bus)` tells the service that `bus` is this process's connection, as the
    /// CLI and the library do before the calls that depend on the calling process (Docs/VaultService.md,
    /// "who asks"); without it a connection joins and opens no window.
    static let attestPython = #"""
        import socket
        import jeepney
        def attest(bus):
            driver = jeepney.DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")
            bus.send_and_get_reply(jeepney.new_method_call(driver, "StartServiceByName", "su", ("io.github.biometricsvault.Vault1", 0)))
            peer = socket.socket(socket.AF_UNIX)
            peer.connect("/run/biometrics-vault/peer.socket")
            token = b""
            while len(token) < 32:
                token += peer.recv(32 - len(token))
            service = jeepney.DBusAddress("/io/github/biometricsvault/Vault1", bus_name="io.github.biometricsvault.Vault1",
                                          interface="io.github.biometricsvault.Vault1")
            reply = bus.send_and_get_reply(jeepney.new_method_call(service, "Attest", "ay", (token,)))
            assert reply.header.message_type == jeepney.MessageType.method_return, reply.body
        """#

    /// A program on a terminal (python's jeepney, one system-bus connection) asks the service itself for
    /// `biometryAny` grants with a window.
    static let windowClient = #"""
        import sys
        from jeepney import DBusAddress, new_method_call
        from jeepney.io.blocking import open_dbus_connection
        bus = open_dbus_connection(bus="SYSTEM")
        vault = DBusAddress("/io/github/biometricsvault/Vault1", bus_name="io.github.biometricsvault.Vault1",
                            interface="io.github.biometricsvault.Vault1")
        \#(attestPython)
        attest(bus)
        def authenticate(step):
            reply = bus.send_and_get_reply(new_method_call(vault, "Authenticate", "sssus",
                ("biometryAny", "window check", "biometrics-vault", 300, "terminal")), timeout=120)
            print(step, reply.header.message_type.name, len(reply.body[0]) if reply.body else 0, flush=True)
        authenticate("first")
        authenticate("second")
        input()
        authenticate("third")
        """#

    /// A window of the service ends when the user's enrolled fingers change, also for a policy that
    /// survives the change (`biometryAny`): the next grant asks for a finger again.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func anEnrollmentChangeClosesTheServicesWindow() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await withCleanup { () async throws -> Void in
            func windowGrants() async throws -> Int {
                try await run(["audit"], as: user).stdout.components(separatedBy: ": inside a window").count - 1
            }
            let grantsBefore = try await windowGrants()
            let client = try await session(["-c", Self.windowClient], as: user, executable: "/usr/bin/python3")
            try await answerFinger()
            #expect(try await client.waitFor("second method_return 32"), "\(client.text)")
            #expect(client.text.contains("first method_return 32"), "\(client.text)")
            // The second grant came from the window: the service says so, and no finger was asked for.
            #expect(try await windowGrants() == grantsBefore + 1)
            #expect(try await !reader.fingerNeeded())
            try await reader.enrollFinger(user: user, finger: "service-user-added-finger", as: "left-thumb")
            client.type("\n")
            // The third asks for a finger (answerFinger records an issue when fprintd never asks).
            try await answerFinger()
            #expect(try await client.waitFor("third method_return 32"), "\(client.text)")
            #expect(try await client.finish() == 0, "\(client.text)")
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }
}
#endif

#if os(Linux)
extension VaultServiceCLITests {
    /// The service run by hand as its user with a 2-second idle exit, under the build's sanitizers: after
    /// one call it exits by itself, with status 0 and no LeakSanitizer report (a report there is what
    /// the memory a long-running service loses at each call would show).
    @Test(.needs(CLINeeds.testUser))
    func theServiceExitsWhenIdleAndLeavesNothingBehind() async throws {
        try await prepareHomes()
        if let pid = try await servicePID() {
            kill(pid, SIGKILL)
            for _ in 0..<100 where try await servicePID() != nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let reports = sandbox.root.appendingPathComponent("service-reports")
        try FileManager.default.createDirectory(at: reports, withIntermediateDirectories: true)
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chmod"), ["1777", reports.path])
        let environment = ProcessInfo.processInfo.environment
        let tcti = environment["BV_VAULT_SERVICE_TPM"] == "1" ? ["BIOMETRICS_VAULT_TPM_TCTI=swtpm:path=/var/lib/biometrics-vault-ci-tpm/tpm.sock"] : []
        let service = try await ChildProcess.start(
            "/usr/sbin/runuser",
            ["-u", "biometrics-vault", "--", "/usr/bin/env", "-i", "PATH=/usr/bin:/bin",
             "ASAN_OPTIONS=log_path=\(reports.path)/asan:log_exe_name=1:detect_leaks=1",
             "LSAN_OPTIONS=\(environment["LSAN_OPTIONS"] ?? "")", "SWIFT_BACKTRACE=enable=no"] + tcti
                + [CLISandbox.binary.path, "service", "--idle-exit", "2"])
        for _ in 0..<200 where try await servicePID() == nil { try await Task.sleep(for: .milliseconds(25)) }
        let listed = try await run(["--store", "service", "list"], as: user)
        #expect(listed.status == 0, "\(listed.stderr)")
        let exit = try await service.exit(within: 30)
        #expect(exit?.code == 0 && exit?.signalled == false, "the service did not exit by itself when idle: \(String(describing: exit))")
        let found = (try? FileManager.default.contentsOfDirectory(atPath: reports.path)) ?? []
        let text = found.compactMap { try? String(contentsOf: reports.appendingPathComponent($0), encoding: .utf8) }.joined()
        #expect(!text.contains("LeakSanitizer") && !text.contains("AddressSanitizer"), "\(text.prefix(3000))")
    }
}
#endif
