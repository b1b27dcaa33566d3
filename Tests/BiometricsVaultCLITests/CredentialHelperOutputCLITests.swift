import BiometricsVaultTestSupport
import Foundation
import Testing

/// The credential helpers when their answer cannot be delivered: stdout closed, full, or a pipe whose
/// reader has gone. Like `show`, the helper must exit 14 (Docs/CLI.md, "When stdout cannot be written")
/// and say so on stderr, never report success with nothing delivered; the secret never reaches stderr.
@Suite(.onTestThreads) struct CredentialHelperOutputCLITests {
    static let plain = ["--store", "file", "--authenticator", "none"]
    static let outputs: [RawSpawn.Output] = [.devFull, .closed, .brokenPipe]
    let sandbox: CLISandbox
    let spawn: RawSpawn

    init() throws {
        sandbox = try CLISandbox()
        spawn = RawSpawn(sandbox: sandbox)
    }

    @Test("docker get and list exit 14 when stdout takes nothing", arguments: ["get", "list"], outputs)
    func dockerAnswerToAnUnwritableStdout(action: String, output: RawSpawn.Output) async throws {
        defer { sandbox.remove() }
        let stored = try await sandbox.run(
            ["docker-credential", "store"] + Self.plain,
            stdin: #"{"ServerURL":"127.0.0.1:5000","Username":"alice","Secret":"docker-s3cr3t"}"#)
        try #require(stored.status == 0, "\(stored.stderr)")
        let answered = try spawn.run(
            ["docker-credential", action] + Self.plain, stdin: .text("127.0.0.1:5000\n"), stdout: output)
        #expect(answered.signal == nil && !answered.timedOut, "\(answered)")
        #expect(answered.exitStatus == Exit.outputFailed, "\(answered)")
        #expect(answered.stderr.contains("cannot write the result to stdout"), "\(answered)")
        #expect(!answered.stderr.contains("docker-s3cr3t"))
    }

    @Test("git get exits 14 when stdout takes nothing", arguments: outputs)
    func gitAnswerToAnUnwritableStdout(output: RawSpawn.Output) async throws {
        defer { sandbox.remove() }
        let stored = try await sandbox.run(
            ["git-credential", "store"] + Self.plain, stdin: "protocol=https\nhost=example.com\nusername=alice\npassword=git-s3cr3t\n\n")
        try #require(stored.status == 0, "\(stored.stderr)")
        let answered = try spawn.run(
            ["git-credential", "get"] + Self.plain, stdin: .text("protocol=https\nhost=example.com\n\n"), stdout: output)
        #expect(answered.signal == nil && !answered.timedOut, "\(answered)")
        #expect(answered.exitStatus == Exit.outputFailed, "\(answered)")
        #expect(answered.stderr.contains("cannot write the result to stdout"), "\(answered)")
        #expect(!answered.stderr.contains("git-s3cr3t"))
    }

    /// What was delivered still works: the same answers to a readable stdout, stderr empty.
    @Test func answersToAWritableStdoutStillSucceedSilently() async throws {
        defer { sandbox.remove() }
        _ = try await sandbox.run(
            ["docker-credential", "store"] + Self.plain,
            stdin: #"{"ServerURL":"127.0.0.1:5000","Username":"alice","Secret":"docker-s3cr3t"}"#)
        let got = try spawn.run(["docker-credential", "get"] + Self.plain, stdin: .text("127.0.0.1:5000\n"))
        #expect(got.exitStatus == 0 && got.stderr.isEmpty && got.stdout.contains("docker-s3cr3t"), "\(got)")
        let listed = try spawn.run(["docker-credential", "list"] + Self.plain)
        #expect(listed.exitStatus == 0 && listed.stderr.isEmpty && listed.stdout.contains("alice"), "\(listed)")
    }
}
