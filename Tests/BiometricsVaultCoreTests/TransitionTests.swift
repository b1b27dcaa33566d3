import BiometricsVaultCore
import BiometricsVaultTestSupport
import BiometricsVaultTesting
import Testing

/// Every arrow of the state diagram, forward and back, through the typed vaults.
struct TypedTransitionTests {
    @Test func emptyToKeychainToBiometricsAndBack() async throws {
        let fixture = Fixture()
        guard case .emptyWithBiometrics(let empty) = try fixture.retrieve() else { Issue.record("not empty"); return }
        #expect(empty.invalidation == nil)

        let keychain = try empty.storeToKeychain(credentials: alice)
        #expect(keychain.credentials == alice)
        guard case .keychainUpgradable(let stored) = try fixture.retrieve() else { Issue.record("not keychain"); return }
        #expect(stored.credentials == alice)

        let updated = try keychain.update(credentials: bob)
        #expect(try fixture.retrieve().credentials == bob)

        let biometrics = try await updated.upgrade()
        #expect(biometrics.credentials == bob)
        #expect(fixture.device.promptCount == 1)
        #expect(fixture.device.protection(key: fixture.key, service: "tests") == .protected(.biometryCurrentSet))
        guard case .locked(let locked) = try fixture.retrieve() else { Issue.record("not locked"); return }

        let unlocked = try await locked.unlock()
        #expect(unlocked.credentials == bob)
        #expect(fixture.device.promptCount == 2)

        let relocked = unlocked.lock()
        let again = try await relocked.unlock()
        #expect(fixture.device.promptCount == 3)

        let downgraded = try again.downgrade()
        #expect(downgraded.credentials == bob)
        #expect(fixture.device.protection(key: fixture.key, service: "tests") == ItemProtection.none)
        #expect(try fixture.retrieve().caseName == "keychainUpgradable")

        let reset = try downgraded.reset()
        #expect(reset.caseName == "emptyWithBiometrics")
        #expect(fixture.device.itemCount == 0)
    }

    @Test func emptyStraightToBiometrics() async throws {
        let fixture = Fixture()
        guard case .emptyWithBiometrics(let empty) = try fixture.retrieve() else { Issue.record("not empty"); return }
        let biometrics = try await empty.storeToBiometrics(credentials: alice)
        #expect(biometrics.credentials == alice)
        #expect(fixture.device.promptCount == 1)
        guard case .locked(let locked) = try fixture.retrieve() else { Issue.record("not locked"); return }
        #expect(try locked.reset().caseName == "emptyWithBiometrics")
    }

    @Test func resetFromEveryState() async throws {
        let fixture = Fixture()
        #expect(try fixture.retrieve().reset().caseName == "emptyWithBiometrics")
        _ = try fixture.retrieve().storeToKeychain(credentials: alice)
        #expect(try fixture.retrieve().reset().caseName == "emptyWithBiometrics")
        let biometrics = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        #expect(try biometrics.reset().caseName == "emptyWithBiometrics")
        _ = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        let locked = try fixture.retrieve()
        #expect(locked.caseName == "locked")
        #expect(try locked.reset().caseName == "emptyWithBiometrics")
        #expect(fixture.device.itemCount == 0)
    }

    @Test func biometricUpdateKeepsProtectionAndPolicy() async throws {
        let fixture = Fixture(policy: .biometryAny)
        guard case .biometrics(let vault) = try await fixture.retrieve().storeToBiometrics(credentials: alice) else {
            Issue.record("not biometrics"); return
        }
        let updated = try await vault.update(credentials: bob)
        #expect(updated.credentials == bob)
        #expect(updated.policy == .biometryAny)
        #expect(fixture.device.protection(key: fixture.key, service: "tests") == .protected(.biometryAny))
        guard case .locked(let locked) = try fixture.retrieve() else { Issue.record("not locked"); return }
        #expect(try await locked.unlock().credentials == bob)
    }

    @Test func devicesWithoutBiometricsOfferPlainStatesOnly() async throws {
        let fixture = Fixture(biometryType: .none)
        let vault = try fixture.retrieve()
        #expect(vault.caseName == "empty")
        let keychain = try vault.storeToKeychain(credentials: alice)
        #expect(keychain.caseName == "keychain")
        #expect(await code { _ = try await keychain.upgrade() } == .biometryNotAvailable)
        #expect(try fixture.retrieve().credentials == alice)
    }

    @Test func notEnrolledIsEmptyAndUpgradeSaysWhy() async throws {
        let fixture = Fixture(enrolled: false)
        let vault = try fixture.retrieve()
        #expect(vault.caseName == "empty")
        #expect(await code { _ = try await vault.storeToBiometrics(credentials: alice) } == .biometryNotEnrolled)
        #expect(fixture.device.itemCount == 0)
    }
}

/// The same arrows through the `Vault` helpers, and `invalidVault` wherever an operation does not apply.
struct VaultHelperTests {
    @Test func walkTheDiagramThroughHelpers() async throws {
        let fixture = Fixture()
        var vault = try fixture.retrieve()
        #expect(!vault.biometricsEnabled)
        vault = try vault.storeToKeychain(credentials: alice)
        #expect(try vault.credentials == alice)
        vault = try await vault.update(credentials: bob)
        #expect(try vault.credentials == bob)
        vault = try await vault.upgrade()
        #expect(vault.caseName == "biometrics")
        #expect(vault.biometricsEnabled)
        vault = try await vault.update(credentials: alice)
        #expect(try vault.credentials == alice)
        vault = try vault.lock()
        #expect(vault.caseName == "locked")
        #expect(vault.biometricsEnabled)
        #expect(try vault.lock().caseName == "locked")
        try await vault.reauthenticateOwner()
        vault = try await vault.unlock()
        #expect(try vault.credentials == alice)
        try await vault.reauthenticateOwner()
        vault = try vault.downgrade()
        #expect(vault.caseName == "keychainUpgradable")
        vault = try vault.reset()
        #expect(vault.caseName == "emptyWithBiometrics")
        vault = try await vault.storeToBiometrics(credentials: bob)
        #expect(try vault.credentials == bob)
        #expect(try vault.reset().caseName == "emptyWithBiometrics")
    }

    @available(*, deprecated, message: "exercises the deprecated aliases on purpose")
    @Test func deprecatedAliasesForward() async throws {
        let fixture = Fixture()
        var vault = try fixture.retrieve()
        vault = try await vault.storeWithBiometrics(credentials: alice)
        vault = try vault.downgradeToKeychain()
        vault = try await vault.upgradeWithBiometrics()
        vault = try vault.downgradeToKeychain()
        vault = try await vault.upgradeToBiometrics()
        #expect(vault.caseName == "biometrics")
        guard case .keychainUpgradable(let keychain) = try vault.downgrade() else { Issue.record("not keychain"); return }
        let biometrics = try await keychain.upgradeWithBiometrics()
        _ = try biometrics.downgradeToKeychain()
        guard case .keychainUpgradable(let again) = try fixture.retrieve() else { Issue.record("not keychain"); return }
        _ = try await again.upgradeToBiometrics()
        guard case .locked = try fixture.retrieve() else { Issue.record("not locked"); return }
        _ = try fixture.retrieve().reset()
        guard case .emptyWithBiometrics(let empty) = try fixture.retrieve() else { Issue.record("not empty"); return }
        _ = try await empty.storeWithBiometrics(credentials: bob)
        #expect(fixture.device.protection(key: fixture.key, service: "tests") == .protected(.biometryCurrentSet))
    }

    enum Start: String, CaseIterable, Sendable { case empty, keychain, biometrics, locked }

    static let invalidOperations: [(Start, String)] = [
        (.empty, "update"), (.empty, "upgrade"), (.empty, "downgrade"), (.empty, "lock"), (.empty, "unlock"),
        (.empty, "reauthenticateOwner"), (.empty, "credentials"),
        (.keychain, "storeToKeychain"), (.keychain, "storeToBiometrics"), (.keychain, "downgrade"),
        (.keychain, "lock"), (.keychain, "unlock"), (.keychain, "reauthenticateOwner"),
        (.biometrics, "storeToKeychain"), (.biometrics, "storeToBiometrics"), (.biometrics, "upgrade"),
        (.biometrics, "unlock"),
        (.locked, "storeToKeychain"), (.locked, "storeToBiometrics"), (.locked, "update"), (.locked, "upgrade"),
        (.locked, "downgrade"), (.locked, "credentials"),
    ]

    @Test(arguments: invalidOperations)
    func operationInWrongStateThrowsInvalidVault(_ start: Start, _ operation: String) async throws {
        let fixture = Fixture()
        var vault = try fixture.retrieve()
        switch start {
        case .empty: break
        case .keychain: vault = try vault.storeToKeychain(credentials: alice)
        case .biometrics: vault = try await vault.storeToBiometrics(credentials: alice)
        case .locked:
            _ = try await vault.storeToBiometrics(credentials: alice)
            vault = try fixture.retrieve()
        }
        let before = fixture.device.promptCount
        let thrown = await code {
            switch operation {
            case "storeToKeychain": _ = try vault.storeToKeychain(credentials: bob)
            case "storeToBiometrics": _ = try await vault.storeToBiometrics(credentials: bob)
            case "update": _ = try await vault.update(credentials: bob)
            case "upgrade": _ = try await vault.upgrade()
            case "downgrade": _ = try vault.downgrade()
            case "lock": _ = try vault.lock()
            case "unlock": _ = try await vault.unlock()
            case "reauthenticateOwner": try await vault.reauthenticateOwner()
            case "credentials": _ = try vault.credentials
            default: Issue.record("unknown operation \(operation)")
            }
        }
        #expect(thrown == .invalidVault)
        #expect(fixture.device.promptCount == before, "an invalid operation must not prompt")
    }
}
