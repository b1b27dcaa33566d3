import BiometricsVault
import BiometricsVaultFileStore
import BiometricsVaultTestSupport
import BiometricsVaultTesting
import Foundation
import Testing

/// Issue 11 regressions of the CLI, each run through the built binary: output errors (defect 2), exact
/// credentials JSON (3), input handling (9), deceptive keys (10), exit codes (11).
@Suite(.onTestThreads) struct ReliabilityCLITests {
    static let file = ["--store", "file", "--authenticator", "none"]
    let sandbox: CLISandbox
    let spawn: RawSpawn

    init() throws {
        sandbox = try CLISandbox()
        spawn = RawSpawn(sandbox: sandbox)
    }

    func run(_ verb: String, _ arguments: [String] = [], stdin: String? = nil) async throws -> CLIResult {
        try await sandbox.run([verb] + arguments + Self.file, stdin: stdin)
    }

    /// `session.finish()` with a deadline: a CLI that never ends is killed, and the test fails rather
    /// than hangs (the CLI before the echo fix never saw the end of the typed input).
    func finish(_ session: PTYSession, seconds: Int = 60) async throws -> Int32? {
        var waited = 0
        while session.process.isRunning, waited < seconds * 20 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        guard !session.process.isRunning else {
            session.process.terminate()
            _ = try await session.finish()
            Issue.record("still running after \(seconds) s; terminal shows: \(session.text)")
            return nil
        }
        return try await session.finish()
    }

    // MARK: defect 2: output errors

    @Test("show to an unwritable stdout exits 14 without crashing", arguments: [RawSpawn.Output.devFull, .closed, .brokenPipe])
    func showToUnwritableStdout(output: RawSpawn.Output) async throws {
        defer { sandbox.remove() }
        await #expect(try run("store", ["api"], stdin: #"{"token":"s3cr3t"}"#).status == Exit.ok)
        let shown = try spawn.run(["show", "api"] + Self.file, stdout: output)
        #expect(shown.signal == nil, "\(shown)")
        #expect(shown.exitStatus == Exit.outputFailed, "\(shown)")
        #expect(shown.stderr.contains("cannot write the result to stdout"), "\(shown)")
        #expect(!shown.stderr.contains("s3cr3t"))
    }

    @Test("store to an unwritable stdout stores the item, then exits 14", arguments: [RawSpawn.Output.devFull, .closed, .brokenPipe])
    func storeToUnwritableStdout(output: RawSpawn.Output) async throws {
        defer { sandbox.remove() }
        let stored = try spawn.run(["store", "api"] + Self.file, stdin: .text(#"{"token":"t"}"#), stdout: output)
        #expect(stored.signal == nil, "\(stored)")
        #expect(stored.exitStatus == Exit.outputFailed, "\(stored)")
        #expect(stored.stderr.contains("the item is stored"), "\(stored)")
        await #expect(try run("show", ["api", "--field", "token"]).stdout == "t\n")
    }

    @Test func errorPathWithStderrClosedKeepsItsStatus() async throws {
        defer { sandbox.remove() }
        let missing = try spawn.run(["show", "nothing"] + Self.file, stderr: .closed)
        #expect(missing.signal == nil, "\(missing)")
        #expect(missing.exitStatus == Exit.notFound, "\(missing)")
        let bothClosed = try spawn.run(["show", "nothing"] + Self.file, stdout: .closed, stderr: .closed)
        #expect(bothClosed.exitStatus == Exit.notFound, "\(bothClosed)")
    }

    @Test func helpToAFullStdoutExits14() async throws {
        defer { sandbox.remove() }
        let help = try spawn.run(["--help"], stdout: .devFull)
        #expect(help.signal == nil)
        #expect(help.exitStatus == Exit.outputFailed, "\(help)")
    }

    /// While the CLI waits on stdin: its core size limit is 0, and it is not dumpable, which the kernel
    /// shows by making its /proc/<pid> files owned by root. As root the test runs the CLI as `nobody`,
    /// so "owned by root" differs from "owned by the process's user".
    @Test func theProcessIsNotDumpableAndHasNoCoreLimit() async throws {
        defer { sandbox.remove() }
        var executable = CLISandbox.binary.path
        var prefix: [String] = []
        var user = getuid()
        if geteuid() == 0 {
            user = 65534
            let data = sandbox.root.appendingPathComponent("nobody-data")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            #expect(chown(data.path, user, 65534) == 0)
            chmod(sandbox.root.path, 0o755)
            executable = "/usr/bin/setpriv"
            prefix = ["--reuid=65534", "--regid=65534", "--clear-groups", "--", CLISandbox.binary.path]
            var environment = sandbox.environment
            environment["XDG_DATA_HOME"] = data.path
            environment["XDG_STATE_HOME"] = data.path
            let nobody = RawSpawn(sandbox: { var copy = sandbox; copy.environment = environment; return copy }())
            try await check(nobody, executable: executable, prefix: prefix, user: user)
        } else {
            try await check(spawn, executable: executable, prefix: prefix, user: user)
        }
    }

    private func check(_ spawner: RawSpawn, executable: String, prefix: [String], user: uid_t) async throws {
        let running = try spawner.start(
            (prefix + ["store", "waiting"] + Self.file).map { Array($0.utf8) }, executable: executable, stdin: .neverClosingPipe)
        // Wait until the CLI itself (not setpriv) runs: its /proc status shows the target uid.
        var status = ""
        for _ in 0..<400 {
            status = (try? String(contentsOfFile: "/proc/\(running.pid)/status", encoding: .utf8)) ?? ""
            if status.contains("Name:\tbiometrics-vaul"), status.contains("Uid:\t\(user)") { break }
            try await Task.sleep(for: .microseconds(25_000))
        }
        #expect(status.contains("Uid:\t\(user)"), "status: \(status)")
        // The hardening runs first thing in main, but after exec and the runtime's start (slow under
        // ASan): poll (bounded) until it shows, then check.
        var coreLine = Substring("")
        var info = stat()
        for _ in 0..<400 {
            let limits = (try? String(contentsOfFile: "/proc/\(running.pid)/limits", encoding: .utf8)) ?? ""
            coreLine = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") } ?? ""
            if stat("/proc/\(running.pid)/environ", &info) == 0, info.st_uid == 0,
                coreLine.split(separator: " ").dropFirst(4).first == "0"
            {
                break
            }
            try await Task.sleep(for: .microseconds(25_000))
        }
        // The soft limit: the hard one is kept so that `exec` can restore it for COMMAND.
        #expect(coreLine.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).first == "0", "\(coreLine)")
        #expect(stat("/proc/\(running.pid)/environ", &info) == 0)
        #expect(info.st_uid == 0, "a dumpable process's /proc files belong to its own user (\(user))")
        kill(running.pid, SIGTERM)
        _ = running.finish()
    }

    // MARK: defect 3: credentials kept exactly

    @Test(
        "store then show prints the input without its whitespace",
        arguments: [
            ("123456789012345678901234567890", "123456789012345678901234567890"),
            (#"{"n":9223372036854775808}"#, #"{"n":9223372036854775808}"#),
            ("1e-400", "1e-400"),
            ("-0", "-0"),
            ("1.0E+2", "1.0E+2"),
            (#" { "z" : 1 , "a" : [ 1.50 , -0.0e-0 ] } "#, #"{"z":1,"a":[1.50,-0.0e-0]}"#),
            (#""\u00e9\uD83D\uDE00\/\n""#, #""\u00e9\uD83D\uDE00\/\n""#),
            (#"{"é":"😀","b":"\"q\\"}"#, #"{"é":"😀","b":"\"q\\"}"#),
        ])
    func exactRoundTrip(input: String, shown: String) async throws {
        defer { sandbox.remove() }
        let stored = try await run("store", ["k"], stdin: input)
        #expect(stored.status == Exit.ok, "\(stored.stderr)")
        // A pipe: the exact bytes.
        await #expect(try run("show", ["k"]).stdout == shown + "\n")
    }

    @Test(
        "invalid JSON is bad input with a position, never the content",
        arguments: [
            #"{"a":1,"a":2}"#, #"{"a":1,"\u0061":2}"#, "01", "1.", "+1", "[1,]", "{\"k\":\"x\u{01}\"}", #""\uD800""#,
            #""\uDC00x""#, "[1] x", "NaN", "'a'", "[1}", "\u{FEFF}{}", "{\"a\" 1}", "[\"\\x\"]",
        ])
    func invalidJSON(input: String) async throws {
        defer { sandbox.remove() }
        let secret = "hunter2"
        let result = try await run("store", ["k"], stdin: input.replacingOccurrences(of: "x", with: secret))
        #expect(result.status == Exit.badInput, "\(result.stderr)")
        #expect(result.stderr.contains("not valid JSON"), "\(result.stderr)")
        #expect(result.stderr.contains("at byte "), "\(result.stderr)")
        #expect(!result.stderr.contains(secret))
        await #expect(try run("status", ["k", "--json"]).stdout.jsonObject?["state"] as? String == "empty")
    }

    @Test(
        "bytes that are not UTF-8 are not valid JSON",
        arguments: [
            [0x22, 0x61, 0xFF, 0x62, 0x22], [0x22, 0x61, 0xC0, 0x80, 0x22], [0x22, 0x61, 0xED, 0xA0, 0x80, 0x22],
            [0x22, 0x61, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0x61, 0xE2, 0x82, 0x22],
        ] as [[UInt8]])
    func invalidUTF8IsNotValidJSON(bytes: [UInt8]) async throws {
        defer { sandbox.remove() }
        let path = sandbox.root.appendingPathComponent("bad-utf8.json")
        try Data(bytes).write(to: path)
        let bad = try await run("store", ["k", "--from-file", path.path])
        #expect(bad.status == Exit.badInput)
        #expect(bad.stderr.contains("invalid UTF-8 at byte 2"), "\(bad.stderr)")
        await #expect(try run("status", ["k", "--json"]).stdout.jsonObject?["state"] as? String == "empty")
    }

    @Test func duplicateMembersNameTheMember() async throws {
        defer { sandbox.remove() }
        let result = try await run("store", ["k"], stdin: #"{"user":"a","pass":"x","\u0075ser":"b"}"#)
        #expect(result.status == Exit.badInput)
        #expect(result.stderr.contains(#"duplicate member name "user""#), "\(result.stderr)")
    }

    @Test func depthLimitIsOneLimitWithOneError() async throws {
        defer { sandbox.remove() }
        let limit = 512
        let atLimit = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        await #expect(try run("store", ["deep"], stdin: atLimit).status == Exit.ok)
        await #expect(try run("show", ["deep"]).stdout == atLimit + "\n")
        for depth in [limit + 1, limit + 100] {
            let above = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let result = try await run("store", ["deeper"], stdin: above)
            #expect(result.status == Exit.badInput)
            #expect(result.stderr.contains("nested deeper than 512 levels"), "\(result.stderr)")
        }
    }

    @Test func fieldPrintsDecodedStringsAndJSONForTheRest() async throws {
        defer { sandbox.remove() }
        _ = try await run("store", ["k"], stdin: #"{"s":"a\u0041\n","n":1.50,"o":{"x":[true]}}"#)
        await #expect(try run("show", ["k", "--field", "s"]).stdout == "aA\n\n")
        await #expect(try run("show", ["k", "--field", "n"]).stdout == "1.50\n")
        await #expect(try run("show", ["k", "--field", "o"]).stdout == #"{"x":[true]}"# + "\n")
    }

    // MARK: defect 9: input handling

    @Test(
        "a bad command fails before reading a stdin that never closes",
        arguments: [
            (["store", ""], Exit.badInput), (["store", "full"], Exit.wrongState), (["update", "missing"], Exit.notFound),
            (["upgrade", "missing"], Exit.notFound), (["store", "bad\u{85}key"], Exit.badInput),
        ])
    func failsBeforeReadingStdin(arguments: [String], expected: Int32) async throws {
        defer { sandbox.remove() }
        await #expect(try run("store", ["full"], stdin: "1").status == Exit.ok)
        let result = try spawn.start((arguments + Self.file).map { Array($0.utf8) }, stdin: .neverClosingPipe).finish(seconds: 30)
        #expect(!result.timedOut, "the CLI waited on stdin")
        #expect(result.exitStatus == expected, "\(result)")
    }

    @Test func credentialsTypedOnATerminalAreNotEchoed() async throws {
        defer { sandbox.remove() }
        let command = shellQuoted([CLISandbox.binary.path, "store", "typed"] + Self.file)
        let session = try await PTYSession(command: command, environment: sandbox.environment)
        #expect(try await session.waitFor("then press Ctrl-D"), "no prompt: \(session.text)")
        session.type(#"{"token":"typed-secret-42"}"# + "\n")
        session.type("\u{04}")
        try await #expect(finish(session) == Exit.ok, "terminal shows: \(session.text)")
        #expect(!session.text.contains("typed-secret-42"), "the credentials were echoed")
        await #expect(try run("show", ["typed", "--field", "token"]).stdout == "typed-secret-42\n")
    }

    /// Whoever answers the prompt as soon as it shows (a paste, a script driving a terminal) types
    /// into a terminal whose echo is already off. A prompt written before the switch left a window
    /// in which the typed JSON was echoed and then flushed by the switch (`TCSAFLUSH`), so the CLI
    /// waited for input that was gone. The order is read from the CLI's own system calls.
    @Test(
        "the credentials prompt is written only after the terminal's echo is off",
        .needs(.executables(["/usr/bin/strace"], remedy: "scripts/install-deps.sh")))
    func credentialsPromptFollowsEchoOff() async throws {
        defer { sandbox.remove() }
        let trace = sandbox.root.appendingPathComponent("trace").path
        var environment = sandbox.environment
        // LeakSanitizer (the ASan CI run) cannot stop a traced process's threads.
        environment["ASAN_OPTIONS"] = (environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "detect_leaks=0"
        let command = shellQuoted(
            ["/usr/bin/strace", "-f", "-qq", "-e", "trace=ioctl,write", "-o", trace, CLISandbox.binary.path, "store", "typed"] + Self.file)
        let session = try await PTYSession(command: command, environment: environment)
        #expect(try await session.waitFor("then press Ctrl-D"), "no prompt: \(session.text)")
        session.type(#"{"token":"typed-secret-43"}"# + "\n")
        session.type("\u{04}")
        try await #expect(finish(session) == Exit.ok, "terminal shows: \(session.text)")
        let lines = String(decoding: FileManager.default.contents(atPath: trace) ?? Data(), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        // The switch is the only TCSETSF (TCSAFLUSH) on stdin; the restore is a TCSETS.
        let echoOff = lines.firstIndex { $0.contains("ioctl(0, ") && $0.contains("TCSETSF, ") }
        let prompt = lines.firstIndex { $0.contains("write(2, \"Type or paste the credentials") }
        let echoOffAt = try #require(echoOff, "no switch of stdin's mode: \(lines)")
        let promptAt = try #require(prompt, "no prompt written: \(lines)")
        #expect(echoOffAt < promptAt, "the prompt was written before echo was switched off: \(lines[min(echoOffAt, promptAt)...max(echoOffAt, promptAt)])")
        await #expect(try run("show", ["typed", "--field", "token"]).stdout == "typed-secret-43\n")
    }

    @Test func ctrlCWhileTypingCredentialsRestoresEcho() async throws {
        defer { sandbox.remove() }
        let store = shellQuoted([CLISandbox.binary.path, "store", "typed"] + Self.file)
        // bash, not sh: dash dies of the Ctrl-C itself instead of waiting for the CLI's status.
        let command = "bash -c " + shellQuoted(["\(store); echo \"status=$?\"; stty -a"])
        let session = try await PTYSession(command: command, environment: sandbox.environment)
        #expect(try await session.waitFor("then press Ctrl-D"), "no prompt: \(session.text)")
        session.type(#"{"token":"partial-secret"#)
        session.type("\u{03}")
        #expect(try await session.waitFor("status=\(Exit.cancelled)"), "terminal shows: \(session.text)")
        #expect(try await session.waitFor("speed"))
        _ = try await finish(session)
        #expect(!session.text.contains("partial-secret"))
        let settings = session.text.components(separatedBy: "status=").last ?? ""
        #expect(settings.contains(" echo ") && !settings.contains("-echo "), "echo not restored: \(settings)")
        await #expect(try run("status", ["typed", "--json"]).stdout.jsonObject?["state"] as? String == "empty")
    }

    static let deceptiveValue = "a\u{1B}[2Jb\u{9B}c\u{202E}d\u{2028}e\u{7F}f\rg"

    @Test func fieldIsRawThroughAPipe() async throws {
        defer { sandbox.remove() }
        _ = try await run("store", ["k"], stdin: #"{"v":"a\u001b[2Jb\u009bc\u202ed\u2028e\u007ff\rg"}"#)
        await #expect(try run("show", ["k", "--field", "v"]).stdout == Self.deceptiveValue + "\n")
    }

    @Test func fieldIsEscapedOnATerminal() async throws {
        defer { sandbox.remove() }
        _ = try await run("store", ["k"], stdin: #"{"v":"a\u001b[2Jb\u009bc\u202ed\u2028e\u007ff\rg","raw":"x"}"#)
        let command = shellQuoted([CLISandbox.binary.path, "show", "k", "--field", "v"] + Self.file)
        let session = try await PTYSession(command: command, environment: sandbox.environment)
        try await #expect(finish(session) == Exit.ok)
        #expect(session.text.contains(#"a\u001b[2Jb\u009bc\u202ed\u2028e\u007ff\u000dg"#), "terminal shows: \(session.text.debugDescription)")
        #expect(!session.text.unicodeScalars.contains { [0x1B, 0x9B, 0x202E, 0x2028, 0x7F].contains($0.value) })
    }

    // MARK: defect 10: keys that deceive

    @Test(
        "deceptive keys are invalid",
        arguments: ["a\u{85}b", "a\u{9B}b", "a\u{2028}b", "a\u{2029}b", "a\u{202E}b", "a\u{2066}b", "a\u{200F}b", "cafe\u{301}"])
    func deceptiveKey(key: String) async throws {
        defer { sandbox.remove() }
        let result = try await run("store", [key], stdin: "1")
        #expect(result.status == Exit.badInput, "\(result.stderr)")
        #expect(result.stderr.contains("invalidKey"))
        await #expect(try run("list").stdout.isEmpty)
    }

    @Test func nfcKeyIsAccepted() async throws {
        defer { sandbox.remove() }
        await #expect(try run("store", ["caf\u{E9}"], stdin: "1").status == Exit.ok)
        await #expect(try run("list").stdout == "caf\u{E9}\n")
    }

    @Test("argv bytes that are not UTF-8 are bad input", arguments: [[0x61, 0xFF, 0x62], [0x61, 0xFE, 0x62], [0xC0, 0x80]])
    func nonUTF8Argv(key: [UInt8]) async throws {
        defer { sandbox.remove() }
        let arguments = [Array("store".utf8), key] + Self.file.map { Array($0.utf8) }
        let stored = try spawn.start(arguments, stdin: .text("1")).finish()
        #expect(stored.exitStatus == Exit.badInput, "\(stored)")
        #expect(stored.stderr.contains("not valid UTF-8"), "\(stored)")
        await #expect(try run("list").stdout.isEmpty)
    }

    // MARK: defect 11: exit codes

    /// A password-protected item (written here through the library, with a simulated passcode, into the
    /// sandbox's file store), then `show` with `--authenticator pam` and no terminal, as cron would.
    @Test func showOfAProtectedItemWithPAMAndNoTerminalIsInteractionNotAllowed() async throws {
        defer { sandbox.remove() }
        let store = try EncryptedFileStore(directory: sandbox.root.appendingPathComponent("data/biometrics-vault"))
        let device = SimulatedDevice()
        let configuration = VaultConfiguration(
            store: store, authenticator: device.authenticator, policy: .devicePasscode,
            service: VaultConfiguration.defaultService)
        let empty = try VaultFactory<[String: String]>.retrieveVaultOrThrow(key: "p", configuration: configuration)
        _ = try await empty.storeToBiometrics(credentials: ["token": "t"])
        await #expect(try run("status", ["p", "--json"]).stdout.jsonObject?["state"] as? String == "locked")

        for arguments in [["show", "p"], ["show", "p", "--field", "token"], ["store", "q", "--biometrics"]] {
            let result = try await sandbox.run(arguments + ["--store", "file", "--authenticator", "pam"], stdin: "1")
            #expect(result.status == Exit.biometricsUnavailable, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("interactionNotAllowed"), "\(result.stderr)")
            #expect(!result.stderr.contains("userCancel"))
            #expect(!result.stdout.contains("\"t\""))
        }
    }

    /// A fingerprint-bound item (`biometryCurrentSet`, written here through the library with a simulated
    /// reader, into the sandbox's file store), read with nothing but defaults while fprintd cannot be asked
    /// (the system bus address leads nowhere). A reader nobody can ask is not an enrollment change:
    /// `status` says locked, not invalidated; `show` exits 9 saying fprintd does not answer, not 12
    /// ("store it again", which would lose the credential); the item is still there and still opens.
    @Test func fingerprintItemWithFprintdUnreachableIsLockedNotInvalidated() async throws {
        defer { sandbox.remove() }
        let store = try EncryptedFileStore(directory: sandbox.root.appendingPathComponent("data/biometrics-vault"))
        let device = SimulatedDevice(biometryType: .touchID)
        let configuration = VaultConfiguration(
            store: store, authenticator: device.authenticator, policy: .biometryCurrentSet,
            service: VaultConfiguration.defaultService)
        let empty = try VaultFactory<[String: String]>.retrieveVaultOrThrow(key: "fp", configuration: configuration)
        _ = try await empty.storeToBiometrics(credentials: ["token": "kept"])

        var unreachable = sandbox
        unreachable.environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent/bv-no-system-bus"
        let status = try await unreachable.run(["status", "fp", "--json", "--store", "file"])
        #expect(status.status == Exit.ok, "\(status.stderr)")
        #expect(status.stdout.jsonObject?["state"] as? String == "locked", "\(status.stdout)")
        #expect(!status.stdout.contains("biometryChanged"), "\(status.stdout)")
        let text = try await unreachable.run(["status", "fp", "--store", "file"])
        #expect(!text.stdout.contains("invalidated"), "\(text.stdout)")

        for arguments in [["show", "fp"], ["show", "fp", "--field", "token"]] {
            let shown = try await unreachable.run(arguments + ["--store", "file"])
            #expect(shown.status == Exit.biometricsUnavailable, "\(arguments): \(shown.stderr)")
            #expect(shown.stderr.contains("biometryNotAvailable"), "\(shown.stderr)")
            #expect(shown.stderr.contains("fprintd is not running"), "\(shown.stderr)")
            #expect(shown.stderr.contains("the item is kept"), "\(shown.stderr)")
            #expect(!shown.stderr.contains("store it again"), "\(shown.stderr)")
            #expect(!shown.stdout.contains("kept"))
        }
        #expect(try await unreachable.run(["list", "--store", "file"]).stdout == "fp\n")
        guard case .locked(let locked) = try VaultFactory<[String: String]>.retrieveVaultOrThrow(key: "fp", configuration: configuration) else {
            Issue.record("the item is no longer locked"); return
        }
        #expect(try await locked.unlock().credentials == ["token": "kept"])
    }

    @Test func statusOfACorruptedItemExits11() async throws {
        defer { sandbox.remove() }
        await #expect(try run("store", ["k"], stdin: #"{"token":"t"}"#).status == Exit.ok)
        let store = sandbox.root.appendingPathComponent("data/biometrics-vault")
        let items = FileManager.default.enumerator(atPath: store.path)?.compactMap { $0 as? String } ?? []
        let itemFiles = items.filter { !$0.hasSuffix("master.key") && !$0.hasSuffix(".lock") }
            .map { store.appendingPathComponent($0) }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
        #expect(!itemFiles.isEmpty)
        for url in itemFiles {
            var bytes = try Data(contentsOf: url)
            bytes[bytes.count - 1] ^= 0xFF
            try bytes.write(to: url)
        }
        let status = try await run("status", ["k"])
        #expect(status.status == Exit.corruptedItem, "\(status.stderr)")
        #expect(status.stderr.contains("corruptedItem"))
    }
}
