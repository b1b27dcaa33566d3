#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// What `exec` hands COMMAND, and what the caller's ignored signals mean to the CLI: COMMAND must get
/// what it would have got if the caller had started it directly (the environment byte for byte, the
/// signals the caller ignores), and the fields as `show --field` prints them.
@Suite(.onTestThreads) struct ExecInheritanceCLITests {
    static let plain = ["--store", "file", "--authenticator", "none"]
    let sandbox: CLISandbox

    init() async throws {
        sandbox = try CLISandbox()
        let stored = try await sandbox.run(
            ["store", "nums"] + Self.plain,
            stdin: #"{"big":123456789012345678901234567890,"huge":1e400,"tiny":-0.0E-7,"int":9223372036854775808,"s":"x"}"#)
        #expect(stored.status == 0, "\(stored.stderr)")
    }

    /// Numbers went through Double: the big one came out as 1.2345678901234568e+29 and 1e400 was refused.
    @Test("exec and show --field print a number as the same JSON text", arguments: ["big", "huge", "tiny", "int", "s"])
    func numbersAreTheStoredLiteral(field: String) async throws {
        defer { sandbox.remove() }
        let shown = try await sandbox.run(["show", "nums", "--field", field] + Self.plain)
        #expect(shown.status == 0, "\(shown.stderr)")
        let executed = try await sandbox.run(
            ["exec", "nums", "--env", "V=\(field)"] + Self.plain + ["--", "/bin/sh", "-c", #"printf '%s\n' "$V""#])
        #expect(executed.status == 0, "\(executed.stderr)")
        #expect(executed.stdout == shown.stdout)
    }

    /// A value that is not UTF-8 (a Latin-1 locale, a file name) reaches COMMAND unchanged; it was
    /// re-encoded with U+FFFD.
    @Test func theEnvironmentIsPassedByteForByte() async throws {
        defer { sandbox.remove() }
        let script = #"""
            export BV_LATIN1="$(printf 'caf\351 \377')"
            exec "$0" exec nums --env V=s --store file --authenticator none -- /bin/sh -c 'printf %s "$BV_LATIN1" | od -An -tx1'
            """#
        let result = try await sandbox.run(executable: URL(fileURLWithPath: "/bin/sh"), ["-c", script, CLISandbox.binary.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(whereSeparator: \.isWhitespace) == ["63", "61", "66", "e9", "20", "ff"], "\(result.stdout)")
    }

    /// `nohup`, `trap '' SIG`: a signal the caller ignores stays ignored in COMMAND (exec set every
    /// signal to its default); the others, SIGPIPE included (the CLI ignores it itself), are as the caller left them.
    @Test func commandGetsTheSignalsTheCallerIgnores() async throws {
        defer { sandbox.remove() }
        let report = #"grep -E '^Sig(Ign|Blk):' /proc/self/status"#
        let direct = try await sandbox.run(
            executable: URL(fileURLWithPath: "/bin/sh"), ["-c", "trap '' HUP INT USR1; exec /bin/sh -c \"$0\"", report])
        let throughExec = try await sandbox.run(
            executable: URL(fileURLWithPath: "/bin/sh"),
            ["-c", "trap '' HUP INT USR1; exec \"$0\" exec nums --env V=s --store file --authenticator none -- /bin/sh -c \"$1\"",
             CLISandbox.binary.path, report])
        #expect(throughExec.status == 0, "\(throughExec.stderr)")
        // Signals 1-31 (bits 0-30). 32 and 33 are glibc's own (thread cancellation, setxid): a
        // multi-threaded process gets glibc's handlers for them, which execve resets to the default.
        func mask(_ name: String, _ report: String) -> UInt64? {
            report.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { UInt64($0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces), radix: 16) }
                .map { $0 & 0x7FFF_FFFF }
        }
        let ignored = mask("SigIgn", direct.stdout)
        #expect(ignored != nil, "\(direct.stdout)")
        #expect(mask("SigIgn", throughExec.stdout) == ignored, "\(throughExec.stdout) vs \(direct.stdout)")
        #expect(mask("SigBlk", throughExec.stdout) == mask("SigBlk", direct.stdout))
        // SIGHUP, SIGINT and SIGUSR1 (bits 0, 1, 9) are ignored in both.
        #expect(ignored.map { $0 & 0b10_0000_0011 == 0b10_0000_0011 } == true, "\(direct.stdout)")
    }

    /// A SIGINT the caller ignores (`trap '' INT`, a background job of a script) must not cancel the
    /// CLI: it cancelled the task, and a second one exited 3 while the write was waiting for the lock.
    @Test func anIgnoredSIGINTCancelsNothing() async throws {
        defer { sandbox.remove() }
        let root = sandbox.root.appendingPathComponent("data/biometrics-vault")
        let serviceDirectory = try #require(try FileManager.default.contentsOfDirectory(atPath: root.path).first { $0.count == 64 })
        let lockPath = root.appendingPathComponent(serviceDirectory).appendingPathComponent(".lock").path
        let lock = open(lockPath, O_RDWR | O_CLOEXEC)
        #expect(lock >= 0)
        defer { close(lock) }
        #expect(flock(lock, LOCK_EX) == 0)

        let input = try sandbox.file("stdin-sigint", #"{"a":1}"#)
        let process = try await sandbox.start(
            executable: URL(fileURLWithPath: "/bin/sh"),
            ["-c", "trap '' INT; exec \"$0\" store ignored-int --store file --authenticator none < \"$1\"", CLISandbox.binary.path, input])
        #expect(await waitUntilWaitingForLock(pid: process.processIdentifier, lockPath: lockPath), "the store never waited for the lock")
        kill(process.processIdentifier, SIGINT)
        try await Task.sleep(for: .milliseconds(200))
        kill(process.processIdentifier, SIGINT)
        try await Task.sleep(for: .milliseconds(200))
        #expect(process.isRunning, "an ignored SIGINT ended the CLI")
        #expect(flock(lock, LOCK_UN) == 0)
        let exit = try await process.process.exit()
        #expect(!exit.signalled)
        #expect(exit.code == 0)
        #expect(try await sandbox.run(["show", "ignored-int"] + Self.plain).stdout == #"{"a":1}"# + "\n")
    }
}
#endif
