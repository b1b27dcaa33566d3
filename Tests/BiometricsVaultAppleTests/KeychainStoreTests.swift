#if canImport(Security) || APPLE_SDK_STUBS
import BiometricsVaultCore
import BiometricsVaultTesting
import Foundation
import Testing

#if APPLE_SDK_STUBS
import BiometricsVaultAppleCheck
#else
import BiometricsVaultApple
#endif

// Status mapping, atomic replace under faults, repair, 0.30 compatibility and the SecretStore conformance
// suite, for the Keychain store over the fake Keychain.

private let service = "com.example.app"
private let key = "login"
private let staging = "\u{1}bv-staging\u{1}login"
private func itemID() throws -> SecretItemID { try SecretItemID(service: service, key: key) }
private func plain(_ text: String) -> StoredItem {
    StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes(utf8: text))
}
private func protectedItem(_ text: String, _ policy: ProtectionPolicy = .biometryAny) -> StoredItem {
    StoredItem(header: ItemHeader(protection: .protected(policy)), payload: SecretBytes(utf8: text))
}

@Suite("OSStatus mapping")
struct KeychainStatusTests {
    static let table: [(Int32, VaultError.Code)] = [
        (-25300, .itemNotFound), (-25299, .storeUnavailable), (-25293, .authenticationFailed),
        (-25308, .interactionNotAllowed), (-128, .userCancel), (-50, .storeUnavailable), (-34018, .storeUnavailable),
        (-25291, .storeUnavailable), (-25294, .storeUnavailable), (-25292, .storeUnavailable), (-36, .storeUnavailable),
        (-108, .storeUnavailable), (-25316, .storeLocked), (-25320, .storeLocked), (-26275, .corruptedItem),
        (-99999, .storeUnavailable),
    ]

    @Test(arguments: table)
    func everyStatusMapsAndKeepsTheStatus(status: Int32, code: VaultError.Code) {
        let error = KeychainStatus.error(status, during: .protected(.biometryAny, evaluatedContext: true))
        #expect(error.code == code)
        #expect(error.underlying == .osStatus(status))
    }

    @Test func theTableCoversEveryMappedStatus() {
        #expect(Set(KeychainStatus.codes.keys).isSubset(of: Set(Self.table.map(\.0))))
    }

    @Test func interactionNotAllowedOutsideAccessControlMeansTheKeychainIsLocked() {
        #expect(KeychainStatus.error(-25308, during: .plain).code == .storeLocked)
        #expect(KeychainStatus.error(-25308, during: .protected(.userPresence, evaluatedContext: false)).code == .interactionNotAllowed)
    }

    @Test func authFailedWithAnEvaluatedContextOnACurrentSetItemMeansBiometryChanged() {
        #expect(KeychainStatus.error(-25293, during: .protected(.biometryCurrentSet, evaluatedContext: true)).code == .biometryChanged)
        #expect(KeychainStatus.error(-25293, during: .protected(.biometryAny, evaluatedContext: true)).code == .authenticationFailed)
        #expect(KeychainStatus.error(-25293, during: .protected(.biometryCurrentSet, evaluatedContext: false)).code == .authenticationFailed)
    }

    @Test func ourConstantsEqualTheSDKConstants() {
        #expect(SystemKeychainClient.sdkStatusCodesMatch())
    }

    @Test(arguments: [(Int32(-34018), VaultError.Code.storeUnavailable), (-25308, .storeLocked), (-25316, .storeLocked), (-50, .storeUnavailable)])
    func statusesReachTheCallerThroughRead(status: Int32, code: VaultError.Code) throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(platform: .iOSFamily, client: keychain)
        keychain.inject("copy", status)
        do {
            _ = try store.read(itemID(), authorization: nil)
            Issue.record("read succeeded")
        } catch let error as VaultError {
            #expect(error.code == code)
            #expect(error.underlying == .osStatus(status))
        }
    }

    @Test func aFailedAddIsReportedAndNothingIsStored() throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(platform: .iOSFamily, client: keychain)
        keychain.inject("add", -34018)
        #expect(throws: VaultError.storeUnavailable) { try store.write(plain("p"), for: itemID(), authorization: nil) }
        #expect(keychain.items.isEmpty)
    }
}

@Suite("Keychain store: atomic replace, repair, compatibility")
struct KeychainStoreTests {
    @Test func deleteOfTheOldItemFailingKeepsTheOldItem() async throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(platform: .iOSFamily, client: keychain)
        try store.write(plain("old"), for: itemID(), authorization: nil)
        let authorization = try await FakeLADevice().authenticator.authenticate(for: .biometryAny, prompt: .default)
        // delete #1 clears stale staging, delete #2 removes the old item: make #2 fail.
        keychain.inject("delete", KeychainStatus.success)
        keychain.inject("delete", -25291)
        #expect(throws: VaultError.storeUnavailable) {
            try store.write(protectedItem("new"), for: itemID(), authorization: authorization)
        }
        let item = try store.read(itemID(), authorization: nil)
        #expect(item == plain("old"))
        #expect(keychain.items.map(\.account) == [key])
    }

    @Test func renameFailingLeavesTheNewItemReadableAndTheNextReadRepairs() throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(platform: .iOSFamily, client: keychain)
        let authorization = Authorization(policy: .biometryAny, enrollment: nil)
        try store.write(protectedItem("old"), for: itemID(), authorization: authorization)
        keychain.inject("update", -25291)
        #expect(throws: VaultError.storeUnavailable) { try store.write(plain("new"), for: itemID(), authorization: nil) }
        #expect(keychain.items.map(\.account) == [staging])
        // The interrupted replace: the staged (new, plain) item is the item, and reading finishes the rename.
        #expect(try store.read(itemID(), authorization: nil) == plain("new"))
        #expect(keychain.items.map(\.account) == [key])
        #expect(try store.keys(service: service) == [key])
    }

    @Test func aProtectedStagedItemIsServedLockedUntilAnAuthorisedReadRenamesIt() async throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(platform: .iOSFamily, client: keychain)
        keychain.seed(
            .init(service: service, account: staging, fileBased: false, generic: Data("bv1;biometryAny".utf8),
                value: SecretBytes(utf8: "secret"), accessible: nil, accessControl: .biometryAny, synchronizable: false))
        let locked = try store.read(itemID(), authorization: nil)
        #expect(locked == StoredItem(header: ItemHeader(protection: .protected(.biometryAny)), payload: nil))
        #expect(keychain.items.map(\.account) == [staging])  // renaming needs authentication: not done, not prompted
        let authorization = try await FakeLADevice().authenticator.authenticate(for: .biometryAny, prompt: .default)
        #expect(try store.read(itemID(), authorization: authorization)?.payload == SecretBytes(utf8: "secret"))
        #expect(keychain.items.map(\.account) == [key])
    }

    @Test func aStaleStagingItemBesideThePrimaryIsIgnoredAndReplaced() async throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(platform: .iOSFamily, client: keychain)
        try store.write(plain("current"), for: itemID(), authorization: nil)
        keychain.seed(
            .init(service: service, account: staging, fileBased: false, generic: Data("bv1;none".utf8),
                value: SecretBytes(utf8: "stale"), accessible: .afterFirstUnlock, accessControl: nil, synchronizable: false))
        #expect(try store.read(itemID(), authorization: nil) == plain("current"))
        let authorization = try await FakeLADevice().authenticator.authenticate(for: .biometryAny, prompt: .default)
        try store.write(protectedItem("upgraded"), for: itemID(), authorization: authorization)
        #expect(keychain.items.map(\.account) == [key])
        #expect(try store.read(itemID(), authorization: authorization)?.payload == SecretBytes(utf8: "upgraded"))
    }

    @Test func aCorruptedHeaderIsReportedAndTheItemIsKept() throws {
        let keychain = FakeKeychain()
        let store = KeychainStore(platform: .iOSFamily, client: keychain)
        keychain.seed(
            .init(service: service, account: key, fileBased: false, generic: Data("bv9;none".utf8),
                value: SecretBytes(utf8: "x"), accessible: .afterFirstUnlock, accessControl: nil, synchronizable: false))
        #expect(throws: VaultError.corruptedItem) { try store.read(itemID(), authorization: nil) }
        #expect(throws: VaultError.corruptedItem) { try store.write(plain("y"), for: itemID(), authorization: nil) }
        #expect(keychain.items.count == 1)
    }

    // MARK: BiometricsVault 0.30 items

    private static func legacyPlain(fileBased: Bool = false) -> FakeKeychain.Item {
        .init(service: service, account: key, fileBased: fileBased, generic: nil,
            value: SecretBytes(utf8: #"{"user":"alice","token":"t1"}"#), accessible: .afterFirstUnlock, accessControl: nil,
            synchronizable: false)
    }

    @Test func a030PlainItemReadsAsFormatZeroAndMovesIntoTheEnvelopeOnTheNextWrite() throws {
        let keychain = FakeKeychain()
        keychain.seed(Self.legacyPlain())
        let configuration = VaultConfiguration(
            store: KeychainStore(platform: .iOSFamily, client: keychain), authenticator: FakeLADevice().authenticator,
            service: service)
        let raw = try #require(try configuration.store.read(itemID(), authorization: nil))
        #expect(raw.header.formatVersion == 0)
        #expect(raw.header.protection == .none)
        guard case .keychainUpgradable(let vault) = try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: configuration)
        else { Issue.record("a 0.30 plain item is not a keychain vault"); return }
        #expect(vault.credentials == Login(user: "alice", token: "t1"))
        _ = try vault.update(credentials: Login(user: "alice", token: "t2"))
        #expect(keychain.items.count == 1)
        #expect(keychain.items.first?.account == key)
        #expect(keychain.items.first?.generic == Data("bv1;none".utf8))
        let stored = try #require(keychain.items.first?.value.copyBytes())
        #expect(try JSONDecoder().decode(Login.self, from: Data(stored)) == Login(user: "alice", token: "t2"))
    }

    @Test func a030BiometricItemIsLockedUnlocksAndMoves() async throws {
        let device = FakeLADevice()
        // The enrollment LocalAuthentication reports (stateHash AB 01).
        let keychain = FakeKeychain(enrollment: device.enrollmentReadings)
        var item = Self.legacyPlain()
        item.accessible = nil
        item.accessControl = .biometryCurrentSet
        keychain.seed(item)
        let configuration = VaultConfiguration(
            store: KeychainStore(platform: .iOSFamily, client: keychain), authenticator: device.authenticator,
            reuse: .session(timeout: .seconds(300)), service: service)
        let header = try #require(try configuration.store.read(itemID(), authorization: nil)).header
        #expect(header.formatVersion == 0)
        #expect(header.protection == .protected(.biometryCurrentSet))
        guard case .locked(let locked) = try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: configuration)
        else { Issue.record("a 0.30 biometric item is not locked"); return }
        let unlocked = try await locked.unlock()
        #expect(unlocked.credentials == Login(user: "alice", token: "t1"))
        _ = try await unlocked.update(credentials: Login(user: "alice", token: "t3"))
        #expect(keychain.items.map(\.account) == [key])
        #expect(keychain.items.first?.generic == Data("bv1;biometryCurrentSet;bsh-ab01".utf8))
        #expect(keychain.items.first?.accessControl == .biometryCurrentSet)
        #expect(device.evaluations.count == 1)  // one unlock, one prompt: the update reused the session
    }

    @Test func insideAReusableSessionRetrieveIsUnlockedWithoutASecondEvaluation() async throws {
        let device = FakeLADevice()
        let keychain = FakeKeychain(enrollment: device.enrollmentReadings)
        let configuration = VaultConfiguration(
            store: KeychainStore(platform: .iOSFamily, client: keychain), authenticator: device.authenticator,
            reuse: .session(timeout: .seconds(300)), service: service)
        let alice = Login(user: "alice", token: "t1")
        _ = try await VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: configuration)
            .storeToBiometrics(credentials: alice)
        // The Keychain read uses the session's evaluated LAContext (interaction forbidden): no new prompt.
        guard case .biometrics(let unlocked) = try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: configuration)
        else { Issue.record("not unlocked inside the session"); return }
        #expect(unlocked.credentials == alice)
        #expect(device.evaluations.count == 1)
        // lockAllSessions (the app went to the background) invalidates the LAContext, as lock() does.
        configuration.lockAllSessions()
        #expect(device.contexts.withLock { $0.allSatisfy(\.isInvalidated) })
        guard case .locked = try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: configuration)
        else { Issue.record("not locked after lockAllSessions"); return }
        #expect(device.evaluations.count == 1)
    }

    @Test func onMacOSA030ItemIsFoundInTheFileBasedKeychainAndMovedOut() throws {
        let keychain = FakeKeychain(macOS: true)
        keychain.seed(Self.legacyPlain(fileBased: true))
        let store = KeychainStore(platform: .macOS, client: keychain)
        let legacy = try #require(try store.read(itemID(), authorization: nil))
        #expect(legacy.header.formatVersion == 0)
        #expect(try store.keys(service: service) == [key])
        try store.write(plain(#"{"user":"alice","token":"t4"}"#), for: itemID(), authorization: nil)
        #expect(keychain.items.map(\.fileBased) == [false])
        #expect(keychain.items.first?.generic == Data("bv1;none".utf8))
    }

    // MARK: Conformance

    @Test(arguments: SecretStoreConformance.Check.allCases)
    func conformance(_ check: SecretStoreConformance.Check) async throws {
        let device = FakeLADevice()
        let store = KeychainStore(platform: .iOSFamily, client: FakeKeychain())
        try await SecretStoreConformance(store: store) { policy in
            try await device.authenticator.authenticate(for: policy, prompt: .default)
        }.run(check)
    }

    @Test(arguments: SecretStoreConformance.Check.allCases)
    func conformanceOnMacOS(_ check: SecretStoreConformance.Check) async throws {
        let device = FakeLADevice()
        let store = KeychainStore(synchronizable: true, platform: .macOS, client: FakeKeychain(macOS: true))
        try await SecretStoreConformance(store: store) { policy in
            try await device.authenticator.authenticate(for: policy, prompt: .default)
        }.run(check)
    }
}
#endif
