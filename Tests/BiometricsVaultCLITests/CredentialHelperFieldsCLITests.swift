import BiometricsVaultTestSupport
import Foundation
import Testing

import BiometricsVaultCredentialHelpers
@testable import biometrics_vault

/// The credential helpers read a stored item's fields as `show --field` and `exec --env` do: a number is the
/// literal as stored, the same text in every command. The git helper read items through `JSONDecoder`, so
/// an item stored by hand with a number was foreign and never answered; the docker helper took strings only.
@Suite(.onTestThreads) struct CredentialHelperFieldsCLITests {
    static let plain = ["--store", "file", "--authenticator", "none"]
    static let literals = ["123456789012345678901234567890", "1e400", "-0.0E-7", "4102444800", "true"]
    let sandbox: CLISandbox

    init() throws { sandbox = try CLISandbox() }

    private func store(_ key: String, _ json: String) async throws {
        let stored = try await sandbox.run(["store", key] + Self.plain, stdin: json)
        #expect(stored.status == 0, "\(stored.stderr)")
    }

    private func field(_ key: String, _ name: String) async throws -> String {
        try await sandbox.run(["show", key, "--field", name] + Self.plain).stdout
    }

    @Test("git-credential answers a stored number as show --field prints it", arguments: literals)
    func gitCredential(literal: String) async throws {
        defer { sandbox.remove() }
        let key = GitCredentialKey.key(scheme: "https", host: "example.com", path: nil, username: "alice")
        try await store(key, #"{"protocol":"https","host":"example.com","username":"alice","password":\#(literal)}"#)
        await #expect(try field(key, "password") == literal + "\n")
        let got = try await sandbox.run(["git-credential"] + Self.plain + ["get"], stdin: "protocol=https\nhost=example.com\n\n")
        #expect(got.status == 0, "\(got.stderr)")
        #expect(got.stdout == "protocol=https\nhost=example.com\nusername=alice\npassword=\(literal)\n")
    }

    @Test("docker-credential answers a stored number as show --field prints it", arguments: literals)
    func dockerCredential(literal: String) async throws {
        defer { sandbox.remove() }
        let key = DockerCredentialKey.key(serverURL: "registry.example")
        try await store(key, #"{"ServerURL":"registry.example","Username":"alice","Secret":\#(literal)}"#)
        await #expect(try field(key, "Secret") == literal + "\n")
        let got = try await sandbox.run(["docker-credential"] + Self.plain + ["get"], stdin: "registry.example\n")
        #expect(got.status == 0, "\(got.stdout) \(got.stderr)")
        #expect(got.stdout == #"{"ServerURL":"registry.example","Username":"alice","Secret":"\#(literal)"}"# + "\n")
    }

    /// An attribute that is an array or an object makes the item foreign: passed over, never answered.
    @Test func anItemWithAStructuredAttributeIsForeign() async throws {
        defer { sandbox.remove() }
        let key = GitCredentialKey.key(scheme: "https", host: "example.com", path: nil, username: "alice")
        try await store(key, #"{"protocol":"https","host":"example.com","username":"alice","password":["p"]}"#)
        let got = try await sandbox.run(["git-credential"] + Self.plain + ["get"], stdin: "protocol=https\nhost=example.com\n\n")
        #expect(got.status == 0 && got.stdout.isEmpty, "\(got.stdout) \(got.stderr)")
    }
}
