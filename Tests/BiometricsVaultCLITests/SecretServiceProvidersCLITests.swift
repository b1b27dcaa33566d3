#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Testing

/// The CLI's verbs, and the git helper through the real `git`, on each Secret Service provider: the
/// built binary with `DBUS_SESSION_BUS_ADDRESS` pointing at the provider's bus and `--store secret-service`.
@Suite(.onTestThreads) struct SecretServiceProvidersCLITests {
    static let git = URL(fileURLWithPath: "/usr/bin/git")

    func sandbox(for provider: SecretServiceProvider) throws -> CLISandbox {
        let address = try provider.requireAddress()
        var sandbox = try CLISandbox(keepSessionBus: true)
        sandbox.environment["DBUS_SESSION_BUS_ADDRESS"] = address
        let bin = sandbox.root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: bin.appendingPathComponent("git-credential-biometrics-vault").path, withDestinationPath: CLISandbox.binary.path)
        sandbox.environment["PATH"] = bin.path + ":" + (sandbox.environment["PATH"] ?? "/usr/bin:/bin")
        sandbox.environment["HOME"] = sandbox.root.path
        sandbox.environment["GIT_CONFIG_NOSYSTEM"] = "1"
        sandbox.environment["GIT_CONFIG_GLOBAL"] = sandbox.root.appendingPathComponent("gitconfig").path
        sandbox.environment["GIT_TERMINAL_PROMPT"] = "0"
        return sandbox
    }

    @Test(arguments: SecretServiceProvider.runnable)
    func everyVerbWorks(_ provider: SecretServiceProvider) async throws {
        let sandbox = try sandbox(for: provider)
        defer { sandbox.remove() }
        let service = "bv-cli-\(provider.rawValue)-\(UUID().uuidString.prefix(8))"
        func cli(_ arguments: [String], stdin: String? = nil) async throws -> CLIResult {
            try await sandbox.run(arguments + ["--service", service, "--store", "secret-service", "--authenticator", "none"], stdin: stdin)
        }
        try await withCleanup { () async throws -> Void in

            let stored = try await cli(["store", "api"], stdin: #"{"token":"one","user":"ci"}"#)
            #expect(stored.status == 0, "\(stored.stderr)")
            await #expect(try cli(["show", "api", "--field", "token"]).stdout == "one\n")
            let updated = try await cli(["update", "api"], stdin: #"{"token":"two","user":"ci"}"#)
            #expect(updated.status == 0, "\(updated.stderr)")
            await #expect(try cli(["show", "api", "--field", "token"]).stdout == "two\n")
            await #expect(try cli(["list"]).stdout == "api\n")

            // import: an item python keyring would have written (service + username, text/plain).
            let source = service + "-legacy"
            let python = ProcessInfo.processInfo.environment["BV_PYTHON_KEYRING"] ?? "/usr/bin/python3"
            let put = try await sandbox.run(
                executable: URL(fileURLWithPath: python),
                ["-c", pythonKeyringCall + "import sys, keyring; s, u, v = sys.stdin.read().split('\\n')[:3]; keyring_call(lambda: keyring.set_password(s, u, v))"],
                stdin: "\(source)\nadopted\n{\"token\":\"legacy\"}\n")
            #expect(put.status == 0, "\(put.stderr)")
            let imported = try await cli(["import", "--from-service", source, "--username", "adopted", "--remove-source"])
            #expect(imported.status == 0, "\(imported.stderr)")
            await #expect(try cli(["show", "adopted", "--field", "token"]).stdout == "legacy\n")
            await #expect(try cli(["list"]).stdout == "adopted\napi\n")

            await #expect(try cli(["reset", "api"]).status == 0)
            await #expect(try cli(["reset", "adopted"]).status == 0)
            await #expect(try cli(["list"]).stdout.isEmpty)
            let gone = try await cli(["show", "api"])
            #expect(gone.status != 0)
        } cleanup: {
            for key in ["api", "adopted"] { _ = try? await cli(["reset", key]) }
        }
    }

    @Test(arguments: SecretServiceProvider.runnable)
    func gitCredentialStoreGetErase(_ provider: SecretServiceProvider) async throws {
        let sandbox = try sandbox(for: provider)
        defer { sandbox.remove() }
        let host = "bv-\(provider.rawValue.lowercased())-\(UUID().uuidString.prefix(8)).example.com"
        let helper = "biometrics-vault --store secret-service --authenticator none"
        func git(_ action: String, _ attributes: String) async throws -> CLIResult {
            try await sandbox.run(
                executable: Self.git, ["-c", "credential.helper=", "-c", "credential.helper=\(helper)", "credential", action],
                stdin: attributes + "\n")
        }
        let approved = try await git("approve", "protocol=https\nhost=\(host)\nusername=alice\npassword=s3cr3t\n")
        #expect(approved.status == 0, "\(approved.stderr)")
        #expect(approved.stderr.isEmpty)
        let filled = try await git("fill", "protocol=https\nhost=\(host)\n")
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(filled.stdout == "protocol=https\nhost=\(host)\nusername=alice\npassword=s3cr3t\n")
        let rejected = try await git("reject", "protocol=https\nhost=\(host)\nusername=alice\npassword=s3cr3t\n")
        #expect(rejected.status == 0, "\(rejected.stderr)")
        await #expect(try git("fill", "protocol=https\nhost=\(host)\n").status != 0)
    }
}
#endif
