import BiometricsVaultJSON
import Testing

@testable import BiometricsVaultCredentialHelpers

/// Parsing what git and docker send, in process: what is refused is refused with the message the CLI
/// prints (its exit status is the CLI's: BiometricsVaultCLITests).
@Suite struct CredentialHelperRequestTests {
    @Test func gitRequestKeepsTheLastValueAndIgnoresArraysAndUnknownLines() throws {
        let request = try GitCredentialRequest(
            parsing: Array("protocol=https\r\nhost=a.example\nhost=b.example\nwwwauth[]=Basic\nnoise\nusername=\npath=\n\nhost=c\n".utf8))
        #expect(request.scheme == "https")
        #expect(request.host == "b.example")
        #expect(request.username == "")
        #expect(request.path == nil)
        #expect(request.attributes["wwwauth[]"] == nil)
    }

    @Test(arguments: [
        ([0x68, 0x6F, 0x73, 0x74, 0x3D, 0xFF], "git's request is not valid UTF-8 text; nothing was read or stored"),
        (Array("password=a\rb\n".utf8), "git's request has a NUL or carriage return inside the value of 'password'; nothing was read or stored"),
    ])
    func gitRequestRefusals(bytes: [UInt8], message: String) {
        #expect(throws: CredentialHelperInputError(message)) { try GitCredentialRequest(parsing: bytes) }
    }

    @Test func gitItemWithALineBreakHasNoProtocolText() {
        let item = GitCredentialItem(scheme: "https", host: "h", path: nil, username: "u", password: "p\r\nhost=evil")
        #expect(item.protocolText == nil)
        #expect(GitCredentialItem(scheme: "https", host: "h", username: "u", password: "p").protocolText
            == "protocol=https\nhost=h\nusername=u\npassword=p\n")
    }

    @Test func expiryIsReadAsGitReadsIt() {
        func item(_ expiry: String?) -> GitCredentialItem {
            GitCredentialItem(scheme: "https", host: "h", passwordExpiryUTC: expiry)
        }
        #expect(item("100").isExpired(now: 100))
        #expect(!item("101").isExpired(now: 100))
        #expect(!item("0").isExpired(now: 100))
        #expect(!item("soon").isExpired(now: 100))
        #expect(!item(nil).isExpired(now: 100))
    }

    @Test func dockerServerURLIsTrimmed() throws {
        #expect(try DockerCredentialProtocol.serverURL(in: " \thttps://r.example/v1/\n") == "https://r.example/v1/")
        #expect(throws: CredentialHelperInputError(DockerCredentialProtocol.missingServerURLMessage)) {
            try DockerCredentialProtocol.serverURL(in: " \n")
        }
    }

    @Test(arguments: [
        (#"[]"#, "the credentials on stdin are not a JSON object"),
        (#"{"Username":"u"}"#, DockerCredentialProtocol.missingServerURLMessage),
        (#"{"ServerURL":"r","Username":""}"#, DockerCredentialProtocol.missingUsernameMessage),
        (#"{"ServerURL":"r","Username":"u","Secret":1}"#, "'Secret' is not a JSON string"),
    ])
    func dockerStoreRefusals(json: String, message: String) throws {
        let value = try JSONValue.parse(Array(json.utf8))
        #expect(throws: CredentialHelperInputError(message)) { try DockerCredentialItem(request: value) }
    }

    @Test func dockerStoreTakesAMissingSecretAsEmpty() throws {
        let value = try JSONValue.parse(Array(#"{"ServerURL":"r","Username":"u","Other":[1]}"#.utf8))
        #expect(try DockerCredentialItem(request: value) == DockerCredentialItem(serverURL: "r", username: "u", secret: ""))
    }
}
