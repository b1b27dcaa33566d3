import BiometricsVaultCore
import BiometricsVaultTestSupport
import BiometricsVaultTesting
import Foundation
import Testing

/// Keys that would look like another key, and credentials that supply their own exact JSON text.
struct KeyValidationAndJSONTextTests {
    // MARK: keys

    @Test(
        "C1 controls, separators, bidi controls and non-NFC keys are invalidKey",
        arguments: [
            "a\u{80}b", "a\u{85}b", "a\u{9B}b", "a\u{9F}b", "a\u{2028}b", "a\u{2029}b", "a\u{202A}b", "a\u{202E}b",
            "a\u{2066}b", "a\u{2069}b", "a\u{200E}b", "a\u{200F}b", "a\u{061C}b", "cafe\u{301}", "\u{1100}\u{1161}",
        ])
    func deceptiveKeyIsInvalid(key: String) async throws {
        #expect(throws: VaultError.invalidKey) { try SecretItemID(service: "s", key: key) }
        #expect(throws: VaultError.invalidKey) { try SecretItemID(service: key, key: "k") }
        let fixture = Fixture()
        #expect(await code { _ = try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: fixture.configuration) } == .invalidKey)
        #expect(fixture.device.itemCount == 0)
    }

    @Test("ordinary Unicode keys in NFC stay valid", arguments: ["caf\u{E9}", "ключ 🔑", "\u{AC00}", "a\u{A0}b", "日本語", "x\u{200D}y"])
    func nfcKeyIsValid(key: String) throws {
        #expect(try SecretItemID(service: "s", key: key).key == key)
    }

    @Test func theNFCErrorSaysWhy() {
        do {
            _ = try SecretItemID(service: "s", key: "cafe\u{301}")
            Issue.record("accepted")
        } catch {
            #expect(String(describing: error).contains("Normalization Form C"))
        }
    }

    // MARK: JSON text credentials

    /// JSON text kept as given. Its `Codable` conformance refuses, so a vault that used JSONEncoder /
    /// JSONDecoder for it would fail.
    struct ExactText: JSONTextCredentials, Equatable {
        var bytes: Data
        /// Refused on the way in.
        static let refusal = "refused"
        /// Accepted on the way in, refused on the way back.
        static let unreadable = #""unreadable""#

        init(_ text: String) { bytes = Data(text.utf8) }
        init(storedJSONText: Data) throws {
            if storedJSONText == Data(Self.unreadable.utf8) { throw CocoaError(.coderReadCorrupt) }
            bytes = storedJSONText
        }
        func jsonTextForStorage() throws -> Data {
            if bytes == Data(Self.refusal.utf8) { throw CocoaError(.coderInvalidValue) }
            return bytes
        }
        init(from decoder: any Decoder) throws { throw CocoaError(.coderReadCorrupt) }
        func encode(to encoder: any Encoder) throws { throw CocoaError(.coderInvalidValue) }
    }

    func retrieve<Credentials>(_ type: Credentials.Type, _ fixture: Fixture) throws -> Vault<Credentials> {
        try VaultFactory<Credentials>.retrieveVaultOrThrow(key: fixture.key, configuration: fixture.configuration)
    }

    @Test func jsonTextIsStoredAndReadByteForByte() throws {
        let fixture = Fixture()
        let text = #"{"z":123456789012345678901234567890,"a":1.50,"s":"\u0041"}"#
        _ = try retrieve(ExactText.self, fixture).storeToKeychain(credentials: ExactText(text))
        #expect(try retrieve(ExactText.self, fixture).credentials == ExactText(text))
    }

    @Test func itemsJSONEncoderWroteStillRead() throws {
        let fixture = Fixture()
        _ = try fixture.retrieve().storeToKeychain(credentials: Login(user: "u", token: "t/1"))
        let read = try retrieve(ExactText.self, fixture).credentials
        #expect(String(decoding: read.bytes, as: UTF8.self) == #"{"token":"t\/1","user":"u"}"#)
    }

    @Test func limitsAndErrorsKeepTheirCodes() async throws {
        let fixture = Fixture()
        let tooLarge = ExactText(String(repeating: " ", count: VaultLimits.maximumCredentialsSize) + "1")
        #expect(await code { _ = try retrieve(ExactText.self, fixture).storeToKeychain(credentials: tooLarge) } == .credentialsTooLarge)
        #expect(await code { _ = try retrieve(ExactText.self, fixture).storeToKeychain(credentials: ExactText(ExactText.refusal)) } == .encodingFailed)
        #expect(fixture.device.itemCount == 0)

        // Bytes the type refuses to read are a corrupted item, reported and left in place.
        _ = try retrieve(ExactText.self, fixture).storeToKeychain(credentials: ExactText(ExactText.unreadable))
        #expect(await code { _ = try retrieve(ExactText.self, fixture) } == .corruptedItem)
        #expect(fixture.device.itemCount == 1)
    }
}
