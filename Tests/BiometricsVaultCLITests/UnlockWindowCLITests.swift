#if os(Linux)
import BiometricsVault
import BiometricsVaultAgent
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// The unlock window (`--unlock-window`, `biometrics-vault agent`, `lock`) with real processes: the
/// built CLI on real ptys as the test user (`scripts/setup/30-fprintd-polkit.sh`), whose protected item
/// is gated by its login password through PAM, so every prompt is PAM's real `Password: ` on the pty.
@Suite(.onTestThreads) final class UnlockWindowCLITests {
    let sandbox: CLISandbox
    let runtime: URL

    init() throws {
        sandbox = try CLISandbox()
        // A short directory of its own, as /run/user/UID is: under the sandbox (itself under CI's run
        // directory) the socket's path would pass the 107 bytes a Unix socket address holds.
        var template = Array("/tmp/bv-uw.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        runtime = URL(fileURLWithPath: String(cString: try #require(made)))
    }
    deinit {
        // The test's agent (found by its socket's peer credentials, never by name) would otherwise stay
        // until its windows and idle time ran out.
        if let descriptor = connectRaw() {
            var credentials = [Int32](repeating: 0, count: 3)
            var length = socklen_t(12)
            if getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0, credentials[0] > 0 {
                kill(credentials[0], SIGTERM)
            }
            close(descriptor)
        }
        sandbox.remove()
        try? FileManager.default.removeItem(at: runtime)
    }

    var paths: AgentPaths { AgentPaths(directory: runtime.path + "/biometrics-vault") }

    /// Root (to become the test user), the test user whose password PAM checks, and the PAM service.
    static let terminalUser = DaemonNeed(
        "root, BV_TEST_USER / BV_TEST_PASSWORD and /etc/pam.d/biometrics-vault", remedy: "scripts/setup/30-fprintd-polkit.sh",
        problem: getuid() == 0 && CLINeeds.testUser.problem == nil && FileManager.default.fileExists(atPath: "/etc/pam.d/biometrics-vault")
            ? nil : "missing")

    /// The test user and password (``terminalUser``), with the sandbox handed to that user.
    func testUser() async throws -> (user: String, password: String) {
        let environment = ProcessInfo.processInfo.environment
        let user = try #require(environment["BV_TEST_USER"]), password = try #require(environment["BV_TEST_PASSWORD"])
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chown"), ["-R", user, sandbox.root.path, runtime.path])
        return (user, password)
    }

    /// A login shell's terminal: `sh` as the test user on its own pty (its own session), running one
    /// command at a time.
    final class UserTerminal {
        let session: PTYSession
        let password: String
        private var commands = 0

        /// - Parameter systemBus: `DBUS_SYSTEM_BUS_ADDRESS` of the shell (and of the agent it starts); `nil`: the real one.
        init(
            user: String, password: String, sandbox: CLISandbox, runtime: URL, sessionBus: String = "unix:path=/nonexistent/bv-cli-test-bus",
            systemBus: String? = nil
        ) async throws {
            self.password = password
            let command = [
                "runuser", "-u", user, "--", "env", "HOME=\(sandbox.root.path)", "XDG_RUNTIME_DIR=\(runtime.path)",
                "XDG_DATA_HOME=\(sandbox.root.path)/data", "XDG_STATE_HOME=\(sandbox.root.path)/state",
                "XDG_CONFIG_HOME=\(sandbox.root.path)/config", "DBUS_SESSION_BUS_ADDRESS=\(sessionBus)",
            ] + (systemBus.map { ["DBUS_SYSTEM_BUS_ADDRESS=\($0)"] } ?? []) + ["PS1=", "sh"]
            session = try await PTYSession(command: shellQuoted(command), environment: sandbox.environment)
        }

        /// Runs the CLI with `words` (and `--store file --authenticator pam` when `storeOptions`), after
        /// `prefix` (`env ...`, `setsid -w`), with `input` piped to its stdin, and answers PAM's prompt when it comes; whether it prompted, the
        /// exit status and what the terminal showed.
        func run(_ words: [String], prefix: [String] = [], storeOptions: Bool = true, input: String? = nil) async throws -> (prompted: Bool, status: Int32?, text: String) {
            commands += 1
            let start = session.text.count
            let marker = "BVDONE-\(commands)-"
            let line = shellQuoted(prefix + [CLISandbox.binary.path] + words + (storeOptions ? ["--store", "file", "--authenticator", "pam"] : []))
                .prependingStandardInput(input)
            // printf's format keeps the marker out of the echoed command line.
            session.type("\(line); printf 'BV%s-\(commands)-%d\\n' DONE $?\n")
            var prompted = false
            for _ in 0..<600 {
                let text = String(session.text.dropFirst(start))
                if let range = text.range(of: marker) {
                    let status = Int32(text[range.upperBound...].prefix { $0.isNumber })
                    return (prompted, status, text)
                }
                if !prompted, text.contains("Password: ") {
                    prompted = true
                    session.type(password + "\n")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            return (prompted, nil, String(session.text.dropFirst(start)))
        }

        func close() async {
            session.type("exit\n")
            _ = try? await session.finish()
        }
    }

    /// Stores a protected item (one password prompt) on `terminal`.
    func storeProtected(_ terminal: UserTerminal, user: String) async throws {
        let credentials = try sandbox.file("creds.json", #"{"token":"inside-the-window"}"#)
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chown"), [user, credentials])
        let stored = try await terminal.run(["store", "item", "--biometrics", "--from-file", credentials])
        #expect(stored.status == 0 && stored.prompted, "\(stored.text)")
    }

    /// The agent's pid, from the kernel's peer credentials of its socket.
    func agentPID() throws -> Int32 {
        let descriptor = try #require(connectRaw())
        defer { close(descriptor) }
        var credentials = [Int32](repeating: 0, count: 3)
        var length = socklen_t(12)
        try #require(getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0)
        return credentials[0]
    }

    func connectRaw() -> Int32? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(paths.socket.utf8) + [0]
        guard path.count <= MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            return nil
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        var limit = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }

    /// Everything the agent sends back before it closes (empty: it closed without answering).
    func exchangeRaw(_ descriptor: Int32, _ bytes: [UInt8]) -> [UInt8] {
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = recv(descriptor, &buffer, buffer.count, 0)
            guard got > 0 else { break }
            answer += buffer[..<got]
        }
        return answer
    }

    var agentLog: String { CLISandbox.text(of: URL(fileURLWithPath: paths.log)) }

    // MARK: scope

    /// One prompt for three reads on one terminal; another terminal (another session) prompts; a
    /// process without a terminal gets no window; `lock` closes it.
    @Test(.needs(UnlockWindowCLITests.terminalUser)) func oneTerminalPromptsOnceOthersPrompt() async throws {
        let (user, password) = try await testUser()
        let first = try await UserTerminal(user: user, password: password, sandbox: sandbox, runtime: runtime)
        try await withCleanup { () async throws -> Void in
            try await storeProtected(first, user: user)

            var reads: [(prompted: Bool, status: Int32?, text: String)] = []
            for _ in 0..<3 { reads.append(try await first.run(["show", "item", "--field", "token", "--unlock-window", "60"])) }
            for read in reads {
                #expect(read.status == 0 && read.text.contains("inside-the-window"), "\(read.text)")
            }
            #expect(reads.map(\.prompted) == [true, false, false], "\(reads.map(\.text))")
            // The environment variable turns it on too.
            let byVariable = try await first.run(["show", "item", "--field", "token"], prefix: ["env", "BIOMETRICS_VAULT_UNLOCK_WINDOW=1m"])
            #expect(byVariable.status == 0 && !byVariable.prompted, "\(byVariable.text)")
            // Without the option, nothing changes: it prompts.
            let off = try await first.run(["show", "item", "--field", "token"])
            #expect(off.status == 0 && off.prompted, "\(off.text)")

            let second = try await UserTerminal(user: user, password: password, sandbox: sandbox, runtime: runtime)
            try await withCleanup { () async throws -> Void in
                let elsewhere = try await second.run(["show", "item", "--field", "token", "--unlock-window", "60"])
                #expect(elsewhere.prompted && elsewhere.status == 0, "\(elsewhere.text)")

                // setsid: no controlling terminal, so no window and no terminal for PAM: it fails as without one.
                let detached = try await first.run(["show", "item", "--field", "token", "--unlock-window", "60"], prefix: ["setsid", "-w"])
                #expect(detached.status != 0 && !detached.text.contains("inside-the-window"), "\(detached.text)")

                // git's credential helper: its `store --biometrics` (without a window length) prompts; its `get`
                // inside the window does not.
                let helperStored = try await first.run(
                    ["git-credential", "--biometrics", "store"], input: "protocol=https\nhost=example.com\nusername=alice\npassword=p\n\n")
                #expect(helperStored.status == 0 && helperStored.prompted, "\(helperStored.text)")
                let helperGot = try await first.run(["git-credential", "get", "--unlock-window", "60"], input: "protocol=https\nhost=example.com\n\n")
                #expect(helperGot.status == 0 && !helperGot.prompted && helperGot.text.contains("password=p"), "\(helperGot.text)")

                let status = try await first.run(["agent", "--status"], storeOptions: false)
                #expect(status.status == 0 && status.text.contains("open: service 'biometrics-vault' (devicePasscode)"), "\(status.text)")
                let elsewhereStatus = try await second.run(["agent", "--status"], storeOptions: false)
                #expect(elsewhereStatus.text.contains("open: service 'biometrics-vault'"), "the second terminal opened its own: \(elsewhereStatus.text)")
                let locked = try await first.run(["lock"], storeOptions: false)
                #expect(locked.status == 0 && locked.text.contains("closed 2 unlock window(s)"), "\(locked.text)")
                let afterLock = try await first.run(["show", "item", "--field", "token", "--unlock-window", "60"])
                #expect(afterLock.prompted && afterLock.status == 0, "\(afterLock.text)")
            } cleanup: {
                await second.close()
            }
        } cleanup: {
            await first.close()
        }
    }

    @Test(.needs(UnlockWindowCLITests.terminalUser)) func aShortWindowExpires() async throws {
        let (user, password) = try await testUser()
        let terminal = try await UserTerminal(user: user, password: password, sandbox: sandbox, runtime: runtime)
        try await withCleanup { () async throws -> Void in
            try await storeProtected(terminal, user: user)
            // 8 s: a command on a loaded machine (the whole suite at once, under ASan) took more than 2.
            let opened = try await terminal.run(["show", "item", "--unlock-window", "8s"])
            let inside = try await terminal.run(["show", "item", "--unlock-window", "8s"])
            #expect(opened.prompted && !inside.prompted, "\(opened.text) \(inside.text)")
            try await Task.sleep(for: .seconds(9))
            let expired = try await terminal.run(["show", "item", "--unlock-window", "8s"])
            #expect(expired.prompted && expired.status == 0, "\(expired.text)")
        } cleanup: {
            await terminal.close()
        }
    }

    /// `kill -9` of the agent while a client waits for its answer loses its windows only: that client
    /// reads the end of the connection, prompts as without a window and reads the item; nothing stored
    /// changes; the next window is held by a new agent. The agent is stopped first (SIGSTOP), so that the
    /// client's request is certainly in flight when it dies.
    @Test(.needs(UnlockWindowCLITests.terminalUser)) func aKilledAgentLosesOnlyItsWindows() async throws {
        let (user, password) = try await testUser()
        let terminal = try await UserTerminal(user: user, password: password, sandbox: sandbox, runtime: runtime)
        try await withCleanup { () async throws -> Void in
            try await storeProtected(terminal, user: user)
            let opened = try await terminal.run(["show", "item", "--unlock-window", "60"])
            #expect(opened.prompted && opened.status == 0)
            let stored = try storeFiles()
            let pid = try agentPID()
            try #require(kill(pid, SIGSTOP) == 0)
            let sawWaitingClient = LockedValue(false)
            let killer = Thread {
                for _ in 0..<500 {
                    if Self.aClientWaitsOnTheAgent() {
                        sawWaitingClient.withLock { $0 = true }
                        break
                    }
                    usleep(10_000)
                }
                kill(pid, SIGKILL)
            }
            killer.start()
            let again = try await terminal.run(["show", "item", "--field", "token", "--unlock-window", "60"])
            #expect(again.prompted && again.status == 0 && again.text.contains("inside-the-window"), "\(again.text)")
            #expect(sawWaitingClient.withLock { $0 }, "the client never waited on the stopped agent")
            // Gone, or a zombie nobody reaped yet (its starter exited; the container's init may not reap).
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: ")").last?.dropFirst().first
            #expect(state == nil || state == "Z", "the agent was killed")
            #expect(try storeFiles() == stored)
            let inside = try await terminal.run(["show", "item", "--field", "token", "--unlock-window", "60"])
            #expect(!inside.prompted && inside.status == 0, "a new agent was started and holds the new window: \(inside.text)")
        } cleanup: {
            await terminal.close()
        }
    }

    /// Whether a thread of a CLI `show` waits in a Unix socket's read (the agent's answer); the main
    /// thread of an async command waits in `pause`, so every thread is looked at.
    static func aClientWaitsOnTheAgent() -> Bool {
        let binary = CLISandbox.binary.path
        let files = FileManager.default
        for entry in (try? files.contentsOfDirectory(atPath: "/proc")) ?? [] where entry.allSatisfy(\.isNumber) {
            guard let command = files.contents(atPath: "/proc/\(entry)/cmdline"),
                String(decoding: command, as: UTF8.self).hasPrefix(binary + "\u{0}show")
            else { continue }
            for thread in (try? files.contentsOfDirectory(atPath: "/proc/\(entry)/task")) ?? [] {
                let wait = try? String(contentsOfFile: "/proc/\(entry)/task/\(thread)/wchan", encoding: .utf8)
                if wait?.hasPrefix("unix_stream") == true { return true }
            }
        }
        return false
    }

    /// Every file of the sandbox's file store, by path.
    func storeFiles() throws -> [String: Data] {
        var files: [String: Data] = [:]
        let root = sandbox.storeDirectory
        for case let url as URL in FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) ?? FileManager.DirectoryEnumerator() {
            if let data = FileManager.default.contents(atPath: url.path) { files[url.path] = data }
        }
        return files
    }

    /// The agent started on demand keeps none of its starter's descriptors: before, it kept one the
    /// test harness's `script` session had passed down (through the shell and the CLI), so the session
    /// ended only when the agent exited idle; a `$(...)` waiting for its pipe's end would wait as long.
    @Test(.needs(UnlockWindowCLITests.terminalUser)) func theTerminalSessionEndsWhileTheAgentRuns() async throws {
        let (user, password) = try await testUser()
        let terminal = try await UserTerminal(user: user, password: password, sandbox: sandbox, runtime: runtime)
        try await storeProtected(terminal, user: user)
        #expect(try await terminal.run(["show", "item", "--unlock-window", "60"]).status == 0)
        let pid = try agentPID()
        defer { kill(pid, SIGTERM) }
        await terminal.close()
        // Not `kill(pid, 0)`: an exited agent may stay a zombie where nothing reaps orphans.
        let stat = CLISandbox.text(of: URL(fileURLWithPath: "/proc/\(pid)/stat"))
        let state = stat.split(separator: ")").last?.split(separator: " ").first
        #expect(state != nil && state != "Z", "the pty session ended only once the agent had exited: \(stat)")
    }

    /// A private `dbus-daemon` run as the test user (so the agent may connect to it); its address. Stop
    /// the process with `terminate()` (runuser passes SIGTERM on to the bus).
    func startUserBus(user: String) async throws -> (process: ChildProcess, address: String) {
        let address = "unix:path=\(runtime.path)/session-bus"
        let bus = try await ChildProcess.start(
            "/usr/sbin/runuser", ["-u", user, "--", "dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=\(address)"])
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: "\(runtime.path)/session-bus") {
            try await Task.sleep(for: .milliseconds(50))
        }
        return (bus, address)
    }

    /// Sends one signal on `address` as the test user.
    func sendSignal(user: String, address: String, path: String, member: String, _ arguments: [String]) async throws {
        let sent = try await sandbox.run(
            executable: URL(fileURLWithPath: "/usr/sbin/runuser"),
            ["-u", user, "--", "dbus-send", "--bus=\(address)", "--type=signal", path, member] + arguments)
        #expect(sent.status == 0, "\(sent.stderr)")
    }

    /// The screen saver's `ActiveChanged(true)` on the user's session bus (a private one, run as the test
    /// user) closes the window.
    @Test(.needs(UnlockWindowCLITests.terminalUser)) func theScreenLockClosesTheWindow() async throws {
        let (user, password) = try await testUser()
        let (bus, address) = try await startUserBus(user: user)
        defer { bus.terminate() }
        let terminal = try await UserTerminal(user: user, password: password, sandbox: sandbox, runtime: runtime, sessionBus: address)
        try await withCleanup { () async throws -> Void in
            try await storeProtected(terminal, user: user)
            let opened = try await terminal.run(["show", "item", "--unlock-window", "600"])
            let inside = try await terminal.run(["show", "item", "--unlock-window", "600"])
            #expect(opened.prompted && !inside.prompted, "\(opened.text) \(inside.text)")
            // The agent subscribes right after it listens: signal until it has seen one.
            for _ in 0..<100 where !agentLog.contains("closed 1 window(s)") {
                try await sendSignal(user: user, address: address, path: "/org/freedesktop/ScreenSaver", member: "org.freedesktop.ScreenSaver.ActiveChanged", ["boolean:true"])
                try await Task.sleep(for: .microseconds(100_000))
            }
            #expect(agentLog.contains("the screen saver started (org.freedesktop.ScreenSaver.ActiveChanged(true)): closing every window"), "\(agentLog)")
            #expect(agentLog.contains("closed 1 window(s)"), "\(agentLog)")
            let after = try await terminal.run(["show", "item", "--unlock-window", "600"])
            #expect(after.prompted && after.status == 0, "\(after.text)")
        } cleanup: {
            await terminal.close()
        }
    }

    /// logind's `PrepareForSleep(true)` on the system bus (the private bus, given to the agent as
    /// `DBUS_SYSTEM_BUS_ADDRESS`) closes the window; `PrepareForSleep(false)` (resume), sent just before
    /// it on the same bus and so delivered first, closes nothing.
    @Test(.needs(UnlockWindowCLITests.terminalUser)) func sleepClosesTheWindowAndResumeDoesNot() async throws {
        let (user, password) = try await testUser()
        let (bus, address) = try await startUserBus(user: user)
        defer { bus.terminate() }
        let terminal = try await UserTerminal(user: user, password: password, sandbox: sandbox, runtime: runtime, sessionBus: address, systemBus: address)
        try await withCleanup { () async throws -> Void in
            try await storeProtected(terminal, user: user)
            let opened = try await terminal.run(["show", "item", "--unlock-window", "600"])
            #expect(opened.prompted && opened.status == 0, "\(opened.text)")
            // The agent says what it watches once the bus has its match rules: no signal after that is missed.
            for _ in 0..<100 where !agentLog.contains("watching for a screen lock or sleep") { try await Task.sleep(for: .microseconds(50_000)) }
            #expect(agentLog.contains("org.freedesktop.login1.Manager"), "\(agentLog)")

            try await sendSignal(user: user, address: address, path: "/org/freedesktop/login1", member: "org.freedesktop.login1.Manager.PrepareForSleep", ["boolean:false"])
            let inside = try await terminal.run(["show", "item", "--unlock-window", "600"])
            #expect(!inside.prompted && inside.status == 0, "\(inside.text)")
            try await sendSignal(user: user, address: address, path: "/org/freedesktop/login1", member: "org.freedesktop.login1.Manager.PrepareForSleep", ["boolean:true"])
            for _ in 0..<100 where !agentLog.contains("closed 1 window(s)") { try await Task.sleep(for: .microseconds(50_000)) }
            let closings = agentLog.split(separator: "\n").filter { $0.contains("closing every window") }
            #expect(closings.count == 1 && closings.first?.contains("PrepareForSleep(true)") == true, "\(agentLog)")
            #expect(agentLog.contains("closed 1 window(s)"), "\(agentLog)")
            let after = try await terminal.run(["show", "item", "--unlock-window", "600"])
            #expect(after.prompted && after.status == 0, "\(after.text)")
        } cleanup: {
            await terminal.close()
        }
    }

    /// A peer of another uid (root, here) is refused and logged; the agent goes on serving its user.
    @Test(.needs(UnlockWindowCLITests.terminalUser)) func anotherUIDIsRefused() async throws {
        let (user, password) = try await testUser()
        let terminal = try await UserTerminal(user: user, password: password, sandbox: sandbox, runtime: runtime)
        try await withCleanup { () async throws -> Void in
            try await storeProtected(terminal, user: user)
            #expect(try await terminal.run(["show", "item", "--unlock-window", "600"]).prompted)
            let descriptor = try #require(connectRaw())
            let answer = exchangeRaw(descriptor, try AgentFrame.encode(AgentRequest.status))
            close(descriptor)
            #expect(answer.isEmpty, "the agent answered another uid")
            #expect(agentLog.contains("of uid 0 (this agent serves uid"), "\(agentLog)")
            let inside = try await terminal.run(["show", "item", "--unlock-window", "600"])
            #expect(!inside.prompted && inside.status == 0, "\(inside.text)")
        } cleanup: {
            await terminal.close()
        }
    }

    /// `status` and `doctor` show the window open for this terminal (and end time and seconds left);
    /// another terminal's `status` shows none.
    @Test(.needs(UnlockWindowCLITests.terminalUser)) func statusAndDoctorShowThisTerminalsWindow() async throws {
        let (user, password) = try await testUser()
        let terminal = try await UserTerminal(user: user, password: password, sandbox: sandbox, runtime: runtime)
        try await withCleanup { () async throws -> Void in
            try await storeProtected(terminal, user: user)
            #expect(try await terminal.run(["show", "item", "--unlock-window", "60"]).prompted)
            // The seconds left depend on how long the commands took (a loaded machine takes seconds).
            let line = #/unlock window: open for biometrics-vault \(devicePasscode\) until \d\d:\d\d:\d\d \([1-6]?\d s left\)/#
            let status = try await terminal.run(["status", "item", "--unlock-window", "60"])
            #expect(status.status == 0 && !status.prompted && status.text.contains(line), "\(status.text)")
            let doctor = try await terminal.run(["doctor", "--unlock-window", "60"], storeOptions: false)
            #expect(doctor.status == 0 && doctor.text.contains(line), "\(doctor.text)")
            // Without a window length this command would not use the window: off.
            let off = try await terminal.run(["status", "item"])
            #expect(off.text.contains("unlock window: off"), "\(off.text)")

            let second = try await UserTerminal(user: user, password: password, sandbox: sandbox, runtime: runtime)
            try await withCleanup { () async throws -> Void in
                let elsewhere = try await second.run(["status", "item", "--unlock-window", "60"])
                #expect(elsewhere.status == 0 && elsewhere.text.contains("unlock window: none\r\n"), "\(elsewhere.text)")
            } cleanup: {
                await second.close()
            }
        } cleanup: {
            await terminal.close()
        }
    }

    /// A socket path longer than a Unix socket address holds: said once on stderr, and the command prompts
    /// as without windows (every time).
    @Test(.needs(UnlockWindowCLITests.terminalUser)) func aSocketPathTooLongIsSaidOnceAndPromptsAsBefore() async throws {
        let deep = runtime.appendingPathComponent(String(repeating: "d", count: 100))
        try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let (user, password) = try await testUser()
        let terminal = try await UserTerminal(user: user, password: password, sandbox: sandbox, runtime: deep)
        try await withCleanup { () async throws -> Void in
            try await storeProtected(terminal, user: user)
            for _ in 0..<2 {
                let read = try await terminal.run(["show", "item", "--field", "token", "--unlock-window", "60"])
                #expect(read.prompted && read.status == 0 && read.text.contains("inside-the-window"), "\(read.text)")
                #expect(read.text.components(separatedBy: "unlock window unavailable: the agent socket path").count == 2, "\(read.text)")
                #expect(read.text.contains("set a shorter XDG_RUNTIME_DIR"), "\(read.text)")
            }
            let status = try await terminal.run(["status", "item", "--unlock-window", "60"])
            #expect(status.text.contains("unlock window: unavailable: the agent socket path"), "\(status.text)")
            #expect(!FileManager.default.fileExists(atPath: deep.path + "/biometrics-vault"), "nothing was created for an agent")
        } cleanup: {
            await terminal.close()
        }
    }

    /// `unlock-window = 1m` in the config file turns windows on without the option or the variable; the
    /// variable overrides it (`off`), and the option overrides both.
    @Test(.needs(UnlockWindowCLITests.terminalUser)) func theConfigFileTurnsTheWindowOn() async throws {
        let (user, password) = try await testUser()
        let terminal = try await UserTerminal(user: user, password: password, sandbox: sandbox, runtime: runtime)
        try await withCleanup { () async throws -> Void in
            try await storeProtected(terminal, user: user)
            // After the store, whose authentication would otherwise open the window already.
            let directory = sandbox.root.appendingPathComponent("config/biometrics-vault")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data("# unlock windows\nunlock-window = 1m\n".utf8).write(to: directory.appendingPathComponent("config"))
            let opened = try await terminal.run(["show", "item"])
            let inside = try await terminal.run(["show", "item"])
            #expect(opened.prompted && !inside.prompted && inside.status == 0, "\(opened.text) \(inside.text)")
            let byVariable = try await terminal.run(["show", "item"], prefix: ["env", "BIOMETRICS_VAULT_UNLOCK_WINDOW=off"])
            #expect(byVariable.prompted, "the variable's off comes before the file: \(byVariable.text)")
            let optionOff = try await terminal.run(["show", "item", "--unlock-window", "off"])
            #expect(optionOff.prompted && optionOff.status == 0, "the option's off comes before the file: \(optionOff.text)")
            let byOption = try await terminal.run(["show", "item", "--unlock-window", "60"], prefix: ["env", "BIOMETRICS_VAULT_UNLOCK_WINDOW=off"])
            #expect(!byOption.prompted && byOption.status == 0, "the option comes before the variable: \(byOption.text)")
        } cleanup: {
            await terminal.close()
        }
    }

    // MARK: the agent's protocol (an agent of the calling user; no terminal needed)

    /// Starts `biometrics-vault agent` as the calling user (with `--log-file` when `logToFile`, as a
    /// command starts it; its stderr `stderr`, else /dev/null); waits until it listens.
    func startAgent(idleExit: Int = 30, logToFile: Bool = false, stderr: Int32? = nil) async throws -> ChildProcess {
        var environment = sandbox.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        let errors = sandbox.root.appendingPathComponent("agent-stderr-\(UUID().uuidString.prefix(8))").path
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        let process = try await ChildProcess.start(
            CLISandbox.binary.path, ["agent", "--idle-exit", "\(idleExit)"] + (logToFile ? ["--log-file"] : []),
            environment: environment, replacing: true, stderr: stderr.map { .descriptor($0) } ?? .file(errors))
        // Bounded generously: an ASan build starting on a loaded machine.
        for _ in 0..<1000 {
            if let descriptor = connectRaw() {
                close(descriptor)
                return process
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the agent never listened (running: \(process.isRunning)): \(CLISandbox.text(of: URL(fileURLWithPath: errors)))")
        return process
    }

    var client: UnlockWindowAgentClient { UnlockWindowAgentClient(paths: paths, agentExecutable: nil) }

    /// An oversized request, a malformed one and a client that never writes do not stop the agent
    /// answering others; 50 clients at once are all answered.
    @Test func badClientsDoNotStopTheAgent() async throws {
        let agent = try await startAgent()
        defer { agent.terminate() }
        let silent = try #require(connectRaw())
        defer { close(silent) }

        let oversized = try #require(connectRaw())
        #expect(exchangeRaw(oversized, [0, 0, 0x10, 0x01] + [UInt8](repeating: 0x20, count: 64)).isEmpty)
        close(oversized)
        let malformed = try #require(connectRaw())
        let refused = exchangeRaw(malformed, [0, 0, 0, 5] + Array("{nope".utf8))
        close(malformed)
        #expect(try AgentFrame.decode(AgentResponse.self, body: refused.dropFirst(4)) == .refused(reason: "malformed request"))

        // The silent client is still connected: others are answered meanwhile.
        #expect(try client.send(.status, startingAgent: false) == .status(scope: nil, windows: []))

        let answers = LockedText()
        let client = client
        DispatchQueue.concurrentPerform(iterations: 50) { _ in
            if (try? client.send(.lock, startingAgent: false)) == .locked(count: 0) { answers.append(Data("+".utf8)) }
        }
        #expect(answers.text.count == 50)
        // The silent one was dropped after the client timeout.
        var byte: UInt8 = 0
        #expect(recv(silent, &byte, 1, 0) == 0)
        #expect(agent.isRunning)
    }

    /// Without a controlling terminal nothing opens, and an idle agent exits by itself.
    @Test func noTerminalNoWindowAndIdleExit() async throws {
        // Idle for 10 s: the test's first connection must reach it first, and on a loaded machine this
        // test's task has waited 3 s before making it.
        let agent = try await startAgent(idleExit: 10)
        let opened = try client.send(.open(service: "s", policy: "devicePasscode", seconds: 60, enrollment: nil), startingAgent: false)
        // `swift test` may itself run on a terminal: then the window opens for that terminal.
        let tty = open("/dev/tty", O_RDWR)
        let hasTerminal = tty >= 0
        if hasTerminal { close(tty) }
        if !hasTerminal {
            #expect(opened == .refused(reason: "the process has no controlling terminal: no unlock window"))
        } else {
            _ = try client.send(.lock, startingAgent: false)
        }
        for _ in 0..<800 where agent.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!agent.isRunning, "the idle agent did not exit")
        #expect(!FileManager.default.fileExists(atPath: paths.socket))
    }

    /// SIGTERM ends the agent (its windows with it); the socket it leaves is replaced by the next agent.
    @Test func sigtermEndsTheAgentAndTheNextOneStarts() async throws {
        let first = try await startAgent()
        first.terminate()
        #expect(try await first.exit() == ChildProcess.Exit(code: SIGTERM, signalled: true))
        #expect(!client.isListening)
        let second = try await startAgent()
        defer { second.terminate() }
        #expect(try client.send(.status, startingAgent: false) == .status(scope: nil, windows: []))
    }

    /// The agent's directory must be the user's alone.
    @Test func aDirectoryOthersCanEnterIsRefused() async throws {
        try FileManager.default.createDirectory(atPath: paths.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let result = try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/env"), ["XDG_RUNTIME_DIR=\(runtime.path)", CLISandbox.binary.path, "agent"])
        #expect(result.status == 6, "\(result.stderr)")
        #expect(result.stderr.contains("wants 0700"), "\(result.stderr)")
        let client = client
        #expect(throws: VaultError.self) { try client.send(.status, startingAgent: false) }
    }

    /// `status` and `doctor` ask a running agent only: with no agent they say so and start none; without a
    /// window length they say off; without XDG_RUNTIME_DIR, unavailable.
    @Test func statusAndDoctorNeverStartTheAgent() async throws {
        var sandbox = sandbox
        sandbox.environment["XDG_RUNTIME_DIR"] = runtime.path
        _ = try await sandbox.run(["store", "item", "--store", "file", "--authenticator", "none"], stdin: #"{"token":"t"}"#)
        let off = try await sandbox.run(["status", "item", "--store", "file", "--authenticator", "none", "--json"])
        #expect(window(off.stdout)?["state"] as? String == "off", "\(off.stdout)")
        let status = try await sandbox.run(["status", "item", "--store", "file", "--authenticator", "none", "--unlock-window", "60"])
        #expect(status.status == 0 && status.stdout.hasSuffix("unlock window: none (no agent runs)\n"), "\(status.stdout)")
        let json = try await sandbox.run(["status", "item", "--store", "file", "--authenticator", "none", "--unlock-window", "60", "--json"])
        #expect(window(json.stdout)?["state"] as? String == "noAgent", "\(json.stdout)")
        #expect((window(json.stdout)?["windows"] as? [Any])?.isEmpty == true, "\(json.stdout)")
        let doctor = try await sandbox.run(["doctor", "--unlock-window", "60"])
        #expect(doctor.status == 0 && doctor.stdout.hasSuffix("unlock window: none (no agent runs)\n"), "\(doctor.stdout)")
        let doctorJSON = try await sandbox.run(["doctor", "--unlock-window", "60", "--json"])
        #expect(window(doctorJSON.stdout)?["state"] as? String == "noAgent", "\(doctorJSON.stdout)")
        #expect(!FileManager.default.fileExists(atPath: paths.socket), "status or doctor started an agent")
        #expect(!FileManager.default.fileExists(atPath: paths.log), "status or doctor started an agent")

        sandbox.environment["XDG_RUNTIME_DIR"] = nil
        let nowhere = try await sandbox.run(["status", "item", "--store", "file", "--authenticator", "none", "--unlock-window", "60", "--json"])
        #expect(window(nowhere.stdout)?["state"] as? String == "unavailable", "\(nowhere.stdout)")
        #expect(window(nowhere.stdout)?["reason"] as? String == "XDG_RUNTIME_DIR is not set (or not absolute)", "\(nowhere.stdout)")
    }

    /// The `unlockWindow` member of a `--json` object.
    func window(_ json: String) -> [String: Any]? {
        json.jsonObject?["unlockWindow"] as? [String: Any]
    }

    /// A client that makes the agent log in a loop cannot grow its log past the bound: once a line takes
    /// it over, the log starts anew.
    @Test func theAgentLogIsBounded() async throws {
        try FileManager.default.createDirectory(atPath: paths.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // Almost full already (an earlier agent's lines, as `2>>` keeps them).
        let filler = String(repeating: "x", count: 99) + "\n"
        try Data(String(repeating: filler, count: AgentPaths.maximumLogSize / 100 - 1).utf8).write(to: URL(fileURLWithPath: paths.log))
        let agent = try await startAgent(logToFile: true)
        defer { agent.terminate() }
        var largest = 0
        for _ in 0..<20 {
            let descriptor = try #require(connectRaw())
            _ = exchangeRaw(descriptor, [0, 0, 0, 5] + Array("{nope".utf8))
            close(descriptor)
            largest = max(largest, agentLog.utf8.count)
        }
        #expect(largest <= AgentPaths.maximumLogSize + 200, "the log grew to \(largest) bytes")
        #expect(agentLog.utf8.count < 4096, "\(agentLog.utf8.count) bytes")
        #expect(agentLog.contains("started anew"), "\(agentLog.prefix(300))")
        #expect(agentLog.contains("sent a malformed request; refused"), "\(agentLog.prefix(300))")
    }

    @Test("config files", arguments: [
        ("unlock-window = 5m\n", 300, true, 0),
        ("  unlock-window=90  # a comment\r\n", 90, true, 0),
        ("# only a comment\n\n", nil, false, 0),
        ("unlock-window = off\n", nil, true, 0),
        ("unlock-window = 1h\nunlock-window = 2m\n", 120, true, 0),
        ("unlock-window = 5 minutes\n", nil, false, 1),
        ("unlock-window = 5m\nunlock-window = 2d\n", 300, true, 1),
        ("colour = blue\nunlock-window = 1m\n", 60, true, 1),
        ("unlock-window\n", nil, false, 1),
    ] as [(String, Int?, Bool, Int)])
    func configFiles(text: String, seconds: Int?, sets: Bool, notices: Int) {
        let file = CLIConfigFile.parse(text, path: "/c")
        #expect(file.unlockWindowSeconds == seconds)
        #expect(file.setsUnlockWindow == sets)
        #expect(file.notices.count == notices, "\(file.notices)")
        #expect(file.notices.allSatisfy { $0.hasPrefix("/c:") }, "\(file.notices)")
    }

    @Test("precedence: option, then variable, then config file, then off", arguments: [
        (.some(30), "5m", 60, 30, UnlockWindowSetting.Source.option, 0),
        (.some(nil), "5m", 60, nil, .option, 0),
        (nil, "5m", 60, 300, .environment, 0),
        (nil, "off", 60, nil, .environment, 0),
        (nil, "", 60, 60, .configFile, 0),
        (nil, nil, 60, 60, .configFile, 0),
        (nil, "bad", 60, 60, .configFile, 1),
        (nil, nil, nil, nil, .none, 0),
    ] as [(Int??, String?, Int?, Int?, UnlockWindowSetting.Source, Int)])
    func precedence(option: Int??, environment: String?, config: Int?, seconds: Int?, source: UnlockWindowSetting.Source, notices: Int) {
        let file = config.map { CLIConfigFile(unlockWindowSeconds: $0, setsUnlockWindow: true) }
        let setting = UnlockWindowSetting.resolve(option: option, environment: environment, configFile: file)
        #expect(setting.seconds == seconds && setting.source == source && setting.notices.count == notices, "\(setting)")
    }

    /// An invalid line is reported once on stderr and ignored; the command works.
    @Test func anInvalidConfigLineIsReportedOnce() async throws {
        let directory = sandbox.root.appendingPathComponent("config/biometrics-vault")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("config")
        try Data("unlock-window = forever\n".utf8).write(to: config)
        var sandbox = sandbox
        sandbox.environment["XDG_RUNTIME_DIR"] = runtime.path
        let result = try await sandbox.run(["status", "item", "--store", "file", "--authenticator", "none"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "biometrics-vault: \(config.path):1: ignoring invalid unlock window 'forever': a number of seconds, or with s, m or h (e.g. 90, 15m, 1h), at most 24h; 0 or off turns it off\n")
        #expect(result.stdout.contains("unlock window: off"), "\(result.stdout)")
    }

    @Test("durations", arguments: [
        ("90", 90), ("90s", 90), ("15m", 900), ("1h", 3600), ("24h", 86_400), ("0", nil), ("off", nil),
    ] as [(String, Int?)])
    func durations(text: String, seconds: Int?) {
        #expect(UnlockWindowDuration.seconds(text) == .success(seconds))
    }

    @Test("invalid durations", arguments: ["", "-5", "25h", "1d", "1.5m", "m", "99999999999999999999"])
    func invalidDurations(text: String) async throws {
        guard case .failure(let error) = UnlockWindowDuration.seconds(text) else {
            Issue.record("'\(text)' was accepted")
            return
        }
        #expect(error.text == text)
        let result = try await sandbox.run(["show", "x", "--unlock-window", text, "--store", "file"])
        #expect(result.status == 64, "\(result.stderr)")
    }
}
extension String {
    /// This shell command line with `input` piped to its stdin (`printf`, so no trailing newline is added).
    fileprivate func prependingStandardInput(_ input: String?) -> String {
        guard let input else { return self }
        return "printf '%s' " + shellQuoted([input]) + " | " + self
    }
}
#endif
