import BiometricsVaultTestSupport
import Foundation
import Testing

/// git's own conformance suite for external credential helpers, `t/t0303-credential-external.sh` of the
/// installed git's source (unpacked by `scripts/setup/50-git-credential-suite.sh`), run against
/// `credential.helper biometrics-vault` with the installed `/usr/bin/git` (`GIT_TEST_INSTALLED`). Then the
/// cases later git releases added to that suite (2.41+: `password_expiry_utc`, `oauth_refresh_token`, erase
/// matching, overwrite, a long header), which git 2.39 cannot check (it drops the attributes it does not know
/// from its answer): reproduced here from gitcredentials(7) against the helper as git 2.41+ calls it.
@Suite(.onTestThreads) struct GitCredentialSuiteTests {
    static let plain = ["--store", "file", "--authenticator", "none"]
    let sandbox: CLISandbox

    init() throws { sandbox = try CLISandbox(keepSessionBus: true) }

    /// The unpacked suite, or `nil`.
    static let suiteDirectory: URL? = {
        guard let path = ProcessInfo.processInfo.environment["BV_GIT_SUITE_DIR"],
            FileManager.default.fileExists(atPath: path + "/t/t0303-credential-external.sh")
        else { return nil }
        return URL(fileURLWithPath: path)
    }()
    static let suite = DaemonNeed(
        "git's credential helper suite", remedy: "scripts/setup/50-git-credential-suite.sh",
        problem: suiteDirectory == nil ? "BV_GIT_SUITE_DIR is not set" : nil)

    /// Runs t0303 with `git-credential-biometrics-vault` on PATH; `bus`: keep the session bus (Secret
    /// Service under `auto`) or give none (the file store).
    func runSuite(in suite: URL, bus: Bool) async throws -> CLIResult {
        var sandbox = sandbox
        let bin = sandbox.root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try? FileManager.default.createSymbolicLink(
            atPath: bin.appendingPathComponent("git-credential-biometrics-vault").path, withDestinationPath: CLISandbox.binary.path)
        sandbox.environment["PATH"] = bin.path + ":/usr/bin:/bin"
        if !bus { sandbox.environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/bv-cli-test-bus" }
        sandbox.environment["GIT_TEST_INSTALLED"] = "/usr/bin"
        sandbox.environment["GIT_TEST_CREDENTIAL_HELPER"] = "biometrics-vault"
        // One word, as the suite needs: the helper's options come from the environment-free defaults
        // (`auto` store and authenticator), as a user's `credential.helper biometrics-vault` runs it.
        let script = "cd \(shellQuoted([suite.appendingPathComponent("t").path])) && exec sh t0303-credential-external.sh -v --root=\(shellQuoted([sandbox.root.appendingPathComponent("trash").path]))"
        return try await sandbox.run(executable: URL(fileURLWithPath: "/bin/sh"), ["-c", script])
    }

    @Test(.needs(suite))
    func gitSuiteOnTheFileStore() async throws {
        defer { sandbox.remove() }
        let suite = try #require(Self.suiteDirectory)
        let result = try await runSuite(in: suite, bus: false)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("# passed all 12 test(s)"), "\(result.stdout)")
        #expect(!result.stdout.contains("not ok"))
    }

    @Test(.needs(suite, CLINeeds.secretService))
    func gitSuiteOnTheSecretService() async throws {
        defer { sandbox.remove() }
        let suite = try #require(Self.suiteDirectory)
        // `auto` picks the Secret Service here: the control.
        let doctor = try await sandbox.run(["doctor", "--json"])
        let components = doctor.stdout.jsonObject?["components"] as? [[String: Any]] ?? []
        #expect(components.first { $0["name"] as? String == "secret-service" }?["isUsable"] as? Bool == true, "\(doctor.stdout)")
        let result = try await runSuite(in: suite, bus: true)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("# passed all 12 test(s)"), "\(result.stdout)")
    }

    // MARK: the cases of later releases, at the helper's interface

    func helper(_ operation: String, _ lines: [String]) async throws -> CLIResult {
        var sandbox = sandbox
        sandbox.environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/bv-cli-test-bus"
        let result = try await sandbox.run(["git-credential"] + Self.plain + [operation], stdin: lines.joined(separator: "\n") + "\n\n")
        #expect(result.status == 0 && result.stderr.isEmpty, "\(operation): \(result.stderr)")
        return result
    }

    static let host = ["protocol=https", "host=example.com"]

    @Test func storesAndGetsPasswordExpiry() async throws {
        defer { sandbox.remove() }
        _ = try await helper("store", Self.host + ["username=user-expiry", "password=pass", "password_expiry_utc=9999999999"])
        let got = try await helper("get", Self.host + ["username=user-expiry"])
        #expect(got.stdout == (Self.host + ["username=user-expiry", "password=pass", "password_expiry_utc=9999999999"]).joined(separator: "\n") + "\n")
    }

    @Test func overwritesWhenPasswordExpiryChanges() async throws {
        defer { sandbox.remove() }
        _ = try await helper("store", Self.host + ["username=user-expiry-overwrite", "password=pass1", "password_expiry_utc=9999999998"])
        _ = try await helper("store", Self.host + ["username=user-expiry-overwrite", "password=pass2", "password_expiry_utc=9999999999"])
        await #expect(try helper("get", Self.host + ["username=user-expiry-overwrite"]).stdout.contains("password=pass2\npassword_expiry_utc=9999999999\n"))
        _ = try await helper("erase", Self.host + ["username=user-expiry-overwrite", "password=pass2"])
        await #expect(try helper("get", Self.host + ["username=user-expiry-overwrite"]).stdout.isEmpty)
    }

    @Test func storesAndGetsOAuthRefreshToken() async throws {
        defer { sandbox.remove() }
        _ = try await helper("store", Self.host + ["username=user4", "password=pass", "oauth_refresh_token=xyzzy"])
        let got = try await helper("get", Self.host + ["username=user4"])
        #expect(got.stdout == (Self.host + ["username=user4", "password=pass", "oauth_refresh_token=xyzzy"]).joined(separator: "\n") + "\n")
    }

    @Test func overwritesOnStore() async throws {
        defer { sandbox.remove() }
        _ = try await helper("store", Self.host + ["username=user-overwrite", "password=pass1"])
        _ = try await helper("store", Self.host + ["username=user-overwrite", "password=pass2"])
        await #expect(try helper("get", Self.host + ["username=user-overwrite"]).stdout.contains("password=pass2\n"))
        _ = try await helper("erase", Self.host + ["username=user-overwrite", "password=pass2"])
        await #expect(try helper("get", Self.host + ["username=user-overwrite"]).stdout.isEmpty)
    }

    @Test func doesNotEraseAPasswordDistinctFromInput() async throws {
        defer { sandbox.remove() }
        _ = try await helper("store", Self.host + ["username=user-distinct-pass", "password=pass1"])
        _ = try await helper("erase", Self.host + ["username=user-distinct-pass", "password=pass2"])
        await #expect(try helper("get", Self.host + ["username=user-distinct-pass"]).stdout.contains("password=pass1\n"))
    }

    @Test func erasesAllMatchingCredentials() async throws {
        defer { sandbox.remove() }
        _ = try await helper("store", Self.host + ["username=user-erase1", "password=pass1"])
        _ = try await helper("store", Self.host + ["username=user-erase2", "password=pass1"])
        _ = try await helper("erase", Self.host)
        await #expect(try helper("get", Self.host).stdout.isEmpty)
    }

    @Test func notConfusedByALongHeader() async throws {
        defer { sandbox.remove() }
        _ = try await helper("store", ["protocol=https", "host=victim.example.com", "username=user", "password=to-be-stolen"])
        let long = String(repeating: "a", count: 1024 - 23)
        let got = try await helper("get", ["protocol=https", "host=badguy.example.com", "wwwauth[]=basic realm=\(long)host=victim.example.com"])
        #expect(got.stdout.isEmpty)
    }
}
