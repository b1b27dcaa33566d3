#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// The vault service (`biometrics-vault service`) on the real system bus, started by D-Bus activation
/// as its own system user, with the real fprintd on the virtual sensor and polkitd: the CLI as the
/// non-root test users on ptys (root is always authorized by polkit), and a same-user program with no
/// finger on the reader trying the other ways in.
///
/// Run alone by `scripts/extra-tests/40-cli-vault-service.sh` (which installs the service for that step
/// and sets `BV_VAULT_SERVICE=1`): there is one reader.
@Suite(.onTestThreads, .serialized, .needs(.ownStep("scripts/extra-tests/40-cli-vault-service.sh", runsHere: ProcessInfo.processInfo.environment["BV_VAULT_SERVICE"] == "1")))
final class VaultServiceCLITests {
    static let finger = "service-user-finger"
    static let otherFinger = "service-other-finger"
    static let busName = "io.github.biometricsvault.Vault1"
    static let objectPath = "/io/github/biometricsvault/Vault1"
    static let stateDirectory = "/var/lib/biometrics-vault"
    let sandbox: CLISandbox
    let user: String
    let password: String
    let other: String

    init() async throws {
        sandbox = try CLISandbox()
        let environment = ProcessInfo.processInfo.environment
        user = try #require(environment["BV_TEST_USER"])
        password = try #require(environment["BV_TEST_PASSWORD"])
        other = try #require(environment["BV_TEST_OTHER_USER"])
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chmod"), ["755", sandbox.root.path])
    }

    deinit { sandbox.remove() }

    var reader: VirtualReader { VirtualReader(sandbox: sandbox) }

    /// `user` with exactly one finger enrolled, whose sensor id is `finger`.
    func enrollOnly(_ user: String, finger: String) async throws {
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        try await reader.enrollFinger(user: user, finger: finger, as: "right-index-finger")
    }

    /// The command line that runs `arguments` as `user` (the CLI unless `executable` is given), in a
    /// home of its own in the sandbox, with no flag but `extra`: the default store is the service.
    func command(_ arguments: [String], as user: String, executable: String = CLISandbox.binary.path, detached: Bool = false) -> [String] {
        let home = sandbox.root.appendingPathComponent("home-\(user)").path
        return ["runuser", "-u", user, "--", "env", "-i", "PATH=/usr/bin:/bin", "HOME=\(home)", "USER=\(user)",
                "XDG_RUNTIME_DIR=\(home)/run", "ASAN_OPTIONS=\(ProcessInfo.processInfo.environment["ASAN_OPTIONS"] ?? "")",
                "LSAN_OPTIONS=\(ProcessInfo.processInfo.environment["LSAN_OPTIONS"] ?? "")", "SWIFT_BACKTRACE=enable=no"]
            + (detached ? ["setsid", "-w"] : []) + [executable] + arguments
    }

    /// Makes each user's sandbox home (theirs, 0700).
    func prepareHomes() async throws {
        for name in [user, other] {
            let home = sandbox.root.appendingPathComponent("home-\(name)")
            try FileManager.default.createDirectory(at: home.appendingPathComponent("run"), withIntermediateDirectories: true)
            _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chown"), ["-R", name, home.path])
            _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chmod"), ["-R", "700", home.path])
        }
    }

    /// Runs without a terminal: status, stdout, stderr.
    func run(_ arguments: [String], as user: String, stdin: String? = nil, executable: String = CLISandbox.binary.path) async throws -> CLIResult {
        let line = command(arguments, as: user, executable: executable)
        return try await sandbox.run(executable: URL(fileURLWithPath: "/usr/sbin/runuser"), Array(line.dropFirst()), stdin: stdin)
    }

    /// On a pty; `detached` leaves it without a controlling terminal (as under cron).
    func session(_ arguments: [String], as user: String, detached: Bool = false, executable: String = CLISandbox.binary.path) async throws -> PTYSession {
        try await PTYSession(
            command: shellQuoted(command(arguments, as: user, executable: executable, detached: detached)), environment: sandbox.environment)
    }

    /// Runs on a pty and answers the fingerprint prompt with `finger`.
    func scanned(_ arguments: [String], as user: String, finger: String, detached: Bool = false) async throws -> (status: Int32, text: String) {
        let running = try await session(arguments, as: user, detached: detached)
        #expect(try await running.waitFor("Touch the fingerprint reader"), "no fingerprint prompt: \(running.text)")
        try await reader.waitForFingerNeeded()
        try await reader.scan(finger)
        return try await (running.finish(), running.text)
    }

    /// A protected item as `owner` (default: `user`), stored with its finger.
    func storeProtected(_ key: String, secret: String, as owner: String? = nil, finger: String = finger) async throws {
        let user = owner ?? user
        _ = try await run(["reset", key], as: user)
        let file = sandbox.root.appendingPathComponent("home-\(user)/\(key).json")
        try #"{"token":"\#(secret)"}"#.write(to: file, atomically: true, encoding: .utf8)
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chown"), [user, file.path])
        let stored = try await scanned(["store", key, "--biometrics", "--from-file", file.path], as: user, finger: finger)
        #expect(stored.status == 0, "\(stored.text)")
        try FileManager.default.removeItem(at: file)
    }

    /// The methods of the service's interface called while `body` runs, in order (`dbus-monitor`, as root).
    func serviceCalls(_ body: () async throws -> Void) async throws -> [String] {
        try await busCalls(["type='method_call',interface='io.github.biometricsvault.Vault1'"], body)
    }

    /// The members of the method calls on the system bus that match `rules` while `body` runs, in order,
    /// as `dbus-monitor` (as root) saw them. Calls of the service's `org.freedesktop.DBus.Peer` mark the
    /// window: `Ping` until the monitor shows one (it is attached from then on), then `body`, then
    /// `GetMachineId` until the monitor shows one (it prints in order, so every call of `body` is shown).
    func busCalls(_ rules: [String], _ body: () async throws -> Void) async throws -> [String] {
        let markers = ["Ping", "GetMachineId"].map {
            "type='method_call',interface='org.freedesktop.DBus.Peer',member='\($0)',path='\(Self.objectPath)'"
        }
        let monitor = try await sandbox.start(executable: URL(fileURLWithPath: "/usr/bin/dbus-monitor"), ["--system"] + markers + rules)
        defer { monitor.process.terminate() }
        func members() -> [String] {
            monitor.printed.split(separator: "\n").compactMap { line in
                guard line.hasPrefix("method call"), let member = line.split(separator: " ").first(where: { $0.hasPrefix("member=") }) else {
                    return nil
                }
                return String(member.dropFirst("member=".count))
            }
        }
        func call(_ marker: String) async throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while !members().contains(marker) {
                guard ContinuousClock.now < deadline else { throw MonitorNeverSawTheMarker() }
                _ = try await sandbox.run(
                    executable: URL(fileURLWithPath: "/usr/bin/gdbus"),
                    ["call", "--system", "--dest", Self.busName, "--object-path", Self.objectPath,
                     "--method", "org.freedesktop.DBus.Peer.\(marker)"])
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        try await call("Ping")
        try await body()
        try await call("GetMachineId")
        let seen = members()
        guard let first = seen.firstIndex(of: "Ping"), let last = seen.firstIndex(of: "GetMachineId"), first < last else {
            throw MonitorNeverSawTheMarker()
        }
        return seen[(first + 1)..<last].filter { $0 != "Ping" }
    }

    struct MonitorNeverSawTheMarker: Error {}

    func servicePID() async throws -> Int32? {
        let found = try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/pgrep"), ["-u", "biometrics-vault", "-x", "biometrics-vaul"])
        return found.stdout.split(separator: "\n").first.flatMap { Int32($0) }
    }

    /// Kills the service and waits until it is gone: until it has exited it still owns its bus name, and
    /// a call that reaches it then gets no reply.
    func killService() async throws {
        guard let pid = try await servicePID() else { return }
        kill(pid, SIGKILL)
        for _ in 0..<400 where try await servicePID() == pid { try await Task.sleep(for: .milliseconds(25)) }
    }

    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aProtectedItemIsReleasedByTheServiceOnlyAfterAMatchingFinger() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await withCleanup { () async throws -> Void in

            // No flag: auto picks the service.
            let doctor = try await run(["doctor"], as: user)
            #expect(doctor.stdout.contains("auto picks: store service; authenticator service"), "\(doctor.stdout)\(doctor.stderr)")

            try await storeProtected("fp", secret: "behind-the-service")
            let status = try await run(["status", "fp", "--json"], as: user)
            #expect(status.stdout.contains(#""state":"locked""#), "\(status.stdout)\(status.stderr)")
            #expect(status.stdout.contains(#""store":"service""#), "\(status.stdout)")

            // The read asks the service for its status once, however many questions the vault asks of it;
            // the calls that depend on the calling process are attested first.
            var shown: (status: Int32, text: String) = (-1, "")
            let calls = try await serviceCalls { shown = try await scanned(["show", "fp", "--field", "token"], as: user, finger: Self.finger) }
            #expect(shown.status == 0, "\(shown.text)")
            #expect(shown.text.contains("behind-the-service"))
            #expect(calls == ["Read", "Attest", "Status", "Attest", "Authenticate", "Read"], "\(calls)")

            let wrong = try await scanned(["show", "fp"], as: user, finger: "not-enrolled-anywhere")
            #expect(wrong.status == 4, "\(wrong.text)")
            #expect(!wrong.text.contains("behind-the-service"))

            // Another finger enrolled: the item bound to the old set is invalidated (exit 12), never released.
            try await reader.enrollFinger(user: user, finger: "service-user-second-finger", as: "left-index-finger")
            let changed = try await run(["show", "fp"], as: user)
            #expect(changed.status == 12, "\(changed.stdout)\(changed.stderr)")
            #expect(!changed.stdout.contains("behind-the-service"))
            _ = try await run(["reset", "fp"], as: user)
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    /// A same-user program calling the service's methods that read and write directly: the read gives
    /// the header and no payload, a forged grant and a downgrade are refused, and the audit names it.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aSameUserProgramCallingTheServiceDirectlyGetsOnlyTheHeader() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await withCleanup { () async throws -> Void in
            let secret = "never-without-a-finger"
            try await storeProtected("target", secret: secret)
            let mark = try await auditMark(as: user)
            let read = try await gdbus("Read", ["biometrics-vault", "target", "[]"], as: user)
            #expect(read.status == 0, "\(read.stderr)")
            // found, the header, not released, no payload bytes
            #expect(read.stdout.hasPrefix("(true, 'bv1;") && read.stdout.contains("', false, @ay [])"), "\(read.stdout)")
            let forged = try await gdbus("Read", ["biometrics-vault", "target", Self.forgedGrant], as: user)
            #expect(forged.stderr.contains("vaultLocked"), "\(forged.stdout)\(forged.stderr)")
            let downgrade = try await gdbus("Write", ["biometrics-vault", "target", "bv1;none", "[0x7b, 0x7d]", "anything", "", "[]"], as: user)
            #expect(downgrade.stderr.contains("vaultLocked"), "\(downgrade.stdout)\(downgrade.stderr)")
            let list = try await gdbus("List", ["biometrics-vault"], as: user)
            for result in [read, forged, downgrade, list] {
                #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
            }
            // The audit log has each call, with the program that made it, and never the secret.
            let audit = try await run(["audit", "--json"], as: user)
            #expect(!audit.stdout.contains(secret))
            let entries = try await auditEntries(as: user, after: mark)
            func count(_ event: String, _ result: String) -> Int {
                entries.filter { entry in
                    entry["event"] as? String == event && entry["item"] as? String == "biometrics-vault/target"
                        && (entry["result"] as? String ?? "").hasPrefix(result) && entry["program"] as? String == "gdbus"
                }.count
            }
            #expect(count("read", "locked: header only") == 1, "\(entries)")
            #expect(count("read", "refused: vaultLocked") == 1, "\(entries)")
            #expect(count("write", "refused: vaultLocked") == 1, "\(entries)")
            _ = try await run(["reset", "target"], as: user)
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    /// A grant of 32 bytes the service never issued.
    static let forgedGrant = "[" + Array(repeating: "0x41", count: 32).joined(separator: ", ") + "]"

    /// The service's files, its memory and its environment: each refused to a user by the kernel, not
    /// merely unreadable for another reason.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func theServicesFilesMemoryAndEnvironmentAreClosedToItsUsers() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await withCleanup { () async throws -> Void in
            let secret = "never-without-a-finger"
            try await storeProtected("target", secret: secret)
            let pid = try await #require(try servicePID(), "the service is not running")
            for path in [Self.stateDirectory, "\(Self.stateDirectory)/users"] {
                let probe = try await run([path], as: user, executable: "/bin/ls")
                #expect(probe.status != 0 && probe.stderr.contains("Permission denied"), "\(user) listed \(path): \(probe.stdout)\(probe.stderr)")
            }
            for path in ["/proc/\(pid)/mem", "/proc/\(pid)/environ", "/proc/\(pid)/maps"] {
                let probe = try await run([path], as: user, executable: "/bin/cat")
                #expect(probe.status != 0 && probe.stderr.contains("Permission denied"), "\(user) read \(path): \(probe.stderr)")
                #expect(!probe.stdout.contains(secret))
            }
            let files = try await run(["-r", secret, Self.stateDirectory], as: user, executable: "/bin/grep")
            #expect(files.status == 2 && files.stdout.isEmpty && files.stderr.contains("Permission denied"), "grep as \(user): \(files.stdout)\(files.stderr)")
            let traced = try await run(["5", "/usr/bin/strace", "-p", "\(pid)", "-e", "trace=none"], as: user, executable: "/usr/bin/timeout")
            #expect(traced.status != 0 && traced.stderr.contains("Operation not permitted"), "ptrace of the service: \(traced.stderr)")
            _ = try await run(["reset", "target"], as: user)
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    /// Five wrong fingers lock out (the fifth with no terminal to ask the password on), and removing
    /// everything under the user's home and runtime directory resets nothing: the count is the
    /// service's. In the lockout no method of the interface prompts, releases the item or ends it; the
    /// owner's password, asked by polkit on the terminal, does, and the finger reads again.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func wrongFingersLockOutUntilTheOwnersPassword() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await withCleanup { () async throws -> Void in
            let secret = "never-without-a-finger"
            try await storeProtected("target", secret: secret)
            let mark = try await auditMark(as: user)
            for attempt in 1...5 {
                let wrong = try await scanned(["show", "target"], as: user, finger: "someone-else", detached: attempt == 5)
                #expect(wrong.status == (attempt < 5 ? 4 : 5), "attempt \(attempt): \(wrong.text)")
            }
            let home = sandbox.root.appendingPathComponent("home-\(user)").path
            _ = try await run(["-c", "rm -rf \(home)/.local \(home)/run/* \(home)/.cache"], as: user, executable: "/bin/sh")
            let stillLocked = try await run(["show", "target"], as: user)
            #expect(stillLocked.status == 5, "\(stillLocked.stdout)\(stillLocked.stderr)")
            #expect(!stillLocked.stdout.contains(secret))
            let status = try await run(["status", "target", "--json"], as: user)
            #expect(!status.stdout.contains(secret))
            #expect(status.stdout.contains(#""biometricsLockedOut":true"#), "\(status.stdout)\(status.stderr)")

            // The five wrong fingers, each refused by the service, and nothing released.
            let entries = try await auditEntries(as: user, after: mark)
            func count(_ event: String, _ result: String, item: String) -> Int {
                entries.filter { $0["event"] as? String == event && $0["item"] as? String == item && ($0["result"] as? String ?? "").hasPrefix(result) }.count
            }
            #expect(count("authenticate", "refused: ", item: "biometrics-vault") == 5, "\(entries)")
            #expect(count("read", "released", item: "biometrics-vault/target") == 0, "\(entries)")

            try await expectNoMethodEndsTheLockout(secret: secret)
            let lockedStill = try await run(["show", "target"], as: user)
            #expect(lockedStill.status == 5, "\(lockedStill.stdout)\(lockedStill.stderr)")
            #expect(!lockedStill.stdout.contains(secret))

            // The password, asked by polkit through the CLI's text agent on the terminal, ends the lockout;
            // then the finger reads again. pkttyagent switches echo off (flushing input) after its prompt
            // shows: the password is typed once it has.
            let clearing = try await session(["clear-lockout"], as: user)
            let asked = try await clearing.waitFor("Password:")
            #expect(asked, "no password prompt: \(clearing.text)")
            let quiet = try await clearing.waitForEchoOff()
            #expect(quiet, "the terminal's echo stayed on: \(clearing.text)")
            if asked && quiet { clearing.type(password + "\r") }
            #expect(try await clearing.finish() == 0, "\(clearing.text)")
            // polkit's agent names the program that asks, as the service saw it, and what it says it is for.
            #expect(clearing.text.contains("biometrics-vaul ("), "\(clearing.text)")
            #expect(clearing.text.contains("asks for your password: Unlock the fingerprint reader after failed attempts"), "\(clearing.text)")
            #expect(!clearing.text.contains(password), "the password was echoed")
            let shown = try await scanned(["show", "target", "--field", "token"], as: user, finger: Self.finger)
            #expect(shown.status == 0, "\(shown.text)")
            #expect(shown.text.contains(secret))
            // Deleting needs no grant, as on Apple platforms (`reset` never prompts): it destroys, and reveals nothing.
            let deleted = try await gdbus("Delete", ["biometrics-vault", "target"], as: user)
            #expect(deleted.status == 0, "\(deleted.stderr)")
            #expect(try await run(["show", "target"], as: user).status == 2)
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    /// The interface's other methods, called directly by the user in a lockout: none prompts, releases
    /// the item, or ends the lockout. Asked for a finger, the service refuses without claiming the
    /// reader; asked for the password, polkit finds no agent of this caller to ask with.
    func expectNoMethodEndsTheLockout(secret: String) async throws {
        let direct = [
            ("Status", []), ("Audit", ["0"]), ("Revoke", [Self.forgedGrant]),
            ("CancelAuthentication", []), ("Lock", []),
            ("Authenticate", ["biometryCurrentSet", "direct", "biometrics-vault", "600", "terminal"]),
            ("AuthenticateOwner", ["direct"]),
        ]
        var answers: [(String, CLIResult)] = []
        let readerCalls = try await busCalls(["type='method_call',interface='net.reactivated.Fprint.Device'"]) {
            for (method, arguments) in direct { answers.append((method, try await gdbus(method, arguments, as: user))) }
        }
        // The monitor saw the service use fprintd (Status lists the fingers) and never claim the reader.
        #expect(readerCalls.contains("ListEnrolledFingers"), "the monitor saw no fprintd call: \(readerCalls)")
        #expect(!readerCalls.contains("Claim") && !readerCalls.contains("VerifyStart"), "the reader was claimed: \(readerCalls)")
        #expect(answers.count == direct.count)
        for (method, answer) in answers {
            #expect(!answer.stdout.contains(secret) && !answer.stderr.contains(secret), "\(method)")
            switch method {
            case "Authenticate":
                #expect(answer.status != 0 && answer.stderr.contains("biometryLockout"), "\(answer.stdout)\(answer.stderr)")
            case "AuthenticateOwner":
                #expect(answer.status != 0 && answer.stderr.contains("interactionNotAllowed"), "\(answer.stdout)\(answer.stderr)")
            default:
                #expect(answer.status == 0, "\(method): \(answer.stderr)")
            }
        }
    }

    /// Touches the reader once fprintd asks, and waits until it asks no more.
    func answerFinger() async throws {
        try await reader.waitForFingerNeeded()
        try await reader.scan(Self.finger)
        for _ in 0..<100 where try await reader.fingerNeeded() { try await Task.sleep(for: .microseconds(50_000)) }
    }

    /// One finger opens a window of the service for one terminal session: three reads, an `exec` and
    /// git's fill there need no other; another pty and a process without a terminal are asked; `audit`
    /// shows each step with the program, to that user alone.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aWindowOfTheServiceServesItsTerminalSessionOnly() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await withCleanup { () async throws -> Void in
            let secret = "inside-the-window"
            try await storeProtected("win", secret: secret)
            let binary = CLISandbox.binary.path
            let gitStore = try await session(
                ["-c", "printf 'protocol=https\\nhost=win.example\\nusername=u\\npassword=git-in-the-window\\n\\n' | \(binary) git-credential --biometrics store"],
                as: user, executable: "/bin/sh")
            try await answerFinger()
            #expect(try await gitStore.finish() == 0, "\(gitStore.text)")
            let mark = try await auditMark(as: user)
            let script = """
                B=\(binary)
                $B show win --unlock-window 5m --field token; $B status win --unlock-window 5m; echo step-1; read _
                $B show win --field token; $B show win --field token
                $B exec win --env T=token -- /bin/sh -c 'echo "exec:$T"'
                printf 'protocol=https\\nhost=win.example\\n\\n' | git -c credential.helper= -c "credential.helper=$B git-credential" credential fill
                echo step-2
                """
            let terminal = try await session(["-c", script], as: user, detached: false, executable: "/bin/sh")
            #expect(try await terminal.waitFor("Touch the fingerprint reader"), "\(terminal.text)")
            try await answerFinger()
            #expect(try await terminal.waitFor("step-1"), "\(terminal.text)")
            // The prompt names the item and the program asking, with its parent, as the service sees them.
            #expect(terminal.text.contains("Unlock 'win' for biometrics-vaul ("), "\(terminal.text)")
            #expect(terminal.text.contains("started by sh"), "\(terminal.text)")
            #expect(terminal.text.contains("unlock window: open for biometrics-vault (biometry"), "\(terminal.text)")
            // The window is open; another terminal and a process without one are asked.
            await #expect(try scanned(["show", "win", "--field", "token"], as: user, finger: Self.finger).status == 0)
            await #expect(try scanned(["show", "win", "--field", "token"], as: user, finger: Self.finger, detached: true).status == 0)
            terminal.type("\n")
            #expect(try await terminal.waitFor("step-2"), "\(terminal.text)")
            await #expect(try !reader.fingerNeeded())
            #expect(try await terminal.finish() == 0, "\(terminal.text)")
            #expect(terminal.text.components(separatedBy: secret).count - 1 == 4, "\(terminal.text)")
            #expect(terminal.text.contains("exec:\(secret)"))
            #expect(terminal.text.contains("password=git-in-the-window"), "\(terminal.text)")
            #expect(terminal.text.components(separatedBy: "Touch the fingerprint reader").count - 1 == 1, "\(terminal.text)")

            let entries = try await auditEntries(as: user, after: mark)
            func results(_ event: String) -> [String] { entries.filter { $0["event"] as? String == event }.compactMap { $0["result"] as? String } }
            let authentications = results("authenticate")
            #expect(authentications.filter { $0.contains(": finger; shown: ") }.count == 3, "\(authentications)")
            // Two reads, the exec and git's fill.
            #expect(authentications.filter { $0.hasSuffix(": inside a window") }.count == 4, "\(authentications)")
            #expect(results("windowOpened").count == 1, "\(results("windowOpened"))")
            #expect(results("read").contains("released"))
            #expect(entries.allSatisfy { ($0["program"] as? String)?.isEmpty == false && $0["uid"] != nil }, "\(entries)")
            #expect(!entries.contains { "\($0)".contains(secret) })
            // Another user sees none of these entries.
            let others = try await run(["audit", "--json"], as: other)
            #expect(others.status == 0 && !others.stdout.contains("win"), "\(others.stdout)\(others.stderr)")
            _ = try await run(["lock"], as: user)
            _ = try await run(["reset", "win"], as: user)
            _ = try await run(["git-credential", "erase"], as: user, stdin: "protocol=https\nhost=win.example\nusername=u\n\n")
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    /// A window of the service ends with the service (killed, its windows are gone), with `lock`, and
    /// with its time: each next read asks for the finger again.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aWindowOfTheServiceEndsWithTheServiceLockAndItsTime() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await withCleanup { () async throws -> Void in
            let secret = "until-the-window-ends"
            try await storeProtected("ends", secret: secret)
            let mark = try await auditMark(as: user)
            let script = """
                B=\(CLISandbox.binary.path)
                $B show ends --unlock-window 5m --field token; echo step-1; read _
                $B show ends --field token --unlock-window 5m; $B lock
                $B show ends --field token --unlock-window 2s; sleep 3
                $B show ends --field token; echo step-2
                """
            let terminal = try await session(["-c", script], as: user, detached: false, executable: "/bin/sh")
            try await answerFinger()
            #expect(try await terminal.waitFor("step-1"), "\(terminal.text)")
            try await killService()
            terminal.type("\n")
            for _ in 0..<3 { try await answerFinger() }
            #expect(try await terminal.waitFor("step-2"), "\(terminal.text)")
            #expect(try await terminal.finish() == 0, "\(terminal.text)")
            #expect(terminal.text.components(separatedBy: secret).count - 1 == 4, "\(terminal.text)")

            let entries = try await auditEntries(as: user, after: mark)
            func results(_ event: String) -> [String] { entries.filter { $0["event"] as? String == event }.compactMap { $0["result"] as? String } }
            let authentications = results("authenticate")
            #expect(authentications.filter { $0.contains(": finger; shown: ") }.count == 4, "\(authentications)")
            #expect(!authentications.contains { $0.hasSuffix(": inside a window") }, "\(authentications)")
            #expect(results("windowOpened").count == 3, "\(results("windowOpened"))")
            #expect(results("windowClosed").contains("lock: 1 window(s)"), "\(results("windowClosed"))")
            #expect(results("windowClosed").contains { $0.hasPrefix("ended") }, "\(results("windowClosed"))")
            _ = try await run(["reset", "ends"], as: user)
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    /// A same-user program floods every connection on the system bus with `CheckStarted` for the
    /// reason the CLI's reads give: the CLI hears that signal only from the service's own connection (as
    /// the bus names the sender), so reads inside a window still show no prompt line.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aCheckStartedSignalFromAnotherProgramShowsNoPromptLine() async throws {
        let python = try #require(ProcessInfo.processInfo.environment["BV_PYTHON_KEYRING"], "BV_PYTHON_KEYRING is not set")
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await withCleanup { () async throws -> Void in
            let secret = "not-asked-again"
            try await storeProtected("spoofed", secret: secret)
            let hostile = """
                import time
                from jeepney import DBusAddress, HeaderFields, new_method_call, new_signal
                from jeepney.io.blocking import open_dbus_connection
                bus = open_dbus_connection(bus="SYSTEM")
                names = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")
                vault = DBusAddress("/io/github/biometricsvault/Vault1", interface="io.github.biometricsvault.Vault1")
                print("flooding", flush=True)
                while True:
                    for name in bus.send_and_get_reply(new_method_call(names, "ListNames")).body[0]:
                        if name.startswith(":"):
                            signal = new_signal(vault, "CheckStarted", "ss", ("finger", "Unlock 'spoofed'"))
                            signal.header.fields[HeaderFields.destination] = name
                            bus.send(signal)
                    time.sleep(0.002)
                """
            let script = """
                B=\(CLISandbox.binary.path)
                $B show spoofed --unlock-window 5m --field token; echo opened
                \(python) -c '\(hostile.replacingOccurrences(of: "'", with: "'\\''"))' & H=$!
                trap 'kill $H' EXIT
                sleep 1
                for i in 1 2 3 4 5 6 7 8; do $B show spoofed --field token; done
                echo done
                """
            let terminal = try await session(["-c", script], as: user, executable: "/bin/sh")
            try await answerFinger()
            #expect(try await terminal.waitFor("done"), "\(terminal.text)")
            #expect(try await terminal.finish() == 0, "\(terminal.text)")
            #expect(terminal.text.contains("flooding"), "\(terminal.text)")
            #expect(terminal.text.components(separatedBy: secret).count - 1 == 9, "\(terminal.text)")
            // The one line is the window's own finger.
            #expect(terminal.text.components(separatedBy: "Touch the fingerprint reader").count - 1 == 1, "\(terminal.text)")
            _ = try await run(["lock"], as: user)
            _ = try await run(["reset", "spoofed"], as: user)
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    /// 50 reads at once inside a window of their terminal session (a build's parallel credential
    /// helpers) each need no other finger, and each is served by the window.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func fiftyParallelReadsInsideAWindowNeedNoOtherFinger() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await withCleanup { () async throws -> Void in
            let secret = "read-by-fifty"
            try await storeProtected("many", secret: secret)
            let mark = try await auditMark(as: user)
            let script = """
                B=\(CLISandbox.binary.path)
                $B show many --unlock-window 5m --field token > /dev/null; echo opened
                for i in $(seq 50); do $B show many --field token > "$HOME/parallel-$i" & done; wait
                echo "parallel:$(cat "$HOME"/parallel-* | grep -c \(secret))"; rm -f "$HOME"/parallel-*; $B lock; echo done
                """
            let terminal = try await session(["-c", script], as: user, detached: false, executable: "/bin/sh")
            #expect(try await terminal.waitFor("Touch the fingerprint reader"), "\(terminal.text)")
            try await answerFinger()
            #expect(try await terminal.waitFor("opened"), "\(terminal.text)")
            #expect(try await terminal.finish() == 0, "\(terminal.text)")
            #expect(terminal.text.contains("parallel:50"), "\(terminal.text)")
            // One line, for the finger that opened the window: a read the window serves shows none, however
            // long 49 others make it wait for the service.
            #expect(terminal.text.components(separatedBy: "Touch the fingerprint reader").count - 1 == 1, "\(terminal.text)")
            await #expect(try !reader.fingerNeeded())
            let authentications = try await auditEntries(as: user, after: mark)
                .filter { $0["event"] as? String == "authenticate" }.compactMap { $0["result"] as? String }
            #expect(authentications.filter { $0.contains(": finger; shown: ") }.count == 1, "\(authentications)")
            #expect(authentications.filter { $0.hasSuffix(": inside a window") }.count == 50, "\(authentications)")
            _ = try await run(["reset", "many"], as: user)
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    /// A grant the service gives inside a window of one item service releases that service's items only:
    /// a program on the window's terminal that asks inside the `biometrics-vault` window and then reads an
    /// item of another service is refused (python `jeepney`, one bus connection, as a program would).
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aWindowOfOneServiceReleasesNoOtherServicesItems() async throws {
        let python = try #require(ProcessInfo.processInfo.environment["BV_PYTHON_KEYRING"], "BV_PYTHON_KEYRING is not set")
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await withCleanup { () async throws -> Void in
            try await storeProtected("mine", secret: "in-this-service")
            let binary = CLISandbox.binary.path
            let other = try await session(
                ["-c", "echo '{\"token\":\"in-another-service\"}' | \(binary) --service other-service store theirs --biometrics"],
                as: user, executable: "/bin/sh")
            try await answerFinger()
            #expect(try await other.finish() == 0, "\(other.text)")
            let program = """
                from jeepney import DBusAddress, HeaderFields, new_method_call
                from jeepney.io.blocking import open_dbus_connection
                vault = DBusAddress("/io/github/biometricsvault/Vault1", bus_name="io.github.biometricsvault.Vault1",
                                    interface="io.github.biometricsvault.Vault1")
                bus = open_dbus_connection(bus="SYSTEM")
                \(Self.attestPython)
                attest(bus)
                reply = bus.send_and_get_reply(new_method_call(vault, "Authenticate", "sssus",
                                                               ("biometryCurrentSet", "x", "biometrics-vault", 0, "terminal")))
                token = reply.body[0]
                for service, key in (("biometrics-vault", "mine"), ("other-service", "theirs")):
                    try:
                        answer = bus.send_and_get_reply(new_method_call(vault, "Read", "ssay", (service, key, token)))
                        error = answer.header.fields.get(HeaderFields.error_name)
                        outcome = error or ("released" if answer.body[2] else "locked")
                    except Exception as failure:
                        outcome = getattr(failure, "name", repr(failure))
                    print(service, outcome, flush=True)
                """
            let script = """
                \(binary) show mine --unlock-window 5m --field token && echo opened
                \(python) -c '\(program.replacingOccurrences(of: "'", with: "'\\''"))'
                """
            let terminal = try await session(["-c", script], as: user, executable: "/bin/sh")
            try await answerFinger()
            #expect(try await terminal.finish() == 0, "\(terminal.text)")
            #expect(terminal.text.contains("opened"), "\(terminal.text)")
            #expect(terminal.text.contains("biometrics-vault released"), "\(terminal.text)")
            #expect(terminal.text.contains("other-service io.github.biometricsvault.Vault1.Error.vaultLocked"), "\(terminal.text)")
            #expect(!terminal.text.contains("in-another-service"), "\(terminal.text)")
            _ = try await run(["reset", "mine"], as: user)
            _ = try await run(["--service", "other-service", "reset", "theirs"], as: user)
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    /// logind's `PrepareForSleep(true)` (sent here by root on the system bus, where no logind runs) closes
    /// the service's windows: the next read on the same terminal asks again.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aSuspendClosesTheServicesWindows() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await withCleanup { () async throws -> Void in
            try await storeProtected("sleepy", secret: "closed-by-sleep")
            let script = """
                B=\(CLISandbox.binary.path)
                $B show sleepy --unlock-window 5m --field token; echo step-1; read _
                $B show sleepy --field token; echo step-2
                """
            let terminal = try await session(["-c", script], as: user, executable: "/bin/sh")
            try await answerFinger()
            #expect(try await terminal.waitFor("step-1"), "\(terminal.text)")
            let emitted = try await sandbox.run(
                executable: URL(fileURLWithPath: "/usr/bin/gdbus"),
                ["emit", "--system", "--object-path", "/org/freedesktop/login1", "--signal", "org.freedesktop.login1.Manager.PrepareForSleep", "true"])
            #expect(emitted.status == 0, "\(emitted.stderr)")
            // The next read starts once the service has handled the signal (its audit says so).
            var audit = try await run(["audit", "--since", "2m"], as: user)
            for _ in 0..<80 where !audit.stdout.contains("org.freedesktop.login1.Manager signalled: 1 window(s)") {
                try await Task.sleep(for: .milliseconds(250))
                audit = try await run(["audit", "--since", "2m"], as: user)
            }
            #expect(audit.stdout.contains("org.freedesktop.login1.Manager signalled: 1 window(s)"), "\(audit.stdout)\(audit.stderr)")
            terminal.type("\n")
            try await answerFinger()
            #expect(try await terminal.waitFor("step-2"), "\(terminal.text)")
            #expect(try await terminal.finish() == 0, "\(terminal.text)")
            #expect(terminal.text.components(separatedBy: "closed-by-sleep").count - 1 == 2, "\(terminal.text)")
            _ = try await run(["reset", "sleepy"], as: user)
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    /// `unlock --for-command`: one finger, then the command's own children read without a prompt; a
    /// process outside its tree (another terminal) is asked, and the window ends with the command.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aWindowForACommandServesItsDescendantsOnly() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await withCleanup { () async throws -> Void in
            let secret = "for-the-command"
            try await storeProtected("cmd", secret: secret)
            let mark = try await auditMark(as: user)
            let script = """
                B=\(CLISandbox.binary.path)
                $B unlock --for-command -- /bin/sh -c "$B show cmd --field token; $B show cmd --field token; echo inner-1; read _; echo inner-2"
                echo "outer:$?"
                $B show cmd --field token; echo after-the-command
                """
            let terminal = try await session(["-c", script], as: user, executable: "/bin/sh")
            #expect(try await terminal.waitFor("Touch the fingerprint reader"), "\(terminal.text)")
            try await answerFinger()
            #expect(try await terminal.waitFor("inner-1"), "\(terminal.text)")
            #expect(terminal.text.components(separatedBy: secret).count - 1 == 2, "\(terminal.text)")
            // Outside the command's tree, while it runs: asked.
            let sibling = try await scanned(["show", "cmd", "--field", "token"], as: user, finger: Self.finger)
            #expect(sibling.status == 0, "\(sibling.text)")
            terminal.type("\n")
            // The command has exited: the same terminal is asked again.
            #expect(try await terminal.waitFor("outer:0"), "\(terminal.text)")
            try await answerFinger()
            #expect(try await terminal.waitFor("after-the-command"), "\(terminal.text)")
            #expect(try await terminal.finish() == 0, "\(terminal.text)")
            let results = try await auditEntries(as: user, after: mark).compactMap { $0["result"] as? String }
            #expect(results.contains { $0.contains("on the process tree of pid") }, "\(results)")
            #expect(results.filter { $0.hasSuffix("inside a window") }.count == 2, "\(results)")
            _ = try await run(["reset", "cmd"], as: user)
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func anotherUserCannotReadListOrCountTheItems() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await enrollOnly(other, finger: Self.otherFinger)
        try await withCleanup { () async throws -> Void in
            let secret = "only-for-the-owner"
            await #expect(try run(["store", "mine"], as: user, stdin: #"{"token":"\#(secret)"}"#).status == 0)
            try await storeProtected("protected", secret: secret)

            // The other user, with a finger of their own enrolled: nothing to list, count or read.
            let listed = try await run(["list", "--json"], as: other)
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(!listed.stdout.contains("mine") && !listed.stdout.contains("protected"), "\(listed.stdout)")
            for key in ["mine", "protected"] {
                let read = try await run(["show", key], as: other)
                #expect(read.status == 2, "\(read.stdout)\(read.stderr)")
                #expect(!read.stdout.contains(secret))
            }
            let counted = try await gdbus("List", ["biometrics-vault"], as: other)
            #expect(counted.stdout.contains("(@as [], uint32 0)"), "\(counted.stdout)\(counted.stderr)")

            // A grant the other user's own finger earned, on the connection it was issued to, finds nothing.
            try await holdingGrant(as: other, finger: Self.otherFinger) { _, own in
                #expect(own == "absent", "\(own)")
            }
            // The owner's grant, while the connection it was issued to still holds it, taken to another
            // connection of the owner (a second program) or of the other user, releases nothing.
            var elsewhere: [CLIResult] = []
            try await holdingGrant(as: user, finger: Self.finger) { grant, own in
                #expect(own == "released", "\(own)")
                for reader in [user, other] {
                    elsewhere.append(try await gdbus("Read", ["biometrics-vault", "protected", grant], as: reader))
                }
            }
            #expect(elsewhere.count == 2)
            for answer in elsewhere {
                #expect(answer.status != 0 && answer.stderr.contains("vaultLocked"), "\(answer.stdout)\(answer.stderr)")
            }
            for answer in [counted] + elsewhere {
                #expect(!answer.stdout.contains(secret) && !answer.stderr.contains(secret))
            }

            await #expect(try run(["show", "mine", "--field", "token"], as: user).stdout.contains(secret))
            _ = try await run(["reset", "mine"], as: user)
            _ = try await run(["reset", "protected"], as: user)
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user, other])
        }
    }

    /// Calls a method of the service's interface directly, as `user`, with `gdbus`.
    /// Marks `user`'s audit log with a read of an item that does not exist, under a name of its own:
    /// what a scenario does after it is what follows that entry (``auditEntries(as:after:)``), with no
    /// wait for the entries' whole-second times to pass.
    func auditMark(as user: String) async throws -> String {
        let key = "audit-mark-" + UUID().uuidString.prefix(8).lowercased()
        let read = try await run(["show", key], as: user)
        #expect(read.status == 2, "\(read.stdout)\(read.stderr)")
        return "biometrics-vault/\(key)"
    }

    /// `user`'s audit entries after `mark` (``auditMark(as:)``), oldest first (`audit --json`).
    func auditEntries(as user: String, after mark: String) async throws -> ArraySlice<[String: Any]> {
        let audit = try await run(["audit", "--json"], as: user)
        #expect(audit.status == 0, "\(audit.stderr)")
        let entries = (try? JSONSerialization.jsonObject(with: Data(audit.stdout.utf8))) as? [[String: Any]] ?? []
        guard let at = entries.lastIndex(where: { $0["item"] as? String == mark }) else {
            Issue.record("the audit has no entry of \(mark): \(audit.stdout)")
            return []
        }
        return entries[(at + 1)...]
    }

    func gdbus(_ method: String, _ arguments: [String], as user: String) async throws -> CLIResult {
        try await run(["call", "--system", "--dest", "io.github.biometricsvault.Vault1", "--object-path",
                       "/io/github/biometricsvault/Vault1", "--method", "io.github.biometricsvault.Vault1.\(method)"] + arguments,
                      as: user, executable: "/usr/bin/gdbus")
    }

    /// Runs `body` while a program of `user` (python `jeepney`, on a terminal, one system-bus connection)
    /// holds a grant the service issued to it after `Authenticate` was answered with `finger`. `body` gets
    /// the grant as `gdbus` writes an array of bytes, and what the program's own `Read` of the protected
    /// item `protected` gave it (`released`, `locked`, `absent` or the D-Bus error name).
    func holdingGrant(as user: String, finger: String, _ body: (String, String) async throws -> Void) async throws {
        let python = try #require(ProcessInfo.processInfo.environment["BV_PYTHON_KEYRING"], "BV_PYTHON_KEYRING is not set")
        let program = """
            import sys
            from jeepney import DBusAddress, HeaderFields, new_method_call
            from jeepney.io.blocking import open_dbus_connection
            vault = DBusAddress("/io/github/biometricsvault/Vault1", bus_name="io.github.biometricsvault.Vault1",
                                interface="io.github.biometricsvault.Vault1")
            bus = open_dbus_connection(bus="SYSTEM")
            def call(method, signature, arguments):
                try:
                    answer = bus.send_and_get_reply(new_method_call(vault, method, signature, arguments))
                    return answer.header.fields.get(HeaderFields.error_name), answer.body
                except Exception as failure:
                    return getattr(failure, "name", repr(failure)), None
            error, body = call("Authenticate", "sssus", ("biometryCurrentSet", "grant", "biometrics-vault", 0, "terminal"))
            if error:
                print("refused", error, flush=True)
                sys.exit(1)
            token = body[0]
            error, body = call("Read", "ssay", ("biometrics-vault", "protected", token))
            own = error or ("absent" if not body[0] else "released" if body[2] else "locked")
            print("own", own, "grant [" + ", ".join("0x%02x" % b for b in token) + "] held", flush=True)
            sys.stdin.readline()
            """
        let holder = try await session(["-c", program], as: user, executable: python)
        try await reader.waitForFingerNeeded()
        try await reader.scan(finger)
        #expect(try await holder.waitFor("] held"), "\(holder.text)")
        let line = holder.text.split(whereSeparator: \.isNewline).first { $0.hasPrefix("own ") }.map(String.init) ?? ""
        let own = line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let bytes = line.matches(of: /0x[0-9a-f]{2}/).map { String($0.output) }
        #expect(bytes.count == 32, "\(holder.text)")
        try await body("[" + bytes.joined(separator: ", ") + "]", own)
        holder.type("\r")
        #expect(try await holder.finish() == 0, "\(holder.text)")
    }

    @Test(.needs(CLINeeds.testUser))
    func theHelpersExecAndImportUseTheServiceByDefault() async throws {
        try await prepareHomes()
        let git = try await run(["git-credential", "store"], as: user, stdin: "protocol=https\nhost=svc.example\nusername=u\npassword=through-the-service\n\n")
        #expect(git.status == 0, "\(git.stderr)")
        let filled = try await run(["git-credential", "get"], as: user, stdin: "protocol=https\nhost=svc.example\n\n")
        #expect(filled.stdout.contains("password=through-the-service"), "\(filled.stdout)\(filled.stderr)")
        await #expect(try run(["docker-credential", "store"], as: user, stdin: #"{"ServerURL":"svc.example","Username":"u","Secret":"s3"}"#).status == 0)
        await #expect(try run(["docker-credential", "get"], as: user, stdin: "svc.example\n").stdout.contains(#""Secret":"s3""#))
        await #expect(try run(["store", "for-exec"], as: user, stdin: #"{"token":"in-the-environment"}"#).status == 0)
        let exec = try await run(["exec", "for-exec", "--env", "T=token", "--", "/bin/sh", "-c", "echo \"$T\""], as: user)
        #expect(exec.stdout == "in-the-environment\n", "\(exec.stdout)\(exec.stderr)")
        // With no flag, all three went to the service, and none to the file store.
        let inService = try await run(["list", "--store", "service"], as: user)
        #expect(inService.status == 0, "\(inService.stderr)")
        let keys = inService.stdout.split(separator: "\n")
        #expect(keys.contains("git:https:u@svc.example") && keys.contains("for-exec"), "\(inService.stdout)")
        #expect(keys.filter { $0.contains("svc.example") && !$0.hasPrefix("git:") }.count == 1, "no docker item: \(inService.stdout)")
        let inFiles = try await run(["list", "--store", "file", "--authenticator", "none"], as: user)
        #expect(!inFiles.stdout.contains("svc.example") && !inFiles.stdout.contains("for-exec"), "\(inFiles.stdout)")
        // Not readable by the other user through any of them.
        let others = try await run(["git-credential", "get"], as: other, stdin: "protocol=https\nhost=svc.example\n\n")
        #expect(!others.stdout.contains("through-the-service") && !others.stdout.contains("password="), "\(others.stdout)")

        // An item of the user's file store moves into the service; the source goes once the copy reads back.
        await #expect(try run(["store", "moving", "--store", "file", "--authenticator", "none"], as: user, stdin: #"{"token":"from-the-file-store"}"#).status == 0)
        let moved = try await run(["import", "--from-store", "file", "--remove-source"], as: user)
        #expect(moved.status == 0, "\(moved.stdout)\(moved.stderr)")
        #expect(moved.stdout.contains("moving: moved, plain; the source is removed"), "\(moved.stdout)")
        await #expect(try run(["show", "moving", "--field", "token"], as: user).stdout == "from-the-file-store\n")
        await #expect(try run(["show", "moving", "--store", "file", "--authenticator", "none"], as: user).status == 2)
        for key in ["git:https:u@svc.example", "for-exec", "moving"] { _ = try await run(["reset", key], as: user) }
        _ = try await run(["docker-credential", "erase"], as: user, stdin: "svc.example\n")
    }

    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aClientThatLeavesDuringAPromptEndsIt() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await withCleanup { () async throws -> Void in
            try await storeProtected("leaving", secret: "left-behind")
            let running = try await session(["show", "leaving"], as: user)
            #expect(try await running.waitFor("Touch the fingerprint reader"), "\(running.text)")
            try await reader.waitForFingerNeeded()
            _ = try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/pkill"), ["-KILL", "-u", user, "-x", "biometrics-vaul"])
            _ = try await running.finish()
            var released = false
            for _ in 0..<100 where !released {
                released = try await !reader.fingerNeeded()
                if !released { try await Task.sleep(for: .microseconds(50_000)) }
            }
            #expect(released, "the service kept waiting for a finger for a client that left")
            // The reader is free again for the next prompt.
            let shown = try await scanned(["show", "leaving", "--field", "token"], as: user, finger: Self.finger)
            #expect(shown.status == 0, "\(shown.text)")
            _ = try await run(["reset", "leaving"], as: user)
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }

    @Test(.needs(CLINeeds.testUser))
    func fiftyParallelClientsOfTwoUsersEachSeeTheirOwn() async throws {
        try await prepareHomes()
        let script = """
            for i in $(seq 25); do
              ( echo "{\\"n\\":\\"$USER-$i\\"}" | "$0" store "p$i" >/dev/null && "$0" show "p$i" --field n ) &
            done
            wait
            """
        var started: [(String, CLIProcess)] = []
        for name in [user, other] {
            started.append((name, try await sandbox.start(
                executable: URL(fileURLWithPath: "/usr/sbin/runuser"),
                Array(command(["-c", script, CLISandbox.binary.path], as: name, executable: "/bin/sh").dropFirst()))))
        }
        var results: [String: CLIResult] = [:]
        for (name, process) in started {
            results[name] = try await process.result()
        }
        for name in [user, other] {
            let lines = Set(results[name]?.stdout.split(separator: "\n").map(String.init) ?? [])
            #expect(lines == Set((1...25).map { "\(name)-\($0)" }), "\(name): \(results[name]?.stdout ?? "") \(results[name]?.stderr ?? "")")
            let listed = try await run(["list"], as: name)
            #expect(listed.stdout.split(separator: "\n").count == 25, "\(listed.stdout)\(listed.stderr)")
            _ = try await run(["-c", "for i in $(seq 25); do \"$0\" reset p$i; done", CLISandbox.binary.path], as: name, executable: "/bin/sh")
        }
    }

    /// Each user's store key is sealed to the service's TPM (`BV_VAULT_SERVICE_TPM=1`: the CI gives the
    /// service a swtpm of its own); a store the service made while it had no TPM is moved under the TPM
    /// when it is next opened, its items kept.
    @Test(.needs(CLINeeds.testUser))
    func theStoreKeysAreSealedToTheServicesTPM() async throws {
        try await prepareHomes()
        // master.key's kind (0 a key file, 2 sealed) and, when sealed, the mechanism (1 the TPM) and flags
        // (0: no PIN), as the file store's key file format lays them out after "BVFK" and the version.
        let sealed: [UInt8] = ProcessInfo.processInfo.environment["BV_VAULT_SERVICE_TPM"] == "1" ? [2, 1, 0] : [0]
        func protection(_ name: String) throws -> [UInt8] {
            let uid = try #require(getpwnam(name)?.pointee.pw_uid)
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(Self.stateDirectory)/users/\(uid)/master.key")))
            try #require(bytes.count > 8 && Array(bytes.prefix(4)) == Array("BVFK".utf8))
            return bytes[5] == 0 ? [0] : Array(bytes[5...7])
        }
        await #expect(try run(["store", "sealed"], as: user, stdin: #"{"t":"under-the-tpm"}"#).status == 0)
        #expect(try protection(user) == sealed)

        // A key-file store made by the service's user, put in as the other user's, with the service stopped.
        let otherUID = try #require(getpwnam(other)?.pointee.pw_uid)
        let staging = "\(Self.stateDirectory)/staging"
        let made = try await sandbox.run(
            executable: URL(fileURLWithPath: "/usr/sbin/runuser"),
            ["-u", "biometrics-vault", "--", "env", "-i", "PATH=/usr/bin:/bin", "HOME=\(Self.stateDirectory)", "XDG_DATA_HOME=\(staging)",
             "ASAN_OPTIONS=\(ProcessInfo.processInfo.environment["ASAN_OPTIONS"] ?? "")", "SWIFT_BACKTRACE=enable=no",
             CLISandbox.binary.path, "store", "made-before", "--store", "file", "--authenticator", "none"],
            stdin: #"{"t":"kept-across-the-move"}"#)
        #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
        try await killService()
        let target = "\(Self.stateDirectory)/users/\(otherUID)"
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/rm"), ["-rf", target])
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/mv"), ["\(staging)/biometrics-vault", target])
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/rm"), ["-rf", staging])
        #expect(try protection(other) == [0])
        let shown = try await run(["show", "made-before", "--field", "t"], as: other)
        #expect(shown.stdout == "kept-across-the-move\n", "\(shown.stdout)\(shown.stderr)")
        #expect(try protection(other) == sealed)
        await #expect(try run(["show", "sealed", "--field", "t"], as: user).stdout == "under-the-tpm\n")
        _ = try await run(["reset", "sealed"], as: user)
        _ = try await run(["reset", "made-before"], as: other)
    }

    @Test(.needs(CLINeeds.testUser))
    func killingTheServiceDuringWritesLosesNothing() async throws {
        try await prepareHomes()
        await #expect(try run(["store", "durable"], as: user, stdin: #"{"v":"0"}"#).status == 0)
        // Each update the service acknowledged (exit 0) is written down by the writer, each one refused by
        // the kill too: the item must end at the last acknowledged value or a later one, never earlier.
        let home = sandbox.root.appendingPathComponent("home-\(user)")
        let loop = #"for i in $(seq 200); do if echo "{\"v\":\"$i\"}" | "$0" update durable >/dev/null 2>&1; then echo $i > "$HOME/acked"; else echo $i >> "$HOME/refused"; fi; done"#
        let writer = try await sandbox.start(
            executable: URL(fileURLWithPath: "/usr/sbin/runuser"),
            Array(command(["-c", loop, CLISandbox.binary.path], as: user, executable: "/bin/sh").dropFirst()))
        var kills = 0
        for _ in 0..<10 {
            try await Task.sleep(for: .milliseconds(150))
            if let pid = try await servicePID(), kill(pid, SIGKILL) == 0 { kills += 1 }
        }
        try await writer.waitUntilExit()
        let acked = Int(CLISandbox.text(of: home.appendingPathComponent("acked")).trimmingCharacters(in: .whitespacesAndNewlines))
        let refused = CLISandbox.text(of: home.appendingPathComponent("refused")).split(separator: "\n").count
        #expect(kills >= 5, "the service was running for only \(kills) of 10 kills")
        let shown = try await run(["show", "durable", "--field", "v"], as: user)
        #expect(shown.status == 0, "\(shown.stdout)\(shown.stderr)")
        let value = Int(shown.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(value != nil, "the item is not a complete value: \(shown.stdout)")
        if let value, let acked {
            #expect(value >= acked && value <= 200, "the item holds \(value), the last acknowledged update was \(acked) (\(refused) refused)")
        } else {
            Issue.record("no update was acknowledged (\(refused) refused)")
        }
        _ = try await run(["reset", "durable"], as: user)
    }
}
#endif
