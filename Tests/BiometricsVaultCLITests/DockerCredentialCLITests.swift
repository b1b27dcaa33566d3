import BiometricsVault
import BiometricsVaultFileStore
import BiometricsVaultTestSupport
import BiometricsVaultTesting
import Foundation
import Testing

/// The docker credential helper (docker-credential-helpers protocol), through the
/// `docker-credential-biometrics-vault` link as docker and containers/image run it, on the encrypted file
/// store in a sandbox; then end to end with a real client (`skopeo`) against a real registry with
/// password auth (`scripts/setup/50-docker-registry.sh`).
@Suite(.onTestThreads) struct DockerCredentialCLITests {
    let sandbox: CLISandbox
    let link: URL

    init() throws {
        var sandbox = try CLISandbox()
        let bin = sandbox.root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        link = bin.appendingPathComponent("docker-credential-biometrics-vault")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: CLISandbox.binary.path)
        sandbox.environment["PATH"] = bin.path + ":" + (sandbox.environment["PATH"] ?? "/usr/bin:/bin")
        sandbox.environment["BIOMETRICS_VAULT_STORE"] = nil
        self.sandbox = sandbox
    }

    /// The helper as clients run it: the link, the action, stdin. Plain file store, as `auto` picks without a bus.
    func helper(_ action: String, _ input: String = "") async throws -> CLIResult {
        try await sandbox.run(executable: link, [action], stdin: input)
    }

    @Test func storeGetListEraseRoundTrip() async throws {
        defer { sandbox.remove() }
        let stored = try await helper("store", #"{"ServerURL":"https://index.docker.io/v1/","Username":"alice","Secret":"s3cr3t"}"#)
        #expect(stored.status == 0 && stored.stdout.isEmpty && stored.stderr.isEmpty, "\(stored.stdout) \(stored.stderr)")
        let got = try await helper("get", "https://index.docker.io/v1/\n")
        #expect(got.status == 0 && got.stderr.isEmpty, "\(got.stderr)")
        let answer = got.stdout.jsonObject
        #expect(answer?["ServerURL"] as? String == "https://index.docker.io/v1/")
        #expect(answer?["Username"] as? String == "alice")
        #expect(answer?["Secret"] as? String == "s3cr3t")
        await #expect(try helper("store", #"{"ServerURL":"127.0.0.1:5000","Username":"bob","Secret":"b"}"#).status == 0)
        let listed = try await helper("list")
        #expect(listed.status == 0)
        #expect(listed.stdout.jsonObject as? [String: String] == ["https://index.docker.io/v1/": "alice", "127.0.0.1:5000": "bob"])
        // The items are ordinary vault items, readable in `list` and `show`.
        let keys = try await sandbox.run(["list", "--store", "file", "--authenticator", "none"]).stdout
        #expect(keys == "docker:127.0.0.1%3A5000\ndocker:https%3A%2F%2Findex.docker.io%2Fv1%2F\n")
        #expect(try await sandbox.run(["show", "docker:127.0.0.1%3A5000", "--field", "Secret", "--store", "file"]).stdout == "b\n")
        // Replaced by a new store (a new `docker login`).
        await #expect(try helper("store", #"{"ServerURL":"127.0.0.1:5000","Username":"bob","Secret":"b2"}"#).status == 0)
        await #expect(try helper("get", "127.0.0.1:5000").stdout.jsonObject?["Secret"] as? String == "b2")
        let erased = try await helper("erase", "127.0.0.1:5000\n")
        #expect(erased.status == 0 && erased.stdout.isEmpty && erased.stderr.isEmpty)
        await #expect(try helper("list").stdout.jsonObject as? [String: String] == ["https://index.docker.io/v1/": "alice"])
    }

    /// The miss, as docker and containers/image recognise it: this text on stdout, exit status 1.
    @Test("a miss says the reference helpers' words", arguments: ["get", "erase"])
    func missIsNotFoundInNativeKeychain(action: String) async throws {
        defer { sandbox.remove() }
        let missed = try await helper(action, "registry.example\n")
        #expect(missed.status == 1)
        #expect(missed.stdout == "credentials not found in native keychain\n")
        #expect(missed.stderr.isEmpty, "\(missed.stderr)")
    }

    /// Found by Fuzz/FuzzDockerCredentialRequest: a server URL that starts with a combining mark is kept
    /// as is in its key (it is valid there), where it is one Character with the `:` of `docker:`; `list`
    /// picked the helper's keys by a Character prefix and left such a server out.
    @Test func aServerURLStartingWithACombiningMarkIsListed() async throws {
        defer { sandbox.remove() }
        let url = "\u{591}registry.example"
        await #expect(try helper("store", #"{"ServerURL":"\#(url)","Username":"alice","Secret":"s"}"#).status == 0)
        await #expect(try helper("get", url).stdout.jsonObject?["Username"] as? String == "alice")
        let listed = try await helper("list").stdout.jsonObject as? [String: String]
        #expect(listed?.count == 1 && listed?.first.map { Array($0.key.unicodeScalars) == Array(url.unicodeScalars) } == true, "\(String(describing: listed))")
    }

    @Test func listOfNothingIsAnEmptyObjectAndVersionAnswers() async throws {
        defer { sandbox.remove() }
        let listed = try await helper("list")
        #expect(listed.status == 0 && listed.stdout == "{}\n" && listed.stderr.isEmpty, "\(listed.stderr)")
        let version = try await helper("version")
        #expect(version.status == 0 && version.stdout.hasPrefix("docker-credential-biometrics-vault"))
        // The verb does the same as the link.
        let verb = try await sandbox.run(["docker-credential", "list", "--store", "file"])
        #expect(verb.status == 0 && verb.stdout == "{}\n")
    }

    @Test("bad requests fail on stdout (where clients read) with a non-zero status, storing nothing", arguments: [
        ("store", #"{"ServerURL":"","Username":"a","Secret":"s"}"#, "no credentials server URL"),
        ("store", #"{"ServerURL":"r.example","Secret":"s"}"#, "no credentials username"),
        ("store", #"{"ServerURL":"r.example","Username":"a","Secret":"s""#, "not valid JSON"),
        ("store", #"{"ServerURL":"r.example","Username":1}"#, "not a JSON string"),
        ("get", "  \n", "no credentials server URL"),
        ("frobnicate", "", "Unknown credential action `frobnicate`"),
    ])
    func badRequests(action: String, input: String, message: String) async throws {
        defer { sandbox.remove() }
        let result = try await helper(action, input)
        #expect(result.status != 0)
        #expect(result.stdout.contains(message), "\(result.stdout)")
        await #expect(try helper("list").stdout == "{}\n")
    }

    /// Raw bytes that are not UTF-8 are refused, never stored altered.
    @Test func invalidUTF8IsRefused() async throws {
        defer { sandbox.remove() }
        let bytes = [UInt8](#"{"ServerURL":"r.example","Username":"a","Secret":"s"#.utf8) + [0xFF] + [UInt8](#""}"#.utf8)
        let result = try await sandbox.runPiped(["docker-credential", "store", "--store", "file"], input: bytes)
        #expect(result?.status == 8)
        await #expect(try helper("list").stdout == "{}\n")
    }

    /// Server URLs the vault refuses in a key (a path separator is encoded; controls, long URLs) still work.
    @Test("unusual server URLs", arguments: ["https://r.example/v2/\u{202E}x", String(repeating: "r", count: 600) + ".example"])
    func unusualServerURLs(serverURL: String) async throws {
        defer { sandbox.remove() }
        let item = ["ServerURL": serverURL, "Username": "u", "Secret": "s"]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: item), as: UTF8.self)
        await #expect(try helper("store", json).status == 0)
        await #expect(try helper("get", serverURL).stdout.jsonObject?["Secret"] as? String == "s")
        await #expect(try helper("erase", serverURL).status == 0)
    }

    /// A protected item (written through the library with a simulated passcode into the sandbox's file
    /// store): without a terminal, `get` fails at once (exit 9, the reason on stdout, no secret), never waits;
    /// `list` names it without prompting; `erase` deletes it without prompting.
    @Test func protectedItemWithoutATerminalNeverWaits() async throws {
        defer { sandbox.remove() }
        let store = try EncryptedFileStore(directory: sandbox.root.appendingPathComponent("data/biometrics-vault"))
        let device = SimulatedDevice()
        let configuration = VaultConfiguration(
            store: store, authenticator: device.authenticator, policy: .devicePasscode, service: VaultConfiguration.defaultService)
        let empty = try VaultFactory<[String: String]>.retrieveVaultOrThrow(key: "docker:r.example", configuration: configuration)
        _ = try await empty.storeToBiometrics(credentials: ["ServerURL": "r.example", "Username": "u", "Secret": "protected-secret"])

        // A wait for the password would run into the timeout; the machine's load (the whole suite, under
        // AddressSanitizer) can make a start that does not wait take seconds, so no clock is read here.
        let got = try await sandbox.runPiped(
            ["docker-credential", "get", "--store", "file", "--authenticator", "pam"], input: Array("r.example\n".utf8), timeout: 30)
        #expect(got != nil, "get waited without a terminal")
        #expect(got?.status == 9, "\(got?.stderr ?? "")")
        #expect(got?.stdout.contains("interactionNotAllowed") == true, "\(got?.stdout ?? "")")
        #expect(got?.stdout.contains("protected-secret") == false)

        let listed = try await sandbox.run(["docker-credential", "list", "--store", "file", "--authenticator", "pam"])
        #expect(listed.status == 0 && listed.stderr.isEmpty, "\(listed.stderr)")
        #expect(listed.stdout.jsonObject as? [String: String] == ["r.example": ""])
        let erased = try await sandbox.run(["docker-credential", "erase", "--store", "file", "--authenticator", "pam"], stdin: "r.example")
        #expect(erased.status == 0 && erased.stderr.isEmpty, "\(erased.stderr)")
        await #expect(try helper("list").stdout == "{}\n")
    }

    // MARK: end to end: skopeo against a registry with htpasswd auth

    struct Registry {
        var address: String
        var user: String
        var password: String
    }

    /// The registry and its login from scripts/setup/50-docker-registry.sh, or `nil`.
    static let registry: Registry? = {
        let environment = ProcessInfo.processInfo.environment
        guard let address = environment["BV_DOCKER_REGISTRY"], let user = environment["BV_DOCKER_REGISTRY_USER"],
            let passwordFile = environment["BV_DOCKER_REGISTRY_PASSWORD_FILE"],
            let password = FileManager.default.contents(atPath: passwordFile).map({ String(decoding: $0, as: UTF8.self) }),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/skopeo")
        else { return nil }
        return Registry(address: address, user: user, password: password.trimmingCharacters(in: .whitespacesAndNewlines))
    }()
    static let registryNeed = DaemonNeed(
        "a registry and skopeo", remedy: "scripts/setup/50-docker-registry.sh", problem: registry == nil ? "BV_DOCKER_REGISTRY* unset or skopeo missing" : nil)

    @Test(.needs(registryNeed))
    func skopeoLoginGetLoginLogoutThroughCredHelpers() async throws {
        defer { sandbox.remove() }
        let registry = try #require(Self.registry)
        var sandbox = sandbox
        sandbox.environment["HOME"] = sandbox.root.path
        let authFile = try sandbox.file("auth.json", #"{"credHelpers":{"\#(registry.address)":"biometrics-vault"}}"#)
        sandbox.environment["REGISTRY_AUTH_FILE"] = authFile
        let skopeo = URL(fileURLWithPath: "/usr/bin/skopeo")

        let wrong = try await sandbox.run(
            executable: skopeo, ["login", "--tls-verify=false", "-u", registry.user, "--password-stdin", registry.address],
            stdin: "not-the-password")
        #expect(wrong.status != 0, "a wrong password was accepted: \(wrong.stdout)")
        await #expect(try helper("list").stdout == "{}\n")

        let login = try await sandbox.run(
            executable: skopeo, ["login", "--tls-verify=false", "-u", registry.user, "--password-stdin", registry.address],
            stdin: registry.password)
        #expect(login.status == 0, "\(login.stdout) \(login.stderr)")
        #expect(login.stdout.contains("Login Succeeded"))
        // Stored by the helper, not in the auth file.
        #expect(!CLISandbox.text(of: URL(fileURLWithPath: authFile)).contains(registry.password))
        await #expect(try helper("list").stdout.jsonObject as? [String: String] == [registry.address: registry.user])

        let getLogin = try await sandbox.run(executable: skopeo, ["login", "--get-login", registry.address])
        #expect(getLogin.status == 0, "\(getLogin.stderr)")
        #expect(getLogin.stdout == registry.user + "\n")

        // The stored credentials authenticate: listing tags of a missing repository gets past auth (404, not 401).
        let tags = try await sandbox.run(executable: skopeo, ["list-tags", "--tls-verify=false", "docker://\(registry.address)/bv/none"])
        #expect(!tags.stderr.contains("unauthorized") && !tags.stderr.contains("401"), "\(tags.stderr)")

        let logout = try await sandbox.run(executable: skopeo, ["logout", registry.address])
        #expect(logout.status == 0, "\(logout.stderr)")
        await #expect(try helper("list").stdout == "{}\n")
        let afterLogout = try await sandbox.run(executable: skopeo, ["login", "--get-login", registry.address])
        #expect(afterLogout.status != 0)
        // containers/image read the helper's miss as "not logged in" (the words docker's protocol defines).
        #expect(afterLogout.stderr.contains("not logged into"), "\(afterLogout.stderr)")
        // (Not checked: a second `logout`. Debian's skopeo 1.9.3 overflows its stack in go-multierror's
        // `errors.Is` whenever a credential helper reports a miss to `logout`, whatever the helper.)
    }
}
