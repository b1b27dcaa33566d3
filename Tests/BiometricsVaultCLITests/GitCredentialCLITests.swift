import BiometricsVaultTestSupport
import Foundation
import Testing

/// The git credential helper driven by the real `git` binary (`git credential approve|fill|reject`), on the
/// encrypted file store in a sandbox, with git's own configuration confined to the sandbox.
@Suite(.onTestThreads) struct GitCredentialCLITests {
    static let git = URL(fileURLWithPath: "/usr/bin/git")
    static let plain = ["--store", "file", "--authenticator", "none"]
    let sandbox: CLISandbox

    init() throws {
        var sandbox = try CLISandbox()
        // `git-credential-biometrics-vault` on PATH, as the package installs it: a link to the binary.
        let bin = sandbox.root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: bin.appendingPathComponent("git-credential-biometrics-vault").path,
            withDestinationPath: CLISandbox.binary.path)
        sandbox.environment["PATH"] = bin.path + ":" + (sandbox.environment["PATH"] ?? "/usr/bin:/bin")
        sandbox.environment["HOME"] = sandbox.root.path
        sandbox.environment["GIT_CONFIG_NOSYSTEM"] = "1"
        sandbox.environment["GIT_CONFIG_GLOBAL"] = sandbox.root.appendingPathComponent("gitconfig").path
        sandbox.environment["GIT_TERMINAL_PROMPT"] = "0"
        for name in ["GIT_ASKPASS", "SSH_ASKPASS"] { sandbox.environment[name] = nil }
        self.sandbox = sandbox
    }

    /// `git -c credential.helper=HELPER credential ACTION` with `attributes` on stdin.
    func git(_ action: String, helper: String, _ attributes: String, config: [String] = []) async throws -> CLIResult {
        var arguments = ["-c", "credential.helper=", "-c", "credential.helper=\(helper)"]
        for setting in config { arguments += ["-c", setting] }
        return try await sandbox.run(executable: Self.git, arguments + ["credential", action], stdin: attributes + "\n")
    }

    /// The helper line git users write, through the installed link.
    static let linkHelper = "biometrics-vault " + plain.joined(separator: " ")
    /// The same helper as a shell command line naming the binary and the verb.
    static var verbHelper: String { "!" + shellQuoted([CLISandbox.binary.path, "git-credential"] + plain) }

    @Test("approve, fill, reject through git", arguments: [linkHelper, verbHelper])
    func approveFillReject(helper: String) async throws {
        defer { sandbox.remove() }
        let approved = try await git("approve", helper: helper, "protocol=https\nhost=example.com\nusername=alice\npassword=s3cr3t\n")
        #expect(approved.status == 0, "\(approved.stderr)")

        let filled = try await git("fill", helper: helper, "protocol=https\nhost=example.com\n")
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(filled.stdout == "protocol=https\nhost=example.com\nusername=alice\npassword=s3cr3t\n")

        // `list` names it as a user recognises it; `show` reads it like any item.
        let listed = try await sandbox.run(["list"] + Self.plain)
        #expect(listed.stdout == "git:https:alice@example.com\n")
        #expect(try await sandbox.run(["show", "git:https:alice@example.com", "--field", "password"] + Self.plain).stdout == "s3cr3t\n")

        let rejected = try await git("reject", helper: helper, "protocol=https\nhost=example.com\nusername=alice\npassword=s3cr3t\n")
        #expect(rejected.status == 0)
        #expect(try await sandbox.run(["list"] + Self.plain).stdout.isEmpty)
        // Nothing stored: git asks for the password itself (here it may not prompt, so it fails).
        let unanswered = try await git("fill", helper: helper, "protocol=https\nhost=example.com\n")
        #expect(unanswered.status != 0)
        #expect(unanswered.stdout.isEmpty)
        #expect(unanswered.stderr.contains("terminal prompts disabled"))
    }

    @Test func itemsAreKeyedByProtocolHostUsernameAndPath() async throws {
        defer { sandbox.remove() }
        let helper = Self.linkHelper
        let useHttpPath = ["credential.useHttpPath=true"]
        _ = try await git("approve", helper: helper, "protocol=https\nhost=git.example.com:8443\nusername=bob\npassword=one\n")
        _ = try await git("approve", helper: helper, "protocol=https\nhost=git.example.com:8443\npath=org/repo.git\nusername=carol\npassword=two\n", config: useHttpPath)
        _ = try await git("approve", helper: helper, "protocol=http\nhost=git.example.com:8443\nusername=bob\npassword=three\n")

        let listed = try await sandbox.run(["list"] + Self.plain).stdout
        #expect(listed == """
            git:http:bob@git.example.com%3A8443
            git:https:bob@git.example.com%3A8443
            git:https:carol@git.example.com%3A8443:org%2Frepo.git

            """)
        let host = try await git("fill", helper: helper, "protocol=https\nhost=git.example.com:8443\n")
        #expect(host.stdout.contains("username=bob\npassword=one\n"))
        let path = try await git("fill", helper: helper, "protocol=https\nhost=git.example.com:8443\npath=org/repo.git\n", config: useHttpPath)
        #expect(path.stdout.contains("username=carol\npassword=two\n"))
        let otherPath = try await git("fill", helper: helper, "protocol=https\nhost=git.example.com:8443\npath=org/other.git\n", config: useHttpPath)
        #expect(otherPath.stdout.isEmpty)
        let otherUser = try await git("fill", helper: helper, "protocol=https\nhost=git.example.com:8443\nusername=dave\n")
        #expect(otherUser.stdout.isEmpty)

        // A changed password replaces a plain item; a reject naming another password keeps it.
        _ = try await git("approve", helper: helper, "protocol=https\nhost=git.example.com:8443\nusername=bob\npassword=new\n")
        _ = try await git("reject", helper: helper, "protocol=https\nhost=git.example.com:8443\nusername=bob\npassword=stale\n")
        let changed = try await git("fill", helper: helper, "protocol=https\nhost=git.example.com:8443\nusername=bob\n")
        #expect(changed.stdout.contains("password=new\n"))
    }

    /// The helper alone, as git calls it: newer attributes kept, unknown ones ignored, stdout protocol only.
    @Test func helperKeepsNewerAttributesAndIgnoresUnknownOnes() async throws {
        defer { sandbox.remove() }
        let helper = ["git-credential"] + Self.plain
        let stored = try await sandbox.run(
            helper + ["store"],
            stdin: "capability[]=authtype\nprotocol=https\nhost=example.com\nusername=alice\npassword=p\n"
                + "password_expiry_utc=4102444800\noauth_refresh_token=refresh-me\nwwwauth[]=Basic realm=x\nfuture_attribute=1\n\n")
        #expect(stored.status == 0)
        #expect(stored.stdout.isEmpty)
        let got = try await sandbox.run(helper + ["get"], stdin: "protocol=https\nhost=example.com\nfuture_attribute=2\n\n")
        #expect(got.status == 0)
        #expect(got.stdout == """
            protocol=https
            host=example.com
            username=alice
            password=p
            password_expiry_utc=4102444800
            oauth_refresh_token=refresh-me

            """)
        // An operation git may add later is ignored, silently.
        let unknown = try await sandbox.run(helper + ["capability"], stdin: "protocol=https\nhost=example.com\n\n")
        #expect(unknown.status == 0)
        #expect(unknown.stdout.isEmpty && unknown.stderr.isEmpty)
        // Nothing stored there: no output at all.
        let none = try await sandbox.run(helper + ["get"], stdin: "protocol=https\nhost=elsewhere.example\n\n")
        #expect(none.status == 0)
        #expect(none.stdout.isEmpty)
    }

    /// An item under a git key that git did not write (not the helper's JSON): `get` passes over it
    /// silently, prints no protocol line, and git falls back to its own prompt.
    @Test func unreadableItemPrintsNothingAndGitFallsBack() async throws {
        defer { sandbox.remove() }
        #expect(try await sandbox.run(["store", "git:https:alice@example.com"] + Self.plain, stdin: #"["not","git"]"#).status == 0)
        let got = try await sandbox.run(["git-credential"] + Self.plain + ["get"], stdin: "protocol=https\nhost=example.com\n\n")
        #expect(got.status == 0)
        #expect(got.stderr.isEmpty)
        #expect(got.stdout.isEmpty)
        let filled = try await git("fill", helper: Self.linkHelper, "protocol=https\nhost=example.com\n")
        #expect(filled.stdout.isEmpty)
        #expect(filled.stderr.contains("terminal prompts disabled"))
    }

    @Test("help texts match their golden files", arguments: ["git-credential", "docker-credential", "exec", "clear-lockout"])
    func helpText(verb: String) async throws {
        defer { sandbox.remove() }
        let result = try await sandbox.run([verb, "--help"])
        #expect(result.status == 0)
        let golden = goldenURL("help-\(verb).txt")
        if ProcessInfo.processInfo.environment["BV_UPDATE_GOLDEN"] == "1" {
            try Data(result.stdout.utf8).write(to: golden)
        }
        #expect(result.stdout == CLISandbox.text(of: golden))
    }
}
