#if os(Linux)
@testable import BiometricsVaultLinuxAuth
import BiometricsVaultCore
import BiometricsVaultSecretService
import BiometricsVaultTestSupport
import BiometricsVaultTesting
import Foundation
import Testing

extension LinuxAuthIntegration {
    /// The whole vault state machine with the real fingerprint authenticator (real fprintd, virtual
    /// sensor), on the real Secret Service (gnome-keyring from scripts/setup/20-secret-service.sh) and on
    /// the simulated keychain.
    ///
    /// The simulated keychain checks `.biometryCurrentSet` reads against the simulated device's own
    /// enrollment, so there the flow uses `.biometryAny`. The invalidation by a new finger is decided by
    /// the core from this authenticator's `currentEnrollment()` at retrieve time, on both stores.
    @Suite struct VaultFlowIntegrationTests {
        enum StoreKind: String, CaseIterable, CustomStringConvertible {
            case secretService, simulatedKeychain
            var description: String { rawValue }

            /// The Secret Service of this run belongs to the user who ran the setup (root in CI): it is
            /// required there, and left out where it does not answer (the non-root re-run, extra-tests/30).
            static let runnable: [StoreKind] =
                SecretServiceStore.probe(timeout: .seconds(2)) == .available || (Daemons.required && Harness.isRoot)
                ? allCases : [.simulatedKeychain]
        }
        struct Credentials: Codable, Sendable, Equatable {
            var username: String
            var token: String
        }

        let service = "io.github.biometricsvault.linuxauth-tests.\(UUID().uuidString.prefix(8))"
        static let enrolledID = "\(Harness.fingerIDPrefix)-flow-finger-a"
        let stateDirectory = Harness.temporaryStateDirectory()
        let device = SimulatedDevice(biometryType: .fingerprint)

        func store(_ kind: StoreKind) throws -> any SecretStore {
            switch kind {
            case .simulatedKeychain:
                return device.store
            case .secretService:
                let status = SecretServiceStore.probe(timeout: .seconds(2))
                guard status == .available else {
                    throw TestFailure("the Secret Service is not usable: \(status) (run scripts/setup/20-secret-service.sh)")
                }
                return try SecretServiceStore()
            }
        }

        func configuration(_ policy: ProtectionPolicy, store: any SecretStore) -> VaultConfiguration {
            VaultConfiguration(
                store: store,
                authenticator: FingerprintAuthenticator(owner: nil, verifyTimeout: .seconds(20), stateDirectory: stateDirectory),
                policy: policy, service: service)
        }

        @Test(.needs(Harness.fingerprint), arguments: StoreKind.runnable)
        func storeRetrieveUnlockLockDowngradeReset(on kind: StoreKind) async throws {
            let store = try store(kind)
            try await Enrollment.reset(to: [("right-index-finger", Self.enrolledID)])
            let configuration = configuration(kind == .secretService ? .biometryCurrentSet : .biometryAny, store: store)
            let alice = Credentials(username: "alice", token: "t-1")
            let key = "whole-flow"

            guard case .emptyWithBiometrics(let empty) = VaultFactory<Credentials>.retrieveVault(key: key, configuration: configuration)
            else { Issue.record("a fresh key with an enrolled finger is emptyWithBiometrics"); return }
            VirtualSensor.whenFingerNeeded("SCAN \(Self.enrolledID)")
            let stored = try await empty.storeToBiometrics(credentials: alice)
            #expect(stored.credentials == alice)

            guard case .locked(let locked) = try VaultFactory<Credentials>.retrieveVaultOrThrow(key: key, configuration: configuration)
            else { Issue.record("a protected item is retrieved locked, without a prompt"); return }

            VirtualSensor.whenFingerNeeded("SCAN stranger")
            await #expect(throws: VaultError.authenticationFailed) { _ = try await locked.unlock() }

            VirtualSensor.whenFingerNeeded("SCAN \(Self.enrolledID)")
            let unlocked = try await locked.unlock()
            #expect(unlocked.credentials == alice)

            let relocked = unlocked.lock()
            await #expect(throws: VaultError.vaultLocked) {
                _ = try await unlocked.update(credentials: Credentials(username: "alice", token: "t-2"))
            }
            VirtualSensor.whenFingerNeeded("SCAN \(Self.enrolledID)")
            let again = try await relocked.unlock()

            let plain = try again.downgrade()
            #expect(plain.credentials == alice)
            guard case .keychainUpgradable(let keychain) = try VaultFactory<Credentials>.retrieveVaultOrThrow(key: key, configuration: configuration)
            else { Issue.record("after downgrade the item is plain and upgradable"); return }
            #expect(keychain.credentials == alice)

            guard case .emptyWithBiometrics = try keychain.reset() else { Issue.record("reset returns an empty vault"); return }
            guard case .emptyWithBiometrics = try VaultFactory<Credentials>.retrieveVaultOrThrow(key: key, configuration: configuration)
            else { Issue.record("nothing is stored after reset"); return }
        }

        @Test(.needs(Harness.fingerprint), arguments: StoreKind.runnable)
        func enrollingASecondFingerInvalidatesCurrentSetItemsOnly(on kind: StoreKind) async throws {
            let store = try store(kind)
            try await Enrollment.reset(to: [("right-index-finger", Self.enrolledID)])
            let currentSet = configuration(.biometryCurrentSet, store: store)
            let anySet = configuration(.biometryAny, store: store)
            let secret = Credentials(username: "bob", token: "t-9")

            for (key, configuration) in [("current-set", currentSet), ("any-set", anySet)] {
                guard case .emptyWithBiometrics(let empty) = VaultFactory<Credentials>.retrieveVault(key: key, configuration: configuration)
                else { Issue.record("\(key): expected emptyWithBiometrics"); return }
                VirtualSensor.whenFingerNeeded("SCAN \(Self.enrolledID)")
                _ = try await empty.storeToBiometrics(credentials: secret)
            }
            guard case .locked = VaultFactory<Credentials>.retrieveVault(key: "current-set", configuration: currentSet)
            else { Issue.record("before the change the current-set item is locked, not invalidated"); return }

            let status = try await Enrollment.enroll(finger: "left-index-finger", scanID: "\(Harness.fingerIDPrefix)-flow-finger-b")
            try #require(status == "enroll-completed")

            switch VaultFactory<Credentials>.retrieveVault(key: "current-set", configuration: currentSet) {
            case .emptyWithBiometrics(let empty), .empty(let empty):
                #expect(empty.invalidation == .biometryChanged)
            default:
                Issue.record("a biometryCurrentSet item must be invalidated by a new finger")
            }
            guard case .locked(let locked) = VaultFactory<Credentials>.retrieveVault(key: "any-set", configuration: anySet)
            else { Issue.record("a biometryAny item survives an enrollment change"); return }
            VirtualSensor.whenFingerNeeded("SCAN \(Self.enrolledID)")
            let unlocked = try await locked.unlock()
            #expect(unlocked.credentials == secret)
            for key in ["current-set", "any-set"] { try? store.delete(SecretItemID(service: service, key: key)) }
        }
    }
}
#endif
