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

// What the iOS 18 / macOS 15 SDK does that the fakes model: an empty prompt reason (an Objective-C exception
// in evaluatePolicy), the enrollment binding's move from evaluatedPolicyDomainState to domainState, and
// passcode removal deleting every protected item.

private let service = "com.example.app"
private let key = "login"
private let alice = Login(user: "alice", token: "t1")

/// A vault configuration over a fake device and a fake keychain that reads that device's enrollment.
private func configuration(
    _ device: FakeLADevice, _ keychain: FakeKeychain, prompt: PromptText = .default
) -> VaultConfiguration {
    VaultConfiguration(
        store: KeychainStore(platform: .iOSFamily, client: keychain), authenticator: device.authenticator,
        service: service, prompt: prompt)
}

@Suite("Empty prompt reason")
struct EmptyPromptReasonTests {
    static let reasons = ["", " ", "\n\t ", "\u{3000}\u{2028}"]

    @Test(arguments: reasons)
    func isATypedErrorBeforeAnyLAContext(reason: String) async {
        let device = FakeLADevice()
        let prompt = PromptText(reason: reason)
        #expect(!prompt.hasReason)
        for policy in ProtectionPolicy.allCases {
            await #expect(throws: VaultError.invalidPrompt) {
                _ = try await device.authenticator.authenticate(for: policy, prompt: prompt)
            }
        }
        await #expect(throws: VaultError.invalidPrompt) { try await device.authenticator.authenticateOwner(prompt: prompt) }
        #expect(device.state.withLock { $0.contextsMade } == 0, "no LAContext was created, so none was asked")
    }

    @Test func storeToBiometricsWithoutReasonStoresNothing() async throws {
        let device = FakeLADevice()
        let keychain = FakeKeychain(enrollment: device.enrollmentReadings)
        let config = configuration(device, keychain, prompt: PromptText(reason: "  "))
        guard case .emptyWithBiometrics(let empty) = try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: config)
        else { Issue.record("biometrics not offered"); return }
        await #expect(throws: VaultError.invalidPrompt) { _ = try await empty.storeToBiometrics(credentials: alice) }
        #expect(keychain.items.isEmpty)
        #expect(device.evaluations.isEmpty)
    }

    @Test func aReasonWithTextIsShown() {
        #expect(PromptText(reason: " Sign in ").hasReason)
        #expect(PromptText.default.hasReason)
    }
}

@Suite("Enrollment binding source")
struct EnrollmentBindingTests {
    static let hashNow = Data([0xAB, 0x01])
    static let domainNow = Data([0x5D, 0x01])
    static let iOS18 = EnrollmentReadings(biometryStateHash: hashNow, policyDomainState: domainNow)
    static let iOS17 = EnrollmentReadings(policyDomainState: domainNow)
    /// A later OS that no longer offers evaluatedPolicyDomainState.
    static let later = EnrollmentReadings(biometryStateHash: hashNow)

    /// (stored binding, readings now, whether the vault sees the same enrollment).
    static let cases: [(String, EnrollmentReadings, Bool)] = [
        ("bsh-ab01", iOS18, true), ("bsh-ffff", iOS18, false),  // same source: compared as stored
        ("pds-5d01", iOS17, true), ("pds-ffff", iOS17, false),
        ("pds-5d01", iOS18, true),  // the OS upgrade: the old source still reads the stored value
        ("pds-ffff", iOS18, false),  // the OS upgrade and a real change, seen through the old source
        ("pds-ffff", later, true),  // the old source is gone: not comparable, the access control decides
        ("5d01", iOS17, true), ("ffff", iOS17, false),  // bare (stored before sources were recorded)
        ("5d01", iOS18, true), ("ab01", iOS18, true), ("ffff", iOS18, false),
        ("ffff", later, true),  // a bare value from a source that is gone
    ]

    @Test(arguments: cases)
    func theStoredBindingIsComparedWithItsOwnSource(stored: String, now: EnrollmentReadings, same: Bool) throws {
        let binding = try #require(EnrollmentFingerprint(stored))
        let compared = EnrollmentBinding.comparable(stored: binding, now: now)
        #expect((compared == now.current) == same)
        #expect(compared == (same ? now.current : binding))
    }

    @Test func theTagNamesTheSource() throws {
        #expect(EnrollmentBinding.parse(try #require(EnrollmentFingerprint("bsh-ab01"))) == (.biometryStateHash, "ab01"))
        #expect(EnrollmentBinding.parse(try #require(EnrollmentFingerprint("pds-5d01"))) == (.policyDomainState, "5d01"))
        #expect(EnrollmentBinding.parse(try #require(EnrollmentFingerprint("ab01"))) == (nil, "ab01"))
        // The longest hex state still fits a fingerprint with its tag.
        let longest = EnrollmentBinding.fingerprint(Data(repeating: 0xEE, count: 61), from: .biometryStateHash)
        #expect(longest.value.count == 126)
    }

    /// Stored on iOS 17 (evaluatedPolicyDomainState), read after the upgrade to iOS 18 (domainState).
    @Test func anOSUpgradeIsNotAnEnrollmentChangeAndTheItemIsReBound() async throws {
        let device = FakeLADevice()
        device.state.withLock { $0.biometryStateHash = nil }
        let keychain = FakeKeychain(enrollment: device.enrollmentReadings)
        let config = configuration(device, keychain)
        guard case .emptyWithBiometrics(let empty) = try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: config)
        else { Issue.record("biometrics not offered"); return }
        _ = try await empty.storeToBiometrics(credentials: alice)
        #expect(keychain.items.first?.generic == Data("bv1;biometryCurrentSet;pds-5d01".utf8))

        device.state.withLock { $0.biometryStateHash = Data([0xAB, 0x01]) }  // iOS 18
        guard case .locked(let locked) = try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: config)
        else { Issue.record("an OS upgrade read as an enrollment change"); return }
        let unlocked = try await locked.unlock()
        #expect(unlocked.credentials == alice)
        // Re-bound by that authenticated read: later reads compare the new source directly.
        #expect(keychain.items.first?.generic == Data("bv1;biometryCurrentSet;bsh-ab01".utf8))
        guard case .locked = try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: config)
        else { Issue.record("not locked after re-binding"); return }
    }

    @Test func anOSUpgradeWithARealChangeIsStillAnEnrollmentChange() async throws {
        let device = FakeLADevice()
        device.state.withLock { $0.biometryStateHash = nil }
        let keychain = FakeKeychain(enrollment: device.enrollmentReadings)
        let config = configuration(device, keychain)
        guard case .emptyWithBiometrics(let empty) = try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: config)
        else { Issue.record("biometrics not offered"); return }
        _ = try await empty.storeToBiometrics(credentials: alice)
        device.state.withLock { state in
            state.biometryStateHash = Data([0xAB, 0x01])
            state.policyDomainState = Data([0x77])  // a finger was added as well
        }
        let vault = try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: config)
        #expect(vault.invalidation == .biometryChanged)
    }

    /// A binding stored by the previous version of this backend: bare hex of evaluatedPolicyDomainState.
    @Test func aBareBindingFromBeforeTheUpgradeIsNotAnEnrollmentChange() async throws {
        let device = FakeLADevice()
        let keychain = FakeKeychain(enrollment: device.enrollmentReadings)
        keychain.seed(
            .init(service: service, account: key, fileBased: false, generic: Data("bv1;biometryCurrentSet;5d01".utf8),
                value: SecretBytes(utf8: #"{"user":"alice","token":"t1"}"#), accessible: nil,
                accessControl: .biometryCurrentSet, synchronizable: false))
        guard case .locked(let locked) = try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: configuration(device, keychain))
        else { Issue.record("a bare binding read as an enrollment change"); return }
        #expect(try await locked.unlock().credentials == alice)
        #expect(keychain.items.first?.generic == Data("bv1;biometryCurrentSet;bsh-ab01".utf8))
    }
}

@Suite("Passcode removed")
struct PasscodeRemovedTests {
    @Test(arguments: ProtectionPolicy.allCases)
    func aVanishedProtectedItemIsReportedWithItsReason(policy: ProtectionPolicy) async throws {
        let device = FakeLADevice()
        let keychain = FakeKeychain(enrollment: device.enrollmentReadings)
        let config = VaultConfiguration(
            store: KeychainStore(platform: .iOSFamily, client: keychain), authenticator: device.authenticator,
            policy: policy, service: service)
        _ = try await VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: config).storeToBiometrics(credentials: alice)
        // The user removes the device passcode: iOS deletes the item, not its marker.
        device.state.withLock { $0.passcodeSet = false }
        keychain.removePasscode()
        #expect(keychain.items.isEmpty)
        let vault = try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: config)
        guard case .empty(let empty) = vault else { Issue.record("not empty: \(vault)"); return }
        #expect(empty.invalidation == .passcodeRemoved)
        #expect(VaultFactory<Login>.retrieveVault(key: key, configuration: config).invalidation == .passcodeRemoved)

        // Signing in again (plain, as no passcode is set) retires the marker; so does a reset.
        let plain = try empty.storeToKeychain(credentials: alice)
        #expect(keychain.markers.isEmpty)
        _ = try plain.reset()
        #expect(try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: config).invalidation == nil)
    }

    @Test func plainItemsAndResetKeysAreNoVanishedItems() async throws {
        let device = FakeLADevice()
        let keychain = FakeKeychain(enrollment: device.enrollmentReadings)
        let config = configuration(device, keychain)
        _ = try VaultFactory<Login>.retrieveVaultOrThrow(key: "plain", configuration: config).storeToKeychain(credentials: alice)
        let stored = try await VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: config)
            .storeToBiometrics(credentials: alice)
        _ = try stored.reset()
        #expect(keychain.markers.isEmpty)
        device.state.withLock { $0.passcodeSet = false }
        keychain.removePasscode()
        #expect(try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: config).invalidation == nil)
        guard case .keychain = try VaultFactory<Login>.retrieveVaultOrThrow(key: "plain", configuration: config)
        else { Issue.record("the plain item did not survive"); return }
    }

    /// The simulated device mirrors it, so apps can test the screen they show.
    @Test func theSimulatedDeviceReportsTheSame() async throws {
        let device = SimulatedDevice()
        let config = VaultConfiguration(store: device.store, authenticator: device.authenticator, service: service)
        _ = try await VaultFactory<Login>.retrieveVault(key: key, configuration: config).storeToBiometrics(credentials: alice)
        device.setPasscode(false)
        #expect(try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: config).invalidation == .passcodeRemoved)
        _ = try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: config).reset()
        #expect(try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: config).invalidation == nil)
    }
}
#endif
