import BiometricsVaultCore
import BiometricsVaultTestSupport
import BiometricsVaultTesting

struct Login: Codable, Sendable, Equatable {
    var user: String
    var token: String
}

let alice = Login(user: "alice", token: "token-1")
let bob = Login(user: "bob", token: "token-2")

/// A device plus a configuration over it, with a unique service per test.
struct Fixture {
    let device: SimulatedDevice
    let configuration: VaultConfiguration
    let key = "credentials"

    init(
        biometryType: BiometryType = .faceID, enrolled: Bool = true, passcodeSet: Bool = true,
        policy: ProtectionPolicy = .biometryCurrentSet, reuse: AuthenticationReuse = .never,
        wrap: (any SecretStore) -> any SecretStore = { $0 }
    ) {
        device = SimulatedDevice(biometryType: biometryType, enrolled: enrolled, passcodeSet: passcodeSet)
        configuration = VaultConfiguration(
            store: wrap(device.store), authenticator: device.authenticator, policy: policy, reuse: reuse,
            service: "tests", clock: device.clock.vaultClock)
    }

    func retrieve() throws -> Vault<Login> {
        try VaultFactory<Login>.retrieveVaultOrThrow(key: key, configuration: configuration)
    }
}

extension Vault {
    var caseName: String {
        switch self {
        case .emptyWithBiometrics: "emptyWithBiometrics"
        case .empty: "empty"
        case .keychain: "keychain"
        case .keychainUpgradable: "keychainUpgradable"
        case .biometrics: "biometrics"
        case .locked: "locked"
        }
    }
}

