#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// The CLI with the real fprintd on libfprint's virtual sensor (`scripts/setup/30-fprintd-polkit.sh`).
///
/// There is one reader and fprintd lets one client claim it, so this suite runs alone, from
/// `scripts/extra-tests/40-cli-fingerprint.sh` (which sets `BV_CLI_FINGERPRINT=1`), not in the
/// whole-suite run where the Linux-auth tests use the reader at the same time.
@Suite(.onTestThreads, .serialized, .needs(.ownStep("scripts/extra-tests/40-cli-fingerprint.sh", runsHere: ProcessInfo.processInfo.environment["BV_CLI_FINGERPRINT"] == "1")))
final class FingerprintCLITests {
    static let finger = "cli-finger"
    /// The test user's finger (lockout test).
    static let userFinger = "cli-user-finger"
    let sandbox: CLISandbox

    init() throws { sandbox = try CLISandbox() }
    deinit { sandbox.remove() }

    var reader: VirtualReader { VirtualReader(sandbox: sandbox) }

    func scan(_ id: String) async throws { try await reader.scan(id) }

    func waitForFingerNeeded() async throws { try await reader.waitForFingerNeeded() }

    /// `user` (default: the calling user, root in CI) with exactly one finger enrolled, whose sensor id is `finger`.
    /// (fprintd refuses to enroll a print another user already enrolled: give each user its own `finger`.)
    func enrollOneFinger(user: String? = nil, finger: String = FingerprintCLITests.finger) async throws {
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user ?? NSUserName()])
        try await enrollFinger(user: user, finger: finger, as: "right-index-finger")
    }

    /// Enrolls one more finger of `user` (keeping the others) as `name`, with sensor id `finger`.
    func enrollFinger(user: String? = nil, finger: String, as name: String) async throws {
        try await reader.enrollFinger(user: user, finger: finger, as: name)
    }

    /// Runs the CLI on a pty, answers its fingerprint prompt with `finger` (or Ctrl-C when `nil`).
    func runScanning(_ arguments: [String], finger: String?) async throws -> (status: Int32, text: String) {
        let command = shellQuoted([CLISandbox.binary.path] + arguments + ["--store", "file", "--authenticator", "fprintd"])
        let session = try await PTYSession(command: command, environment: sandbox.environment)
        #expect(try await session.waitFor("Touch the fingerprint reader"), "no fingerprint prompt: \(session.text)")
        try await waitForFingerNeeded()
        if let finger {
            try await scan(finger)
        } else {
            session.type("\u{03}")
        }
        let status = try await session.finish()
        return (status, session.text)
    }

    @Test(.needs(CLINeeds.fingerprint))
    func protectedShowMatchesAndFailsOnTheRealReader() async throws {
        try await enrollOneFinger()
        let credentials = try sandbox.file("creds.json", #"{"token":"behind-a-finger"}"#)

        let stored = try await runScanning(["store", "fp", "--biometrics", "--from-file", credentials], finger: Self.finger)
        #expect(stored.status == 0, "\(stored.text)")

        // status never prompts: no reader claimed, no prompt line.
        let status = try await sandbox.run(["status", "fp", "--store", "file", "--authenticator", "fprintd", "--json"])
        #expect(status.status == 0)
        #expect(status.stdout.jsonObject?["state"] as? String == "locked")
        #expect(!status.stderr.contains("Touch"))

        let shown = try await runScanning(["show", "fp", "--field", "token"], finger: Self.finger)
        #expect(shown.status == 0, "\(shown.text)")
        #expect(shown.text.contains("behind-a-finger"))

        let wrong = try await runScanning(["show", "fp"], finger: "someone-else")
        #expect(wrong.status == 4, "a non-matching finger is 'authentication failed': \(wrong.text)")
        #expect(!wrong.text.contains("behind-a-finger"))

        // Ctrl-C while waiting for a finger: "cancelled", and the reader is released (the next
        // prompt can claim it and match).
        let cancelled = try await runScanning(["show", "fp"], finger: nil)
        #expect(cancelled.status == 3, "Ctrl-C is 'cancelled': \(cancelled.text)")
        let again = try await runScanning(["show", "fp", "--field", "token"], finger: Self.finger)
        #expect(again.status == 0, "\(again.text)")
        #expect(again.text.contains("behind-a-finger"))

        _ = try await sandbox.run(["reset", "fp", "--store", "file", "--authenticator", "none"])
    }

    /// After five wrong fingers `show` exits 5 naming the way out; `status` must say the same, not only
    /// `locked` as for any protected item at rest. The counter is set as five non-matching scans leave it
    /// (the lockout tests make the scans; as root, a fifth one on a terminal would ask root's password).
    @Test(.needs(CLINeeds.fingerprint))
    func statusSaysBiometricsAreLockedOutAndHowToRecover() async throws {
        try await enrollOneFinger()
        let credentials = try sandbox.file("creds.json", #"{"token":"behind-a-locked-out-reader"}"#)
        let stored = try await runScanning(["store", "fp", "--biometrics", "--from-file", credentials], finger: Self.finger)
        #expect(stored.status == 0, "\(stored.text)")
        let fprintd = ["--store", "file", "--authenticator", "fprintd"]
        let before = try await sandbox.run(["status", "fp", "--json"] + fprintd)
        #expect(before.stdout.jsonObject?["biometricsLockedOut"] as? Bool == false, "\(before.stdout)")

        let counter = sandbox.root.appendingPathComponent("state/biometrics-vault/fingerprint-attempts-\(NSUserName())")
        try Data("5\n".utf8).write(to: counter)
        defer { try? FileManager.default.removeItem(at: counter) }

        let text = try await sandbox.run(["status", "fp"] + fprintd)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("state:     locked"), "\(text.stdout)")
        #expect(text.stdout.contains("lockout:   biometrics are locked out after 5 failed attempts"), "\(text.stdout)")
        #expect(text.stdout.contains("biometrics-vault clear-lockout"), "\(text.stdout)")
        #expect(!text.stderr.contains("Touch"), "\(text.stderr)")
        let json = try await sandbox.run(["status", "fp", "--json"] + fprintd)
        #expect(json.status == 0, "\(json.stderr)")
        let object = json.stdout.jsonObject
        #expect(object?["state"] as? String == "locked", "\(json.stdout)")
        #expect(object?["biometricsLockedOut"] as? Bool == true, "\(json.stdout)")
        #expect((object?["lockoutRecovery"] as? String)?.contains("biometrics-vault clear-lockout") == true, "\(json.stdout)")
        // What status says is what show does: exit 5 at once, without a prompt.
        let shown = try await sandbox.run(["show", "fp"] + fprintd)
        #expect(shown.status == 5, "\(shown.stderr)")
        // Where biometrics gate nothing (no authenticator: a plain item cannot be upgraded, an empty key
        // cannot be protected) the lockout is not asked about, and status claims nothing either way.
        let none = ["--store", "file", "--authenticator", "none"]
        let storedPlain = try await sandbox.run(["store", "plain"] + none, stdin: #"{"token":"plain"}"#)
        #expect(storedPlain.status == 0, "\(storedPlain.stderr)")
        for (key, state) in [("plain", "keychain"), ("absent", "empty")] {
            let ungated = try await sandbox.run(["status", key, "--json"] + none)
            #expect(ungated.status == 0, "\(ungated.stderr)")
            #expect(ungated.stdout.jsonObject?["state"] as? String == state, "\(ungated.stdout)")
            #expect(ungated.stdout.jsonObject?["biometricsLockedOut"] == nil, "\(ungated.stdout)")
            #expect(!ungated.stdout.contains("lockout"), "\(ungated.stdout)")
        }

        _ = try await sandbox.run(["reset", "fp", "--store", "file", "--authenticator", "none"])
        _ = try await sandbox.run(["reset", "plain", "--store", "file", "--authenticator", "none"])
    }

    /// `exec` of a protected item: one finger, then the command runs with the field in its environment
    /// (global options before the verb, since everything after `--` belongs to the command).
    @Test(.needs(CLINeeds.fingerprint))
    func execUnlocksAProtectedItemWithOneFinger() async throws {
        defer { sandbox.remove() }
        try await enrollOneFinger()
        let credentials = try sandbox.file("creds.json", #"{"token":"exec-behind-a-finger"}"#)
        let stored = try await runScanning(["store", "fp", "--biometrics", "--from-file", credentials], finger: Self.finger)
        #expect(stored.status == 0, "\(stored.text)")
        let command = shellQuoted(
            [CLISandbox.binary.path, "--store", "file", "--authenticator", "fprintd", "exec", "fp", "--env", "T=token", "--",
             "/bin/sh", "-c", #"echo "got $T"; exit 3"#])
        let session = try await PTYSession(command: command, environment: sandbox.environment)
        #expect(try await session.waitFor("Touch the fingerprint reader"), "no fingerprint prompt: \(session.text)")
        try await waitForFingerNeeded()
        try await scan(Self.finger)
        #expect(try await session.finish() == 3, "the command's status: \(session.text)")
        #expect(session.text.contains("got exec-behind-a-finger"))
        #expect(session.text.components(separatedBy: "Touch the fingerprint reader").count == 2, "one prompt: \(session.text)")
    }

    /// git's own `credential approve` / `fill` with the helper installed as git users write it
    /// (`credential.helper 'biometrics-vault --biometrics'`, through the `git-credential-biometrics-vault`
    /// link): the approved password goes behind the finger, and `fill` is answered by a touch on the real
    /// reader, on the terminal git runs from.
    @Test(.needs(CLINeeds.fingerprint))
    func gitCredentialFillIsAnsweredByAFinger() async throws {
        try await enrollOneFinger()
        var environment = sandbox.environment
        let bin = sandbox.root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: bin.appendingPathComponent("git-credential-biometrics-vault").path, withDestinationPath: CLISandbox.binary.path)
        environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["HOME"] = sandbox.root.path
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        environment["GIT_CONFIG_GLOBAL"] = sandbox.root.appendingPathComponent("gitconfig").path
        environment["GIT_TERMINAL_PROMPT"] = "0"
        let helper = "credential.helper=biometrics-vault --biometrics --store file --authenticator fprintd"

        /// `git credential ACTION` on a pty (its stdin is the terminal: the attributes are typed), with a
        /// finger on the reader when the helper asks for one.
        func git(_ action: String, _ attributes: String) async throws -> (status: Int32, text: String) {
            let session = try await PTYSession(
                command: shellQuoted(["/usr/bin/git", "-c", "credential.helper=", "-c", helper, "credential", action]),
                environment: environment)
            session.type(attributes + "\n")
            #expect(try await session.waitFor("Touch the fingerprint reader"), "no fingerprint prompt: \(session.text)")
            try await waitForFingerNeeded()
            try await scan(Self.finger)
            return try await (session.finish(), session.text)
        }

        let approved = try await git("approve", "protocol=https\nhost=git.example.com\nusername=alice\npassword=pushed-by-a-finger\n")
        #expect(approved.status == 0, "\(approved.text)")
        let status = try await sandbox.run(["status", "git:https:alice@git.example.com", "--store", "file", "--authenticator", "fprintd", "--json"])
        #expect(status.stdout.jsonObject?["state"] as? String == "locked", "\(status.stdout)\(status.stderr)")

        let filled = try await git("fill", "protocol=https\nhost=git.example.com\n")
        #expect(filled.status == 0, "\(filled.text)")
        #expect(filled.text.contains("username=alice\r\npassword=pushed-by-a-finger\r\n"), "\(filled.text)")

        _ = try await sandbox.run(["reset", "git:https:alice@git.example.com", "--store", "file", "--authenticator", "none"])
        sandbox.remove()
    }

    /// The test user (BV_TEST_USER) and its login password, with one finger of its enrolled, the sandbox
    /// handed to it, and `json` in a credentials file it owns.
    func asTestUser(credentials json: String) async throws -> (user: String, password: String, credentials: String) {
        let environment = ProcessInfo.processInfo.environment
        let user = try #require(environment["BV_TEST_USER"])
        let password = try #require(environment["BV_TEST_PASSWORD"])
        try await enrollOneFinger(user: user, finger: Self.userFinger)
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chown"), ["-R", user, sandbox.root.path])
        let credentials = try sandbox.file("creds.json", json)
        _ = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/chown"), [user, credentials])
        return (user, password, credentials)
    }

    /// The CLI as the non-root test user on a pty (PAM checks the caller's own password; root's is
    /// unknown), with the real fprintd and PAM, its files in the test's sandbox.
    struct TestUserTerminal {
        let user: String
        let password: String
        let sandbox: CLISandbox
        let reader: VirtualReader

        /// `terminal: false` detaches the CLI from the pty (no controlling terminal, as under cron),
        /// `extra` adds environment variables.
        func session(_ arguments: [String], terminal: Bool = true, extra: [String] = [], authenticator: String = "fprintd") async throws -> PTYSession {
            let command = ["runuser", "-u", user, "--", "env", "HOME=\(sandbox.root.path)"] + extra
                + (terminal ? [] : ["setsid", "-w"])
                + [CLISandbox.binary.path] + arguments + ["--store", "file", "--authenticator", authenticator]
            return try await PTYSession(command: shellQuoted(command), environment: sandbox.environment)
        }

        /// Runs the CLI and answers its fingerprint prompt with `finger`.
        func scanned(_ arguments: [String], finger: String, terminal: Bool = true) async throws -> (status: Int32, text: String) {
            let running = try await session(arguments, terminal: terminal)
            #expect(try await running.waitFor("Touch the fingerprint reader"), "no fingerprint prompt: \(running.text)")
            try await reader.waitForFingerNeeded()
            try await reader.scan(finger)
            return try await (running.finish(), running.text)
        }

        /// Types the password once PAM's own prompt is shown (not at the CLI's notice, which also says
        /// "password": typed before PAM turns echo off, it would be echoed).
        func typingPassword(_ running: PTYSession) async throws -> Bool {
            guard try await running.waitFor("Password: ") else { return false }
            running.type(password + "\r")
            return true
        }

        /// Four non-matching fingers, each refused (exit 4): the next one locks the item out.
        func failFourTimes() async throws {
            for _ in 0..<4 {
                let wrong = try await scanned(["show", "fp"], finger: "someone-else")
                #expect(wrong.status == 4, "\(wrong.text)")
            }
        }
    }

    /// The test user with one finger enrolled and `fp` stored behind it; `body` runs, then the finger is
    /// deleted.
    func withTestUsersItem(_ body: (TestUserTerminal, _ credentials: String) async throws -> Void) async throws {
        let (user, password, credentials) = try await asTestUser(credentials: #"{"token":"after-the-lockout"}"#)
        let terminal = TestUserTerminal(user: user, password: password, sandbox: sandbox, reader: reader)
        try await withCleanup { () async throws -> Void in
            let stored = try await terminal.scanned(["store", "fp", "--biometrics", "--from-file", credentials], finger: Self.userFinger)
            #expect(stored.status == 0, "\(stored.text)")
            try await body(terminal, credentials)
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
            sandbox.remove()
        }
    }

    /// Over SSH a fingerprint-only item fails at once (exit 9), without waiting for a finger; an item
    /// behind the password (stored with `--authenticator pam`) is read with the password on the terminal.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aRemoteSessionNeverWaitsForAFinger() async throws {
        try await withTestUsersItem { terminal, credentials in
            let remote = try await terminal.session(["show", "fp"], extra: ["SSH_CONNECTION=192.0.2.1 50000 192.0.2.2 22"])
            #expect(try await remote.finish() == 9, "\(remote.text)")
            #expect(remote.text.contains("remote session"))
            #expect(!remote.text.contains("Touch the fingerprint reader"))

            let passwordItem = try await terminal.session(["store", "pw", "--biometrics", "--from-file", credentials], authenticator: "pam")
            #expect(try await terminal.typingPassword(passwordItem), "\(passwordItem.text)")
            #expect(try await passwordItem.finish() == 0, "\(passwordItem.text)")
            let remotePassword = try await terminal.session(
                ["show", "pw", "--field", "token"], extra: ["SSH_CONNECTION=192.0.2.1 50000 192.0.2.2 22"])
            #expect(try await terminal.typingPassword(remotePassword), "\(remotePassword.text)")
            #expect(try await remotePassword.finish() == 0, "\(remotePassword.text)")
            #expect(remotePassword.text.contains("after-the-lockout"))
            #expect(!remotePassword.text.contains("Touch the fingerprint reader"))
            #expect(!remotePassword.text.contains(terminal.password), "the password was echoed")
        }
    }

    /// Five non-matching fingers, the fifth with no terminal to ask the password on: exit 5, naming
    /// `clear-lockout`, and the reader is not used while locked out. `clear-lockout` takes the login
    /// password; then the finger works again.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aLockoutWithoutATerminalIsClearedByTheLoginPassword() async throws {
        try await withTestUsersItem { terminal, _ in
            try await terminal.failFourTimes()
            let fifth = try await terminal.scanned(["show", "fp"], finger: "someone-else", terminal: false)
            #expect(fifth.status == 5, "\(fifth.text)")
            #expect(fifth.text.contains("clear-lockout"))
            let stillLocked = try await terminal.session(["show", "fp"], terminal: false)
            #expect(try await stillLocked.finish() == 5, "\(stillLocked.text)")
            #expect(!stillLocked.text.contains("Touch the fingerprint reader"), "the reader is not used while locked out")
            #expect(stillLocked.text.contains("clear-lockout"))

            let clearing = try await terminal.session(["clear-lockout"])
            #expect(try await terminal.typingPassword(clearing), "no password prompt: \(clearing.text)")
            #expect(try await clearing.finish() == 0, "\(clearing.text)")
            #expect(clearing.text.contains("fingerprint lockout cleared"))
            #expect(!clearing.text.contains(terminal.password), "the password was echoed")
            let notLocked = try await terminal.session(["clear-lockout"])
            #expect(try await notLocked.finish() == 0)
            #expect(notLocked.text.contains("not locked out"))
            let shown = try await terminal.scanned(["show", "fp", "--field", "token"], finger: Self.userFinger)
            #expect(shown.status == 0, "\(shown.text)")
            #expect(shown.text.contains("after-the-lockout"))
        }
    }

    /// A lockout hit on a terminal: the fifth failure asks for the login password, then for the finger
    /// once more, and the show succeeds.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aLockoutOnATerminalAsksThePasswordThenTheFingerAgain() async throws {
        try await withTestUsersItem { terminal, _ in
            try await terminal.failFourTimes()
            let recovering = try await terminal.session(["show", "fp", "--field", "token"])
            #expect(try await recovering.waitFor("Touch the fingerprint reader"), "\(recovering.text)")
            try await waitForFingerNeeded()
            try await scan("someone-else")
            #expect(try await recovering.waitFor("locked out"), "\(recovering.text)")
            #expect(try await terminal.typingPassword(recovering), "no password prompt: \(recovering.text)")
            #expect(try await recovering.waitFor("Touch the fingerprint reader", count: 2), "no second finger prompt: \(recovering.text)")
            try await waitForFingerNeeded()
            try await scan(Self.userFinger)
            #expect(try await recovering.finish() == 0, "\(recovering.text)")
            #expect(recovering.text.contains("after-the-lockout"))
            #expect(!recovering.text.contains(terminal.password), "the password was echoed")
        }
    }

    /// Lockout with nothing but defaults (no `--authenticator`): five non-matching
    /// fingers must leave the reader the authenticator `auto` picks. `doctor` picks fprintd (locked out),
    /// `status` says `locked`, not `emptyWithBiometrics, invalidated: biometryChanged`; `show` without a
    /// terminal exits 5 naming `clear-lockout` (not 12, "store it again", which would lose the item);
    /// on a terminal it asks the login password, then the finger, and prints the secret.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func lockoutUnderTheDefaultAuthenticatorIsNotInvalidation() async throws {
        let (user, password, credentials) = try await asTestUser(credentials: #"{"token":"kept-through-the-lockout"}"#)
        try await withCleanup { () async throws -> Void in

            /// The CLI as `user` with the default authenticator (only the store is named, so the test does
            /// not depend on a session bus for that user).
            func session(_ arguments: [String], terminal: Bool = true) async throws -> PTYSession {
                let command = ["runuser", "-u", user, "--", "env", "HOME=\(sandbox.root.path)"]
                    + (terminal ? [] : ["setsid", "-w"])
                    + [CLISandbox.binary.path] + arguments + ["--store", "file"]
                return try await PTYSession(command: shellQuoted(command), environment: sandbox.environment)
            }
            func scanned(_ arguments: [String], finger: String, terminal: Bool = true) async throws -> (status: Int32, text: String) {
                let running = try await session(arguments, terminal: terminal)
                #expect(try await running.waitFor("Touch the fingerprint reader"), "no fingerprint prompt: \(running.text)")
                try await waitForFingerNeeded()
                try await scan(finger)
                return try await (running.finish(), running.text)
            }

            let stored = try await scanned(["store", "fp", "--biometrics", "--from-file", credentials], finger: Self.userFinger)
            #expect(stored.status == 0, "\(stored.text)")
            for _ in 0..<4 {
                let wrong = try await scanned(["show", "fp"], finger: "someone-else")
                #expect(wrong.status == 4, "\(wrong.text)")
            }
            let fifth = try await scanned(["show", "fp"], finger: "someone-else", terminal: false)
            #expect(fifth.status == 5, "\(fifth.text)")

            let doctor = try await session(["doctor"], terminal: false)
            #expect(try await doctor.finish() == 0, "\(doctor.text)")
            #expect(doctor.text.contains("authenticator fprintd (biometryLockout"), "\(doctor.text)")
            let status = try await session(["status", "fp", "--json"], terminal: false)
            #expect(try await status.finish() == 0, "\(status.text)")
            #expect(status.text.contains(#""state":"locked""#), "\(status.text)")
            #expect(!status.text.contains("biometryChanged"), "\(status.text)")

            let locked = try await session(["show", "fp"], terminal: false)
            #expect(try await locked.finish() == 5, "\(locked.text)")
            #expect(locked.text.contains("clear-lockout"), "\(locked.text)")
            #expect(!locked.text.contains("invalidated"), "\(locked.text)")
            #expect(!locked.text.contains("Touch the fingerprint reader"), "the reader is not used while locked out")

            // On a terminal: the login password (PAM), then the finger once more, then the secret.
            let recovering = try await session(["show", "fp", "--field", "token"])
            #expect(try await recovering.waitFor("Password: "), "no password prompt: \(recovering.text)")
            recovering.type(password + "\r")
            #expect(try await recovering.waitFor("Touch the fingerprint reader"), "no finger prompt after the password: \(recovering.text)")
            try await waitForFingerNeeded()
            try await scan(Self.userFinger)
            #expect(try await recovering.finish() == 0, "\(recovering.text)")
            #expect(recovering.text.contains("kept-through-the-lockout"))
            #expect(!recovering.text.contains(password), "the password was echoed")
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
            sandbox.remove()
        }
    }
}
// MARK: unlock windows on the real reader

extension FingerprintCLITests {
    /// A window test's terminal: `sh` on its own pty (one controlling terminal, one session), running
    /// one command line at a time, and the agent's private runtime directory.
    final class WindowTerminal {
        let session: PTYSession
        let runtime: URL
        let environment: [String: String]
        private var commands = 0

        init(sandbox: CLISandbox) async throws {
            // Short, as /run/user/UID is: a socket path under the sandbox would pass the 107 bytes allowed.
            var template = Array("/tmp/bv-fw.XXXXXX".utf8CString)
            let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
            runtime = URL(fileURLWithPath: String(cString: try #require(made)))
            var environment = sandbox.environment
            environment["XDG_RUNTIME_DIR"] = runtime.path
            environment["PS1"] = ""
            environment["BIOMETRICS_VAULT_UNLOCK_WINDOW"] = nil
            self.environment = environment
            session = try await PTYSession(command: "sh", environment: environment)
        }

        var socket: String { runtime.path + "/biometrics-vault/agent.sock" }

        /// Runs `line` on this terminal; whenever the CLI shows the fingerprint prompt, puts `finger` on the
        /// reader once fprintd asks. `scans`: how many verifies fprintd ran for it (each one prompted and
        /// waited for a finger); the exit status; what the terminal showed.
        func run(_ line: String, finger: String = FingerprintCLITests.finger, tests: FingerprintCLITests) async throws
            -> (scans: Int, status: Int32?, text: String)
        {
            commands += 1
            let start = session.text.count
            let marker = "BVDONE-\(commands)-"
            // printf's format keeps the marker out of the echoed command line.
            session.type("\(line); printf 'BV%s-\(commands)-%d\\n' DONE $?\n")
            var scans = 0
            for _ in 0..<2400 {
                let text = String(session.text.dropFirst(start))
                if let range = text.range(of: marker) {
                    return (scans, Int32(text[range.upperBound...].prefix { $0.isNumber }), text)
                }
                // The prompt line is redrawn each second, so verifies are counted at fprintd: each time it
                // asks for a finger while the command runs (and has shown its prompt) is one.
                if text.contains("Touch the fingerprint reader"), try await tests.fingerNeeded() {
                    try await tests.scan(finger)
                    scans += 1
                    for _ in 0..<100 {
                        guard try await tests.fingerNeeded() else { break }
                        try await Task.sleep(for: .milliseconds(50))
                    }
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            return (scans, nil, String(session.text.dropFirst(start)))
        }

        /// The CLI's command line (store options included) for `words`.
        static func cli(_ words: [String], window: String? = "60") -> String {
            shellQuoted(
                [CLISandbox.binary.path] + words + ["--store", "file", "--authenticator", "fprintd"]
                    + (window.map { ["--unlock-window", $0] } ?? []))
        }

        /// Ends the shell and the agent it started (found by its socket's peer credentials, never by name).
        func close() async {
            session.type("exit\n")
            _ = try? await session.finish()
            if let pid = agentPID() { kill(pid, SIGTERM) }
            try? FileManager.default.removeItem(at: runtime)
        }

        /// The agent's pid, from the kernel's credentials of the process listening on the socket.
        func agentPID() -> Int32? {
            let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { return nil }
            defer { Glibc.close(descriptor) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(socket.utf8) + [0]) }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            var credentials = [Int32](repeating: 0, count: 3)
            var length = socklen_t(12)
            guard connected == 0, getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0, credentials[0] > 0
            else { return nil }
            return credentials[0]
        }
    }

    /// Whether fprintd asks for a finger now.
    func fingerNeeded() async throws -> Bool { try await reader.fingerNeeded() }

    /// Stores `item` behind the finger (`store --biometrics`, no window) on `terminal`: one scan.
    func storeBehindTheFinger(_ item: String, token: String, on terminal: WindowTerminal) async throws {
        let credentials = try sandbox.file("creds-\(item).json", #"{"token":"\#(token)"}"#)
        let stored = try await terminal.run(WindowTerminal.cli(["store", item, "--biometrics", "--from-file", credentials], window: nil), tests: self)
        #expect(stored.status == 0 && stored.scans == 1, "\(stored.text)")
    }

    /// Inside a window, one terminal reads with one finger: three `show`s and git's `credential fill`
    /// through the helper take one verify between them. Another terminal, and a process of this terminal
    /// without a controlling terminal (`setsid`), are asked for a finger again.
    @Test(.needs(CLINeeds.fingerprint))
    func oneFingerOpensTheWindowForThisTerminalOnly() async throws {
        try await enrollOneFinger()
        let terminal = try await WindowTerminal(sandbox: sandbox)
        try await withCleanup { () async throws -> Void in
            let bin = sandbox.root.appendingPathComponent("bin")
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: bin.appendingPathComponent("git-credential-biometrics-vault").path, withDestinationPath: CLISandbox.binary.path)
            let gitEnvironment = [
                "PATH=\(bin.path):/usr/bin:/bin", "HOME=\(sandbox.root.path)", "GIT_CONFIG_NOSYSTEM=1",
                "GIT_CONFIG_GLOBAL=\(sandbox.root.path)/gitconfig", "GIT_TERMINAL_PROMPT=0",
            ]
            func git(_ action: String, _ attributes: String, window: String?) -> String {
                "printf '%s' " + shellQuoted([attributes]) + " | " + shellQuoted(
                    ["env"] + gitEnvironment + (window.map { ["BIOMETRICS_VAULT_UNLOCK_WINDOW=\($0)"] } ?? [])
                        + ["/usr/bin/git", "-c", "credential.helper=", "-c",
                           "credential.helper=biometrics-vault --biometrics --store file --authenticator fprintd", "credential", action])
            }

            try await storeBehindTheFinger("fp", token: "one-finger-window", on: terminal)
            let approved = try await terminal.run(
                git("approve", "protocol=https\nhost=git.example.com\nusername=alice\npassword=behind-the-window\n\n", window: nil), tests: self)
            #expect(approved.status == 0 && approved.scans == 1, "\(approved.text)")

            var shows: [(scans: Int, status: Int32?, text: String)] = []
            for _ in 0..<3 { shows.append(try await terminal.run(WindowTerminal.cli(["show", "fp", "--field", "token"]), tests: self)) }
            for shown in shows {
                #expect(shown.status == 0 && shown.text.contains("one-finger-window"), "\(shown.text)")
            }
            let filled = try await terminal.run(git("fill", "protocol=https\nhost=git.example.com\n\n", window: "60"), tests: self)
            #expect(filled.status == 0 && filled.text.contains("password=behind-the-window"), "\(filled.text)")
            #expect(shows.map(\.scans) + [filled.scans] == [1, 0, 0, 0], "one verify for three shows and a fill: \(shows.map(\.text)) \(filled.text)")
            #expect(!filled.text.contains("Touch the fingerprint reader"), "\(filled.text)")

            // Another pty: its own terminal and session, so no window.
            let elsewhere = try await PTYSession(command: WindowTerminal.cli(["show", "fp", "--field", "token"]), environment: terminal.environment)
            #expect(try await elsewhere.waitFor("Touch the fingerprint reader"), "another terminal was not asked: \(elsewhere.text)")
            try await waitForFingerNeeded()
            try await scan(Self.finger)
            #expect(try await elsewhere.finish() == 0 && elsewhere.text.contains("one-finger-window"), "\(elsewhere.text)")

            // A process of this terminal without a controlling terminal: no scope, so no window.
            let detached = try await terminal.run("setsid -w " + WindowTerminal.cli(["show", "fp", "--field", "token"]), tests: self)
            #expect(detached.status == 0 && detached.scans == 1 && detached.text.contains("one-finger-window"), "\(detached.text)")

            // The window of this terminal is still open.
            let again = try await terminal.run(WindowTerminal.cli(["show", "fp", "--field", "token"]), tests: self)
            #expect(again.status == 0 && again.scans == 0 && again.text.contains("one-finger-window"), "\(again.text)")
        } cleanup: {
            await terminal.close()
        }
    }

    /// 50 reads started at once from one terminal inside its window: all succeed, none asks for a
    /// finger, and the agent goes on serving.
    @Test(.needs(CLINeeds.fingerprint))
    func fiftyParallelReadsInsideAWindowTakeNoFinger() async throws {
        try await enrollOneFinger()
        let terminal = try await WindowTerminal(sandbox: sandbox)
        try await withCleanup { () async throws -> Void in
            try await storeBehindTheFinger("fp", token: "fifty-at-once", on: terminal)
            let opened = try await terminal.run(WindowTerminal.cli(["show", "fp", "--field", "token"]), tests: self)
            #expect(opened.status == 0 && opened.scans == 1, "\(opened.text)")
            let agent = try #require(terminal.agentPID())

            // A non-interactive shell: its background children keep the terminal's session and process group.
            let outputs = sandbox.root.appendingPathComponent("parallel")
            try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
            let read = "timeout 120 " + WindowTerminal.cli(["show", "fp", "--field", "token"])
            let script = "for i in $(seq 1 50); do ( \(read); echo \"exit=$?\" ) > \(outputs.path)/$i 2>&1 & done; wait"
            let parallel = try await terminal.run(shellQuoted(["sh", "-c", script]), tests: self)
            #expect(parallel.status == 0 && parallel.scans == 0, "\(parallel.text)")
            let results = (1...50).map { CLISandbox.text(of: outputs.appendingPathComponent("\($0)")) }
            let succeeded = results.filter { $0.contains("fifty-at-once") && $0.contains("exit=0") }
            #expect(succeeded.count == 50, "\(results.filter { !$0.contains("exit=0") }.prefix(3))")
            #expect(results.allSatisfy { !$0.contains("Touch the fingerprint reader") }, "a read inside the window asked for a finger")

            #expect(terminal.agentPID() == agent, "the agent kept serving")
            let after = try await terminal.run(WindowTerminal.cli(["show", "fp", "--field", "token"]), tests: self)
            #expect(after.status == 0 && after.scans == 0 && after.text.contains("fifty-at-once"), "\(after.text)")
        } cleanup: {
            await terminal.close()
        }
    }

    /// Enrolling another finger closes the window of a `biometryCurrentSet` item at the agent: the next
    /// `show` reads the item as invalidated (exit 12, without a finger: the library's rule for a new
    /// enrolled set), `agent --status` lists no window, and storing again asks for a finger.
    @Test(.needs(CLINeeds.fingerprint))
    func anEnrollmentChangeClosesTheWindow() async throws {
        try await enrollOneFinger()
        try await withCleanup { () async throws -> Void in
            let terminal = try await WindowTerminal(sandbox: sandbox)
            try await withCleanup { () async throws -> Void in
                try await storeBehindTheFinger("fp", token: "until-a-new-finger", on: terminal)
                let opened = try await terminal.run(WindowTerminal.cli(["show", "fp", "--field", "token"]), tests: self)
                let inside = try await terminal.run(WindowTerminal.cli(["show", "fp", "--field", "token"]), tests: self)
                #expect(opened.scans == 1 && inside.scans == 0 && inside.status == 0, "\(opened.text) \(inside.text)")
                let status = shellQuoted([CLISandbox.binary.path, "agent", "--status"])
                let before = try await terminal.run(status, tests: self)
                #expect(before.text.contains("open: service 'biometrics-vault' (biometryCurrentSet)"), "\(before.text)")

                try await enrollFinger(finger: "\(Self.finger)-second", as: "left-index-finger")

                let changed = try await terminal.run(WindowTerminal.cli(["show", "fp", "--field", "token"]), tests: self)
                #expect(changed.status == 12 && changed.scans == 0, "invalidated by the new finger: \(changed.text)")
                #expect(!changed.text.contains("until-a-new-finger"), "\(changed.text)")
                let after = try await terminal.run(status, tests: self)
                #expect(after.status == 0 && after.text.contains("no unlock window is open for this terminal"), "the window stayed open: \(after.text)")
                #expect(CLISandbox.text(of: URL(fileURLWithPath: terminal.runtime.path + "/biometrics-vault/agent.log"))
                    .contains("the enrolled fingers changed"))

                // Stored again under the new set: asked for a finger (no window), then readable.
                try await storeBehindTheFinger("fp", token: "under-the-new-set", on: terminal)
            } cleanup: {
                await terminal.close()
            }
        } cleanup: {
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [NSUserName()])
        }
    }
}
#endif
