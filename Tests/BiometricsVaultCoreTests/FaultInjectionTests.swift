import BiometricsVaultCore
import BiometricsVaultTestSupport
import BiometricsVaultTesting
import Testing

/// For every transition, fail the store at each of its calls in turn. Afterwards a fresh retrieve must
/// still yield the credentials: the old ones or the new ones, never none, and never a plain item where
/// the vault reports protection (or the reverse).
struct FaultInjectionTests {
    enum Transition: String, CaseIterable, Sendable {
        case storeToKeychain, storeToBiometrics, updatePlain, upgrade, updateProtected, downgrade, unlock, reset
    }

    struct Setup {
        let fixture: Fixture
        let faults: FaultInjectingStore
    }

    static func makeSetup() -> Setup {
        var captured: FaultInjectingStore?
        let fixture = Fixture { store in
            let faults = FaultInjectingStore(wrapping: store)
            captured = faults
            return faults
        }
        return Setup(fixture: fixture, faults: captured!)
    }

    /// Brings the vault into the transition's start state (no faults yet).
    static func prepare(_ transition: Transition, _ fixture: Fixture) async throws -> Vault<Login> {
        let vault = try fixture.retrieve()
        switch transition {
        case .storeToKeychain, .storeToBiometrics: return vault
        case .updatePlain, .upgrade: return try vault.storeToKeychain(credentials: alice)
        case .updateProtected, .downgrade, .reset: return try await vault.storeToBiometrics(credentials: alice)
        case .unlock:
            _ = try await vault.storeToBiometrics(credentials: alice)
            return try fixture.retrieve()
        }
    }

    static func perform(_ transition: Transition, on vault: Vault<Login>) async throws {
        switch transition {
        case .storeToKeychain: _ = try vault.storeToKeychain(credentials: bob)
        case .storeToBiometrics: _ = try await vault.storeToBiometrics(credentials: bob)
        case .updatePlain, .updateProtected: _ = try await vault.update(credentials: bob)
        case .upgrade: _ = try await vault.upgrade()
        case .downgrade: _ = try vault.downgrade()
        case .unlock: _ = try await vault.unlock()
        case .reset: _ = try vault.reset()
        }
    }

    /// What a fresh retrieve may show after the transition failed at some call, or succeeded.
    static func acceptable(_ transition: Transition, _ vault: Vault<Login>, protection: ItemProtection?) -> Bool {
        let credentials = try? vault.credentials
        switch (transition, vault) {
        case (.storeToKeychain, .emptyWithBiometrics): return protection == nil
        case (.storeToKeychain, .keychainUpgradable): return credentials == bob && protection == ItemProtection.none
        case (.storeToBiometrics, .emptyWithBiometrics): return protection == nil
        case (.storeToBiometrics, .locked): return protection == .protected(.biometryCurrentSet)
        case (.updatePlain, .keychainUpgradable): return (credentials == alice || credentials == bob) && protection == ItemProtection.none
        case (.upgrade, .keychainUpgradable): return credentials == alice && protection == ItemProtection.none
        case (.upgrade, .locked), (.updateProtected, .locked), (.unlock, .locked):
            return protection == .protected(.biometryCurrentSet)
        case (.downgrade, .locked): return protection == .protected(.biometryCurrentSet)
        case (.downgrade, .keychainUpgradable): return credentials == alice && protection == ItemProtection.none
        case (.reset, .locked): return protection == .protected(.biometryCurrentSet)
        case (.reset, .emptyWithBiometrics): return protection == nil
        default: return false
        }
    }

    /// What a protected item found after the transition may hold once unlocked: the old credentials or
    /// the new ones.
    static func protectedCredentials(_ transition: Transition) -> [Login] {
        switch transition {
        case .storeToBiometrics: [bob]
        case .updateProtected: [alice, bob]
        case .upgrade, .downgrade, .unlock, .reset: [alice]
        case .storeToKeychain, .updatePlain: []  // never protected afterwards (`acceptable` says so)
        }
    }

    @Test(arguments: Transition.allCases)
    func everyInjectedFaultLeavesOldOrNewCredentials(_ transition: Transition) async throws {
        var injectionPoints = 0
        var call = 1
        while true {
            let setup = Self.makeSetup()
            let vault = try await Self.prepare(transition, setup.fixture)
            setup.faults.failCall(call)
            let failed = await code { try await Self.perform(transition, on: vault) } != nil
            let callsMade = setup.faults.callCount
            setup.faults.reset()
            let after = try setup.fixture.retrieve()
            let protection = setup.fixture.device.protection(key: setup.fixture.key, service: "tests")
            #expect(Self.acceptable(transition, after, protection: protection),
                    "\(transition) failing at call \(call): got \(after.caseName), protection \(String(describing: protection))")
            if case .locked(let locked) = after {
                let unlocked = try await locked.unlock().credentials
                #expect(Self.protectedCredentials(transition).contains(unlocked),
                        "\(transition) failing at call \(call): the protected item holds other credentials")
            }
            if !failed || call > callsMade { break }
            injectionPoints += 1
            call += 1
        }
        print("fault injection: \(transition) covered \(injectionPoints) injection points")
        #expect(injectionPoints >= 1 || transition == .storeToKeychain || transition == .storeToBiometrics)
    }
}
