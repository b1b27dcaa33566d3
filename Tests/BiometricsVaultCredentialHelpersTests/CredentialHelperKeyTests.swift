import BiometricsVaultCore
import Testing

@testable import BiometricsVaultCredentialHelpers

/// The vault keys the credential helpers build (in process; the helpers' behaviour through the built
/// binary is in BiometricsVaultCLITests).
@Suite struct CredentialHelperKeyTests {
    /// Keys in the plain form keep their exact spelling, so the items stored under them stay readable.
    @Test("keys valid before are unchanged", arguments: [
        ("https", "alice", "github.com", nil as String?, "git:https:alice@github.com"),
        ("https", "bob", "git.example.com:8443", nil, "git:https:bob@git.example.com%3A8443"),
        ("https", "carol", "git.example.com:8443", "org/repo.git", "git:https:carol@git.example.com%3A8443:org%2Frepo.git"),
        ("https", "a%b@c", "x.example", "a\\b", "git:https:a%25b%40c@x.example:a%5Cb"),
        ("https", "zoë", "bücher.example", nil, "git:https:zoë@bücher.example"),
        ("https", nil, "example.com", nil, "git:https:example.com"),
    ])
    func legacyKeysAreUnchanged(scheme: String, username: String?, host: String, path: String?, key: String) {
        #expect(GitCredentialKey.key(scheme: scheme, host: host, path: path, username: username) == key)
    }

    /// Every key the helper builds is one the vault accepts, and different requests never share one.
    @Test func keysAreValidAndDistinct() throws {
        let parts = ["", "a", "e\u{301}", "\u{E9}", "\u{85}", "\u{202E}", "%", "%25", ":", "@", String(repeating: "l", count: 700), String(repeating: "l", count: 701)]
        var seen: [String: [Unicode.Scalar]] = [:]
        for username in parts + [nil as String?] {
            for host in parts {
                let key = GitCredentialKey.key(scheme: "https", host: host, path: nil, username: username)
                #expect(throws: Never.self) { try SecretItemID(service: "bv", key: key) }
                let request = Array("\(username ?? "<none>")|\(host)".unicodeScalars)
                #expect(seen[key] == nil || seen[key] == request, "\(key)")
                seen[key] = request
            }
        }
    }

    /// A key part in digest form is recognised by its marker and digest, never by its readable prefix.
    @Test func digestFormNamesOnlyItsPart() {
        let long = String(repeating: "l", count: 700)
        let digest = CredentialHelperKey.digestForm(long)
        #expect(digest.hasPrefix(String(repeating: "l", count: CredentialHelperKey.digestPrefixLimit) + CredentialHelperKey.digestMarker))
        #expect(CredentialHelperKey.part(Substring(digest), names: long))
        #expect(!CredentialHelperKey.part(Substring(digest), names: long + "l"))
        #expect(CredentialHelperKey.decode(Substring(digest)) == nil)
    }

    /// Parts round-trip through their encoding: two different parts never share a key part.
    @Test(arguments: ["", "a:b@c/d\\e%f", "\u{85}\u{202E}", "e\u{301}", "zoë"])
    func encodedPartsDecodeToThemselves(part: String) {
        let encoded = CredentialHelperKey.encode(part)
        #expect(CredentialHelperKey.decode(Substring(encoded)).map { Array($0.unicodeScalars) } == Array(part.unicodeScalars))
    }
}
