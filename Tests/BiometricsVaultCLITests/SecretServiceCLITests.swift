import BiometricsVaultTestSupport
import Foundation
import Testing

/// The CLI against the real Secret Service (gnome-keyring on the session bus that CI's
/// `scripts/setup/20-secret-service.sh` starts), checked from the outside with `secret-tool`.
@Suite(.onTestThreads, .needs(CLINeeds.secretService)) final class SecretServiceCLITests {
    let sandbox: CLISandbox
    let service = "bv-cli-test-\(UUID().uuidString.prefix(8))"

    init() throws { sandbox = try CLISandbox(keepSessionBus: true) }
    deinit { sandbox.remove() }

    func cli(_ arguments: [String], stdin: String? = nil) async throws -> CLIResult {
        try await sandbox.run(arguments + ["--service", service, "--store", "secret-service", "--authenticator", "none"], stdin: stdin)
    }

    func secretTool(_ arguments: [String], stdin: String? = nil) async throws -> CLIResult {
        try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/secret-tool"), arguments, stdin: stdin)
    }

    @Test func storedThroughTheCLIReadBySecretTool() async throws {
        try await withCleanup { () async throws -> Void in
            let stored = try await cli(["store", "api"], stdin: #"{"token":"from-cli","user":"ci"}"#)
            #expect(stored.status == 0, "\(stored.stderr)")

            let lookup = try await secretTool(["lookup", "service", service, "username", "api"])
            #expect(lookup.status == 0)
            // The secret is the credentials JSON itself (member order is the encoder's, so compare values).
            let secret = lookup.stdout.jsonObject
            #expect(secret?["token"] as? String == "from-cli")
            #expect(secret?["user"] as? String == "ci")
            #expect(secret?.count == 2)

            await #expect(try cli(["list"]).stdout == "api\n")
            await #expect(try cli(["show", "api", "--field", "token"]).stdout == "from-cli\n")
            await #expect(try cli(["reset", "api"]).status == 0)
            await #expect(try secretTool(["lookup", "service", service, "username", "api"]).stdout.isEmpty)
        } cleanup: {
            _ = try? await cli(["reset", "api"])
        }
    }

    @Test func autoPicksTheSecretServiceWithoutANotice() async throws {
        try await withCleanup { () async throws -> Void in
            let stored = try await sandbox.run(["store", "auto", "--service", service, "--authenticator", "none", "--json"], stdin: "42")
            #expect(stored.status == 0)
            #expect(stored.stdout.jsonObject?["store"] as? String == "secret-service")
            #expect(!stored.stderr.contains("no Secret Service"))
        } cleanup: {
            _ = try? await cli(["reset", "auto"])
        }
    }

    @Test func importAdoptsASecretToolItem() async throws {
        let source = service + "-legacy"
        try await withCleanup { () async throws -> Void in
            let put = try await secretTool(["store", "--label", "legacy", "service", source, "username", "alice"], stdin: #"{"token":"legacy"}"#)
            #expect(put.status == 0)

            let imported = try await cli(["import", "--from-service", source, "--username", "alice", "--remove-source"])
            #expect(imported.status == 0, "\(imported.stderr)")
            await #expect(try cli(["show", "alice", "--field", "token"]).stdout == "legacy\n")
            await #expect(try secretTool(["lookup", "service", source, "username", "alice"]).stdout.isEmpty)

            let missing = try await cli(["import", "--from-service", source, "--username", "nobody"])
            #expect(missing.status == 2)
        } cleanup: {
            _ = try? await secretTool(["clear", "service", source, "username", "alice"])
            _ = try? await cli(["reset", "alice"])
        }
    }

    /// python keyring and secret-tool store plain text. Such a secret was written, the source deleted
    /// (--remove-source), and then read as "corrupted" (exit 11): now it is refused before anything is
    /// written and the source stays; with --as-string it becomes a JSON string.
    @Test func importOfAPlainTextSecret() async throws {
        let source = service + "-plain"
        let secret = #"hunter2 "plain" \ text"#
        try await withCleanup { () async throws -> Void in
            let put = try await secretTool(["store", "--label", "keyring", "service", source, "username", "bob"], stdin: secret)
            #expect(put.status == 0)

            let refused = try await cli(["import", "--from-service", source, "--username", "bob", "--remove-source"])
            #expect(refused.status == 8, "\(refused.stderr)")
            #expect(refused.stderr.contains("--as-string"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("hunter2"))
            await #expect(try cli(["status", "bob", "--json"]).stdout.jsonObject?["state"] as? String == "empty")
            await #expect(try secretTool(["lookup", "service", source, "username", "bob"]).stdout == secret)

            let imported = try await cli(["import", "--from-service", source, "--username", "bob", "--remove-source", "--as-string"])
            #expect(imported.status == 0, "\(imported.stderr)")
            await #expect(try cli(["show", "bob"]).stdout == #""hunter2 \"plain\" \\ text""# + "\n")
            await #expect(try secretTool(["lookup", "service", source, "username", "bob"]).stdout.isEmpty)
        } cleanup: {
            _ = try? await secretTool(["clear", "service", source, "username", "bob"])
            _ = try? await cli(["reset", "bob"])
        }
    }

    /// A key written by another program may hold terminal escapes: `list` on a terminal shows them
    /// escaped (it printed them raw); a pipe gets the key as stored.
    @Test func listEscapesKeysOnATerminal() async throws {
        let hostile = "evil\u{1B}]0;owned\u{07}\u{1B}[2J\nsecond"
        let attributes = ["xdg:schema", "io.github.biometricsvault.Plain", "service", service, "username", hostile, "bv-header", "bv1;none"]
        try await withCleanup { () async throws -> Void in
            let put = try await secretTool(["store", "--label", "foreign"] + attributes, stdin: "{}")
            #expect(put.status == 0, "\(put.stderr)")

            let command = shellQuoted([CLISandbox.binary.path, "list", "--service", service, "--store", "secret-service", "--authenticator", "none"])
            let session = try await PTYSession(command: command, environment: sandbox.environment)
            #expect(try await session.finish() == 0, "\(session.text.debugDescription)")
            #expect(session.text.contains(#"evil\u001b]0;owned\u0007\u001b[2J\u000asecond"#), "\(session.text.debugDescription)")
            #expect(!session.text.contains("\u{1B}"), "\(session.text.debugDescription)")
            await #expect(try cli(["list"]).stdout == hostile + "\n")
        } cleanup: {
            _ = try? await secretTool(["clear"] + attributes)
        }
    }
}
