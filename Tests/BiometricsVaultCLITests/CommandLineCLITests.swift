import BiometricsVaultTestSupport
import Foundation
import Testing

/// The command line as users type it: global options before any verb (`key` included), `--version`,
/// keys that begin with `-`, `--json` with `--field`, and the texts that name the way out.
@Suite(.onTestThreads) struct CommandLineCLITests {
    static let plain = ["--store", "file", "--authenticator", "none"]
    let sandbox: CLISandbox

    init() async throws {
        sandbox = try CLISandbox()
        _ = try await sandbox.run(["store", "api"] + Self.plain, stdin: #"{"token":"s3cr3t-token","port":8443,"big":123456789012345678901234567890}"#)
    }

    @Test("global options before `key`, and between `key` and its verb", arguments: [
        ["--store", "file", "key", "status"],
        ["--json", "key", "status"],
        ["key", "--json", "status"],
        ["--json", "key", "--verbose", "status"],
        ["--passphrase-stdin", "--json", "key", "status"],
    ])
    func globalOptionsBeforeKey(arguments: [String]) async throws {
        defer { sandbox.remove() }
        let result = try await sandbox.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        #expect(result.stdout.contains("file store") || result.stdout.jsonObject?["directory"] != nil, "\(result.stdout)")
        if arguments.contains("--json") {
            #expect(result.stdout.jsonObject?["source"] != nil, "\(result.stdout)")
        }
    }

    @Test func versionPrintsTheVersion() async throws {
        defer { sandbox.remove() }
        let result = try await sandbox.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.range(of: #"^[0-9]+\.[0-9]+\.[0-9]+\n$"#, options: .regularExpression) != nil, "\(result.stdout)")
        #expect(result.stderr.isEmpty)
    }

    /// Options that every verb takes, with no verb: a usage error; an empty line: the help.
    @Test func globalOptionsWithoutAVerb() async throws {
        defer { sandbox.remove() }
        let options = try await sandbox.run(["--store", "file", "--json"])
        #expect(options.status == 64, "\(options.stdout)")
        #expect(options.stdout.isEmpty && options.stderr.contains("Missing the verb"), "\(options.stderr)")
        let empty = try await sandbox.run([])
        #expect(empty.status == 0)
        #expect(empty.stdout == CLISandbox.text(of: goldenURL("help.txt")))
    }

    /// `-dash` was read as `-d -a -s -h`: help, exit 0, and nothing said about the key.
    @Test("a word that looks like short options is a usage error", arguments: [
        ["show", "-dash"], ["show", "-dash"] + plain, ["status", "-hx"], ["reset", "-help"], ["show", "-xyz", "--json"],
    ])
    func shortOptionClusterIsAUsageError(arguments: [String]) async throws {
        defer { sandbox.remove() }
        let result = try await sandbox.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stdout)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("'--'"), "\(result.stderr)")
        #expect(!result.stderr.contains("USAGE"))
    }

    @Test func aKeyThatBeginsWithADashGoesAfterTheTerminator() async throws {
        defer { sandbox.remove() }
        let stored = try await sandbox.run(["store"] + Self.plain + ["--", "-dash"], stdin: #"{"a":1}"#)
        #expect(stored.status == 0, "\(stored.stderr)")
        let shown = try await sandbox.run(["show"] + Self.plain + ["--field", "a", "--", "-dash"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout == "1\n")
        // -h alone is still help.
        let help = try await sandbox.run(["show", "-h"])
        #expect(help.status == 0)
        #expect(help.stdout == CLISandbox.text(of: goldenURL("help-show.txt")))
    }

    @Test("show --field with --json prints the field as JSON", arguments: [
        ("token", #""s3cr3t-token""#), ("port", "8443"), ("big", "123456789012345678901234567890"),
    ])
    func fieldWithJSONIsJSON(field: String, expected: String) async throws {
        defer { sandbox.remove() }
        // Both parsers: the direct one (plain words) and ArgumentParser (`--field=`).
        for arguments in [["show", "api", "--field", field, "--json"], ["show", "api", "--field=\(field)", "--json"]] {
            let result = try await sandbox.run(arguments + Self.plain)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == expected + "\n")
            #expect((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8), options: .fragmentsAllowed)) != nil)
        }
        // Without --json the field stays raw.
        #expect(try await sandbox.run(["show", "api", "--field", field] + Self.plain).stdout == expected.replacingOccurrences(of: "\"", with: "") + "\n")
    }

    /// A passphrase store without a terminal: the message names the option for a passphrase, not the PIN's.
    @Test func storeLockedNamesTheOptionForTheStoresKeySource() async throws {
        defer { sandbox.remove() }
        let passphrase = try await sandbox.run(["key", "passphrase", "--passphrase-stdin"], stdin: "correct horse\n")
        #expect(passphrase.status == 0, "\(passphrase.stderr)")
        // setsid: no controlling terminal to ask the passphrase on, whatever runs the tests.
        let locked = try await sandbox.run(
            executable: URL(fileURLWithPath: "/usr/bin/setsid"), ["--wait", CLISandbox.binary.path, "show", "api"] + Self.plain)
        #expect(locked.status == 7, "\(locked.stderr)")
        #expect(locked.stderr.contains("--passphrase-stdin"))
        #expect(!locked.stderr.contains("--pin-stdin"), "\(locked.stderr)")
        let opened = try await sandbox.run(["show", "api", "--passphrase-stdin", "--field", "token"] + Self.plain, stdin: "correct horse\n")
        #expect(opened.stdout == "s3cr3t-token\n", "\(opened.stderr)")
    }

    /// Under `ulimit -v 65536`, a worker thread's 8 MiB stack did not fit: the CLI waited forever for its
    /// task (libdispatch retries the thread) or trapped (SIGTRAP). Now it works or says why (exit 1).
    @Test(
        "an address-space limit ends in a result or a message, never a hang or a signal",
        .enabled(
            if: ProcessInfo.processInfo.environment["ASAN_OPTIONS"] == nil,
            "AddressSanitizer's shadow memory fits no such limit: scripts/extra-tests/70-deb.sh runs it on the release binary"),
        arguments: [64, 72, 128])
    func addressSpaceLimit(mebibytes: Int) async throws {
        defer { sandbox.remove() }
        let result = try await sandbox.run(
            executable: URL(fileURLWithPath: "/usr/bin/timeout"),
            ["30", "prlimit", "--as=\(mebibytes << 20)", CLISandbox.binary.path, "status", "x"] + Self.plain)
        #expect(result.status == 0 || result.status == 1, "status \(result.status): \(result.stderr)")
        if result.status == 1 {
            #expect(result.stderr.contains("address-space limit (ulimit -v)"), "\(result.stderr)")
        } else {
            #expect(result.stdout.contains("empty"), "\(result.stdout)")
        }
    }
}
