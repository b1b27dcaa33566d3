import BiometricsVaultCore
import BiometricsVaultTestSupport
import BiometricsVaultTesting
import Testing

struct BadInputTests {
    static let badKeys = ["", "a/b", "a\u{0}b", "..", ".", "back\\slash", "tab\tkey", "new\nline",
                          String(repeating: "k", count: VaultLimits.maximumKeyLength + 1)]

    @Test(arguments: badKeys)
    func invalidKeysAreRejectedAndTouchNothing(_ key: String) async throws {
        let fixture = Fixture()
        _ = try fixture.retrieve().storeToKeychain(credentials: alice)
        #expect(await code { _ = try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: fixture.configuration) } == .invalidKey)
        // The lenient retrieve reports it too, and its empty vault refuses to store under the bad key.
        let lenient = VaultFactory<Login>.retrieveVault(key: key, configuration: fixture.configuration)
        #expect(lenient.invalidation == .unreadable(.invalidKey))
        #expect(await code { _ = try lenient.storeToKeychain(credentials: bob) } == .invalidKey)
        #expect(await code { _ = try await lenient.storeToBiometrics(credentials: bob) } == .invalidKey)
        #expect(fixture.device.itemCount == 1)
        #expect(fixture.device.promptCount == 0)
        #expect(try fixture.retrieve().credentials == alice)
    }

    @Test func invalidServiceIsRejected() async throws {
        let device = SimulatedDevice()
        let configuration = VaultConfiguration(store: device.store, authenticator: device.authenticator, service: "a/b")
        #expect(await code { _ = try VaultFactory<Login>.retrieveVaultOrThrow(key: "k", configuration: configuration) } == .invalidKey)
    }

    @Test func longestValidKeyAndUnicodeKeysWork() async throws {
        let fixture = Fixture()
        for key in [String(repeating: "k", count: VaultLimits.maximumKeyLength), "ключ 🔑", "a..b", "-"] {
            let vault = try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: fixture.configuration)
            _ = try vault.storeToKeychain(credentials: alice)
            #expect(try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: fixture.configuration).credentials == alice)
        }
    }

    struct Blob: Codable, Sendable, Equatable { var data: String }

    @Test func oversizeCredentialsAreRejectedAndTouchNothing() async throws {
        let fixture = Fixture()
        let small = Blob(data: "small")
        let big = Blob(data: String(repeating: "x", count: VaultLimits.maximumCredentialsSize))
        let configuration = fixture.configuration
        let key = fixture.key
        let keychain = try VaultFactory<Blob>.retrieveVaultOrThrow(key: key, configuration: configuration)
            .storeToKeychain(credentials: small)
        #expect(await code { _ = try await keychain.update(credentials: big) } == .credentialsTooLarge)
        let biometrics = try await keychain.upgrade()
        let prompts = fixture.device.promptCount
        #expect(await code { _ = try await biometrics.update(credentials: big) } == .credentialsTooLarge)
        #expect(fixture.device.promptCount == prompts, "bad input is rejected before any prompt")
        _ = try biometrics.reset()
        let empty = try VaultFactory<Blob>.retrieveVaultOrThrow(key: key, configuration: configuration)
        #expect(await code { _ = try empty.storeToKeychain(credentials: big) } == .credentialsTooLarge)
        #expect(await code { _ = try await empty.storeToBiometrics(credentials: big) } == .credentialsTooLarge)
        #expect(fixture.device.itemCount == 0)
        // Just under the limit is fine.
        let fits = Blob(data: String(repeating: "x", count: VaultLimits.maximumCredentialsSize - 20))
        let stored = try empty.storeToKeychain(credentials: fits)
        #expect(try stored.credentials == fits)
    }

    @Test func unencodableCredentialsAreRejected() async throws {
        struct NotFinite: Codable, Sendable { var value: Double }
        let fixture = Fixture()
        let vault = try VaultFactory<NotFinite>.retrieveVaultOrThrow(key: fixture.key, configuration: fixture.configuration)
        #expect(await code { _ = try vault.storeToKeychain(credentials: NotFinite(value: .nan)) } == .encodingFailed)
        #expect(fixture.device.itemCount == 0)
    }
}

struct ErrorDescriptionTests {
    @Test func descriptionsNeverContainSecrets() async throws {
        let secret = "hunter2-SECRET-MARKER"
        let fixture = Fixture()
        _ = try fixture.retrieve().storeToKeychain(credentials: Login(user: "u", token: secret))
        fixture.device.corruptItem(key: fixture.key, service: "tests")
        var errors: [VaultError] = []
        do { _ = try fixture.retrieve() } catch let error as VaultError { errors.append(error) }
        struct Wrong: Codable, Sendable { var token: Int }
        _ = try VaultFactory<Login>.retrieveVault(key: fixture.key, configuration: fixture.configuration).reset()
        _ = try fixture.retrieve().storeToKeychain(credentials: Login(user: "u", token: secret))
        do { _ = try VaultFactory<Wrong>.retrieveVaultOrThrow(key: fixture.key, configuration: fixture.configuration) }
        catch let error as VaultError { errors.append(error) }
        #expect(errors.count == 2)
        for error in errors {
            #expect(!"\(error)".contains(secret))
            #expect(!String(reflecting: error).contains(secret))
        }
        #expect(!"\(SecretBytes(utf8: secret))".contains(secret))
        #expect(!String(reflecting: SecretBytes(utf8: secret)).contains(secret))
    }

    @Test func errorsCompareByCodeAndKeepTheirCause() {
        let error = VaultError(.storeUnavailable, underlying: .errno(28))
        #expect(error == .storeUnavailable)
        #expect(error.underlying == .errno(28))
        #expect("\(error)" == "VaultError.storeUnavailable (No space left on device (errno 28))")
        #expect(VaultError.Code.all.count == Set(VaultError.Code.all).count)
        #expect(Set(VaultError.Code.all.map(\.name)).count == VaultError.Code.all.count)
    }
}

struct PayloadFormatTests {
    struct Unordered: Codable, Sendable { var zeta = 1; var alpha = "a"; var mid = [3, 2] }

    @Test func plainPayloadIsSortedJSONOfTheCredentials() async throws {
        let fixture = Fixture()
        _ = try VaultFactory<Unordered>.retrieveVaultOrThrow(key: fixture.key, configuration: fixture.configuration)
            .storeToKeychain(credentials: Unordered())
        let item = try fixture.device.store.read(SecretItemID(service: "tests", key: fixture.key), authorization: nil)
        let payload = try #require(item?.payload)
        #expect(String(decoding: payload.copyBytes(), as: UTF8.self) == #"{"alpha":"a","mid":[3,2],"zeta":1}"#)
        #expect(item?.header == ItemHeader(protection: .none))
    }
}
