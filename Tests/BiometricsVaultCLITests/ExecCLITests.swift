import BiometricsVaultTestSupport
import Foundation
import Testing

/// `exec` and global options placed before the verb, on the file store in a sandbox.
@Suite(.onTestThreads) struct ExecCLITests {
    static let plain = ["--store", "file", "--authenticator", "none"]
    let sandbox: CLISandbox

    init() async throws {
        sandbox = try CLISandbox()
        _ = try await sandbox.run(
            ["store", "api"] + Self.plain, stdin: #"{"token":"s3cr3t-token","port":8443,"debug":true,"nested":{"a":1}}"#)
    }

    @Test func commandGetsTheFieldsInItsEnvironmentAndItsExitStatusIsTheStatus() async throws {
        defer { sandbox.remove() }
        let result = try await sandbox.run(
            ["exec", "api", "--env", "API_TOKEN=token", "--env", "API_PORT=port", "--env", "DEBUG=debug"] + Self.plain
                + ["--", "/bin/sh", "-c", #"printf '%s %s %s\n' "$API_TOKEN" "$API_PORT" "$DEBUG"; exit 7"#])
        #expect(result.status == 7)
        #expect(result.stdout == "s3cr3t-token 8443 true\n")
    }

    @Test func theSecretIsNotInTheCommandsArguments() async throws {
        defer { sandbox.remove() }
        // The command reads its own argv from /proc: only what was typed after --.
        let result = try await sandbox.run(
            ["exec", "api", "--env", "API_TOKEN=token"] + Self.plain
                + ["--", "/bin/sh", "-c", #"tr '\0' ' ' < /proc/$$/cmdline; echo; echo "${#API_TOKEN}""#])
        #expect(result.status == 0)
        #expect(!(result.stdout.split(separator: "\n").first.map { $0.contains("s3cr3t") } ?? true))
        #expect(result.stdout.hasSuffix("\n12\n"), "the environment has the 12-byte token")
    }

    /// The CLI drops its own core size to 0 (credentials in memory); COMMAND gets back the limit the CLI
    /// was started with, as if it had been started directly.
    @Test func commandGetsTheCoreLimitTheCLIWasStartedWith() async throws {
        defer { sandbox.remove() }
        var started = sandbox
        // Under the ASan CI run, the sanitizer's runtime itself lowers the core limit before main
        // (disable_coredump): keep it out of this measurement.
        started.environment["ASAN_OPTIONS"] = (sandbox.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "disable_coredump=0"
        let result = try await started.run(
            executable: URL(fileURLWithPath: "/bin/sh"),
            ["-c", #"ulimit -S -c 4096 2>/dev/null || ulimit -S -c 0; ulimit -S -c; exec "$0" "$@""#, CLISandbox.binary.path,
             "exec", "api", "--env", "T=token"] + Self.plain + ["--", "/bin/sh", "-c", "ulimit -S -c"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[0] == lines[1], "the limit before the CLI, then COMMAND's: \(result.stdout)")
        #expect(lines.first != "0", "the test needs a non-zero limit to tell them apart: \(result.stdout)")
    }

    @Test func commandLooksUpPathAndInheritsTheEnvironment() async throws {
        defer { sandbox.remove() }
        var environment = sandbox
        environment.environment["BV_EXEC_INHERITED"] = "kept"
        let result = try await environment.run(["exec", "api", "--env", "T=token"] + Self.plain + ["--", "sh", "-c", #"echo "$BV_EXEC_INHERITED""#])
        #expect(result.status == 0)
        #expect(result.stdout == "kept\n")
    }

    /// The CLI sets `TSS2_LOG` for itself (tpm2-tss's warnings would repeat its error line); COMMAND
    /// gets the caller's value, or none when the caller set none.
    @Test(arguments: [nil, "all+TRACE"])
    func commandGetsTheCallersTSS2LogNotTheCLIs(callers: String?) async throws {
        defer { sandbox.remove() }
        var environment = sandbox
        environment.environment["TSS2_LOG"] = callers
        let result = try await environment.run(
            ["exec", "api", "--env", "T=token"] + Self.plain + ["--", "sh", "-c", #"echo "${TSS2_LOG-unset}""#])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == (callers ?? "unset") + "\n")
    }

    /// The command replaces the CLI: a signal sent to the process started as `biometrics-vault` reaches it.
    @Test func signalsReachTheCommand() async throws {
        defer { sandbox.remove() }
        let marker = sandbox.root.appendingPathComponent("ready").path
        let process = try await sandbox.start(
            ["exec", "api", "--env", "T=token"] + Self.plain
                + ["--", "/bin/sh", "-c", "trap 'exit 42' TERM; touch \"$1\"; while :; do sleep 0.05; done", "sh", marker])
        for _ in 0..<400 where !FileManager.default.fileExists(atPath: marker) { try await Task.sleep(for: .milliseconds(25)) }
        #expect(FileManager.default.fileExists(atPath: marker))
        kill(process.processIdentifier, SIGTERM)
        #expect(try await process.result().status == 42)
    }

    @Test("failures before the command runs", arguments: [
        (["--env", "T=missing", "--", "/bin/true"], Int32(2), "no field 'missing'"),
        (["--env", "T=nested", "--", "/bin/true"], 8, "not a string, number or boolean"),
        (["--env", "T=token", "--", "bv-no-such-command"], 127, "command not found"),
        (["--env", "T=token", "--", "/etc/hostname"], 126, "cannot be run"),
        (["--env", "1BAD=token", "--", "/bin/true"], 64, "is invalid"),
        (["--env", "T=token"], 64, "Missing the command"),
        (["--", "/bin/true"], 64, "Missing --env"),
    ])
    func failure(arguments: [String], status: Int32, message: String) async throws {
        defer { sandbox.remove() }
        let result = try await sandbox.run(["exec", "api"] + Self.plain + arguments)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains(message))
        #expect(!result.stderr.contains("s3cr3t"))
        #expect(result.stdout.isEmpty)
    }

    /// A command line that fits when the CLI starts but not once the fields join the environment:
    /// execve fails with E2BIG, which is not "permission denied or not a program".
    @Test func argumentsAndEnvironmentTooLongForExecveAreSaidSo() async throws {
        defer { sandbox.remove() }
        let field = String(repeating: "f", count: 60_000)
        #expect(try await sandbox.run(["store", "big"] + Self.plain, stdin: #"{"big":"\#(field)"}"#).status == 0)
        let head = ["exec", "big", "--env", "BIG=big"] + Self.plain + ["--", "/bin/true"]
        // What execve counts: every string with its NUL and one pointer each, for argv and envp.
        func size(_ strings: [String]) -> Int { strings.reduce(0) { $0 + $1.utf8.count + 1 + 8 } }
        let environment = sandbox.environment.map { "\($0.key)=\($0.value)" }
        // The kernel's limit (fs/exec.c): a quarter of the stack limit (unlimited: rlim_t.max), at most 6 MiB, at least 128 KiB.
        var stack = rlimit()
        try #require(getrlimit(__rlimit_resource_t(RLIMIT_STACK.rawValue), &stack) == 0)
        let quarter = stack.rlim_cur == rlim_t.max ? Int.max : Int(stack.rlim_cur / 4)
        let limit = max(min(6 * 1024 * 1024, quarter), 128 * 1024)
        let filler = String(repeating: "a", count: 1_000)
        // The CLI starts with about 24 KiB to spare; the 60 KB field then does not fit.
        let count = (limit - 24 * 1024 - size([CLISandbox.binary.path] + head) - size(environment)) / (filler.utf8.count + 1 + 8)
        let result = try await sandbox.run(head + Array(repeating: filler, count: count))
        #expect(result.status == 126, "\(result.stderr)")
        #expect(result.stderr.contains("Argument list too long"), "\(result.stderr)")
        #expect(!result.stderr.contains("permission denied"), "\(result.stderr)")
        #expect(!result.stderr.contains(field))
    }

    @Test func nothingStoredIsNotFound() async throws {
        defer { sandbox.remove() }
        let result = try await sandbox.run(["exec", "nothing", "--env", "T=token"] + Self.plain + ["--", "/bin/true"])
        #expect(result.status == 2)
    }

    @Test("global options before the verb", arguments: [
        ["--store", "file", "--authenticator", "none", "show", "api", "--field", "token"],
        ["--store=file", "--authenticator=none", "show", "api", "--field", "token"],
        ["--store", "file", "show", "--authenticator", "none", "api", "--field", "token"],
        ["--verbose", "--store", "file", "--authenticator", "none", "--service", "biometrics-vault", "show", "api", "--field", "token"],
        ["--store", "file", "--authenticator", "none", "exec", "api", "--env", "T=token", "--", "/bin/sh", "-c", "echo \"$T\""],
    ])
    func globalOptionsBeforeTheVerb(arguments: [String]) async throws {
        defer { sandbox.remove() }
        let result = try await sandbox.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "s3cr3t-token\n")
    }

    @Test func beforeTheVerbUnknownOptionsAndHelpBehaveAsBefore() async throws {
        defer { sandbox.remove() }
        let unknown = try await sandbox.run(["--stor", "file", "show", "api"])
        #expect(unknown.status == 64)
        let missingValue = try await sandbox.run(["--store"])
        #expect(missingValue.status == 64)
        let help = try await sandbox.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout == CLISandbox.text(of: goldenURL("help.txt")))
        let verbHelp = try await sandbox.run(["--store", "file", "show", "--help"])
        #expect(verbHelp.status == 0)
        #expect(verbHelp.stdout == CLISandbox.text(of: goldenURL("help-show.txt")))
    }
}
