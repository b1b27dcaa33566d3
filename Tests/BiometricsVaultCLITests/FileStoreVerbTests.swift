import BiometricsVaultTestSupport
import Foundation
import Testing

/// Golden end-to-end tests of the built binary on the embedded default store (the encrypted file store
/// in a temporary `XDG_DATA_HOME`), with biometrics switched off so nothing waits for a finger.
@Suite(.onTestThreads) final class FileStoreVerbTests {
    static let file = ["--store", "file", "--authenticator", "none"]
    let sandbox: CLISandbox

    init() throws { sandbox = try CLISandbox() }
    deinit { sandbox.remove() }

    func run(_ verb: String, _ arguments: [String] = [], stdin: String? = nil) async throws -> CLIResult {
        try await sandbox.run([verb] + arguments + Self.file, stdin: stdin)
    }

    @Test("every help text matches its golden file", arguments: ["", "status", "store", "show", "update", "upgrade", "downgrade", "reset", "list", "import", "doctor", "setup"])
    func helpText(verb: String) async throws {
        let result = try await sandbox.run((verb.isEmpty ? [] : [verb]) + ["--help"])
        #expect(result.status == Exit.ok)
        let golden = goldenURL("help\(verb.isEmpty ? "" : "-" + verb).txt")
        if ProcessInfo.processInfo.environment["BV_UPDATE_GOLDEN"] == "1" {
            try Data(result.stdout.utf8).write(to: golden)
        }
        let expected = CLISandbox.text(of: golden)
        #expect(result.stdout == expected)
    }

    @Test func helpDocumentsEveryExitCode() async throws {
        let help = try await sandbox.run(["--help"]).stdout
        for code in ["0 ", "2 ", "3 ", "4 ", "5 ", "6 ", "7 ", "8 "] {
            #expect(help.contains("\n  \(code)"), "exit code \(code) missing from --help")
        }
    }

    @Test func storeThenShowPrintsTheJSONAndFieldsRaw() async throws {
        let stored = try await run("store", ["api"], stdin: #"{"user":"ci","token":"s3cr3t","port":8443,"nested":{"a":[1,true,null]}}"#)
        #expect(stored.status == Exit.ok)
        #expect(!stored.stdout.contains("s3cr3t"), "store must not print the credentials")

        let shown = try await run("show", ["api"])
        #expect(shown.status == Exit.ok)
        // The input exactly (member order kept), without insignificant whitespace.
        #expect(shown.stdout == #"{"user":"ci","token":"s3cr3t","port":8443,"nested":{"a":[1,true,null]}}"# + "\n")

        await #expect(try run("show", ["api", "--field", "token"]).stdout == "s3cr3t\n")
        await #expect(try run("show", ["api", "--field", "port"]).stdout == "8443\n")
        await #expect(try run("show", ["api", "--field", "nested"]).stdout == #"{"a":[1,true,null]}"# + "\n")
        let missing = try await run("show", ["api", "--field", "password"])
        #expect(missing.status == Exit.notFound)
        #expect(missing.stdout.isEmpty)
    }

    @Test func anyJSONValueIsAccepted() async throws {
        await #expect(try run("store", ["plain-string"], stdin: #""just a token""#).status == Exit.ok)
        await #expect(try run("show", ["plain-string"]).stdout == #""just a token""# + "\n")
        await #expect(try run("show", ["plain-string", "--field", "x"]).status == Exit.notFound)
    }

    @Test func statusReportsEachStateWithoutPrompting() async throws {
        let empty = try await run("status", ["api", "--json"])
        #expect(empty.status == Exit.ok)
        #expect(empty.stdout.jsonObject?["state"] as? String == "empty")
        #expect(empty.stderr.isEmpty)

        _ = try await run("store", ["api"], stdin: #"{"token":"t"}"#)
        let plain = try await run("status", ["api", "--json"])
        #expect(plain.status == Exit.ok)
        #expect(plain.stdout.jsonObject?["state"] as? String == "keychain")
        #expect(plain.stdout.jsonObject?["protected"] as? Bool == false)
        #expect(plain.stdout.jsonObject?["store"] as? String == "file")

        // With a password authenticator and no terminal: status still answers, and asks nothing (PAM
        // cannot prompt without a terminal, so the item is not upgradable here).
        let withPAM = try await sandbox.run(["status", "api", "--store", "file", "--authenticator", "pam", "--json"])
        #expect(withPAM.status == Exit.ok)
        #expect(withPAM.stdout.jsonObject?["state"] as? String == "keychain")
        #expect(!withPAM.stderr.contains("Password"))
        #expect(!withPAM.stderr.contains("Touch"))
    }

    @Test func unknownKeyExitCodes() async throws {
        await #expect(try run("show", ["nothing-here"]).status == Exit.notFound)
        await #expect(try run("update", ["nothing-here"], stdin: "{}").status == Exit.notFound)
        await #expect(try run("upgrade", ["nothing-here"]).status == Exit.notFound)
        await #expect(try run("downgrade", ["nothing-here"]).status == Exit.notFound)
        await #expect(try run("status", ["nothing-here"]).status == Exit.ok)
        let reset = try await run("reset", ["nothing-here", "--json"])
        #expect(reset.status == Exit.ok)
        #expect(reset.stdout.jsonObject?["state"] as? String == "empty")
    }

    @Test func badStdinIsBadInputAndNeverEchoed() async throws {
        let empty = try await run("store", ["api"], stdin: "")
        #expect(empty.status == Exit.badInput)
        #expect(empty.stderr.contains("no credentials on stdin"))

        let blank = try await run("store", ["api"], stdin: "  \n")
        #expect(blank.status == Exit.badInput)

        let broken = try await run("store", ["api"], stdin: #"{"token": "hunter2-secret""#)
        #expect(broken.status == Exit.badInput)
        #expect(!broken.stderr.contains("hunter2"), "an error must never print the input")
        #expect(!broken.stdout.contains("hunter2"))

        // Nothing was stored by the failed attempts.
        await #expect(try run("show", ["api"]).status == Exit.notFound)
    }

    @Test func storeUpdateResetRoundTrip() async throws {
        await #expect(try run("store", ["api"], stdin: #"{"token":"one"}"#).status == Exit.ok)
        let again = try await run("store", ["api"], stdin: #"{"token":"two"}"#)
        #expect(again.status == Exit.wrongState)
        await #expect(try run("show", ["api", "--field", "token"]).stdout == "one\n")

        let updated = try await run("update", ["api"], stdin: #"{"token":"two"}"#)
        #expect(updated.status == Exit.ok)
        await #expect(try run("show", ["api", "--field", "token"]).stdout == "two\n")

        await #expect(try run("reset", ["api"]).status == Exit.ok)
        await #expect(try run("show", ["api"]).status == Exit.notFound)
        await #expect(try run("store", ["api"], stdin: #"{"token":"three"}"#).status == Exit.ok)
    }

    @Test func upgradeAndProtectedStoreNeedAnAuthenticator() async throws {
        _ = try await run("store", ["api"], stdin: #"{"token":"t"}"#)
        let upgrade = try await run("upgrade", ["api"])
        #expect(upgrade.status == Exit.biometricsUnavailable)
        #expect(upgrade.stderr.contains("biometryNotAvailable"))
        await #expect(try run("downgrade", ["api"]).status == Exit.wrongState)

        let protected = try await run("store", ["other", "--biometrics"], stdin: #"{"token":"t"}"#)
        #expect(protected.status == Exit.biometricsUnavailable)
        await #expect(try run("show", ["other"]).status == Exit.notFound)
        // The plain item is untouched by the failed upgrade.
        await #expect(try run("show", ["api", "--field", "token"]).stdout == "t\n")
    }

    @Test func listPrintsSortedKeys() async throws {
        let none = try await run("list")
        #expect(none.status == Exit.ok)
        #expect(none.stdout.isEmpty)
        for key in ["zeta", "alpha", "mid"] { _ = try await run("store", [key], stdin: "1") }
        await #expect(try run("list").stdout == "alpha\nmid\nzeta\n")
        let json = try await run("list", ["--json"]).stdout.jsonObject
        #expect(json?["keys"] as? [String] == ["alpha", "mid", "zeta"])
        // Another service is another namespace.
        await #expect(try run("list", ["--service", "other.service"]).stdout.isEmpty)
    }

    @Test("invalid keys are bad input", arguments: ["", "a/b", "../escape", "tab\tkey"])
    func invalidKey(key: String) async throws {
        let result = try await run("store", [key], stdin: "{}")
        #expect(result.status == Exit.badInput)
        #expect(result.stderr.contains("invalidKey"))
    }

    @Test func credentialsFromFileAndLimits() async throws {
        let path = try sandbox.file("creds.json", #"{"token":"from-file"}"#)
        await #expect(try run("store", ["api", "--from-file", path]).status == Exit.ok)
        await #expect(try run("show", ["api", "--field", "token"]).stdout == "from-file\n")
        await #expect(try run("store", ["x", "--from-file", sandbox.root.path + "/missing.json"]).status == Exit.badInput)

        let huge = "\"" + String(repeating: "x", count: 70 * 1024) + "\""
        let tooLarge = try await run("store", ["big"], stdin: huge)
        #expect(tooLarge.status == Exit.badInput)
        #expect(tooLarge.stderr.contains("credentialsTooLarge"))
    }

    @Test func jsonErrorsAreMachineReadable() async throws {
        let result = try await run("show", ["nothing", "--json"])
        #expect(result.status == Exit.notFound)
        let error = result.stderr.jsonObject?["error"] as? [String: Any]
        #expect(error?["exitCode"] as? Int == Int(Exit.notFound))
        #expect(error?["code"] as? String == "notFound")
    }

    @Test func usageErrorsExit64() async throws {
        #expect(try await sandbox.run(["show"]).status == Exit.usage)
        #expect(try await sandbox.run(["frobnicate"]).status == Exit.usage)
        #expect(try await sandbox.run(["show", "k", "--store", "floppy"]).status == Exit.usage)
    }

    @Test func autoStoreFallsBackToTheFileStoreAndSaysSo() async throws {
        let stored = try await sandbox.run(["store", "api", "--authenticator", "none"], stdin: #"{"token":"t"}"#)
        #expect(stored.status == Exit.ok)
        #expect(stored.stderr.contains("no Secret Service"))
        #expect(stored.stderr.contains("encrypted file store"))
        let shown = try await sandbox.run(["show", "api", "--authenticator", "none", "--field", "token"])
        #expect(shown.stdout == "t\n")
        // Said once, when the store is created: later runs keep stderr empty (SessionCLITests).
        #expect(shown.stderr.isEmpty)
    }

    @Test func explicitSecretServiceWithoutABusIsStoreUnavailable() async throws {
        let result = try await sandbox.run(["show", "api", "--store", "secret-service", "--authenticator", "none"])
        #expect(result.status == Exit.storeUnavailable)
        let imported = try await sandbox.run(["import", "--from-service", "s", "--username", "u"] + Self.file)
        #expect(imported.status == Exit.storeUnavailable)
    }

    @Test func doctorListsEveryComponentAndTheAutoPick() async throws {
        let text = try await sandbox.run(["doctor"])
        #expect(text.status == Exit.ok)
        for name in ["service", "secret-service", "file", "fprintd", "pam", "polkit", "auto picks: store file"] {
            #expect(text.stdout.contains(name), "doctor output lacks \(name)")
        }
        let json = try await sandbox.run(["doctor", "--json"]).stdout.jsonObject
        let components = json?["components"] as? [[String: Any]] ?? []
        #expect(components.count == 6)
        #expect(components.first { $0["name"] as? String == "service" }?["isUsable"] as? Bool == false)
        let secretService = components.first { $0["name"] as? String == "secret-service" }
        #expect(secretService?["isUsable"] as? Bool == false)
        #expect((secretService?["detail"] as? String)?.isEmpty == false)
        #expect(components.first { $0["name"] as? String == "file" }?["isSelected"] as? Bool == true)
    }

    @Test func setupInstallsAndUninstallsUnderARoot() async throws {
        let target = sandbox.root.appendingPathComponent("root").path
        let resources = repositoryRoot().appendingPathComponent("Resources/linux").path
        let installed = try await sandbox.run(["setup", "--root", target, "--resources", resources])
        #expect(installed.status == Exit.ok)
        let pam = target + "/etc/pam.d/biometrics-vault"
        let policy = target + "/usr/share/polkit-1/actions/io.github.biometricsvault.policy"
        #expect(FileManager.default.fileExists(atPath: pam))
        #expect(FileManager.default.fileExists(atPath: policy))
        let mode = try FileManager.default.attributesOfItem(atPath: pam)[.posixPermissions] as? Int
        #expect(mode == 0o644)
        #expect(try await sandbox.run(["setup", "--root", target, "--uninstall"]).status == Exit.ok)
        #expect(!FileManager.default.fileExists(atPath: pam))
        #expect(!FileManager.default.fileExists(atPath: policy))
    }
}
