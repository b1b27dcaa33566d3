import BiometricsVault
import BiometricsVaultTestSupport
import BiometricsVaultTesting
import Testing

struct Token: Codable, Sendable, Equatable {
    var value: String
}

@Suite(.onTestThreads)
struct SimulatedKeychainConformanceTests {
    @Test(arguments: SecretStoreConformance.Check.allCases)
    func simulatedKeychainConforms(_ check: SecretStoreConformance.Check) async throws {
        let device = SimulatedDevice()
        try await SecretStoreConformance(store: device.store) { policy in
            try await device.authenticator.authenticate(for: policy, prompt: .default)
        }.run(check)
    }

    @Test(arguments: AuthenticatorConformance.Check.allCases, [ProtectionPolicy.biometryCurrentSet, .userPresence, .devicePasscode])
    func simulatedAuthenticatorConforms(_ check: AuthenticatorConformance.Check, _ policy: ProtectionPolicy) async throws {
        let device = SimulatedDevice(biometryType: .touchID)
        try await AuthenticatorConformance(authenticator: device.authenticator, policy: policy) {
            device.enqueue(.match)
        }.run(check)
    }

    @Test func unavailableAuthenticatorConforms() async throws {
        let device = SimulatedDevice(biometryType: .none)
        try await AuthenticatorConformance(authenticator: device.authenticator) {}.runAll()
        #expect(device.authenticator.availability(for: .biometryAny) == .unavailable(.biometryNotAvailable))
        #expect(device.authenticator.biometryType == .none)
    }
}

@Suite(.onTestThreads)
struct SimulatedDeviceBehaviourTests {
    /// The same script gives the same transcript, every time.
    @Test func deterministic() async throws {
        func transcript() async -> [String] {
            let device = SimulatedDevice(biometryType: .opticID)
            let configuration = VaultConfiguration(store: device.store, authenticator: device.authenticator, service: "det")
            var lines: [String] = []
            device.enqueue(.noMatch, .userCancel, .match, .noMatch)
            var vault = VaultFactory<Token>.retrieveVault(key: "k", configuration: configuration)
            for step in 0..<6 {
                do {
                    vault = try await vault.storeToBiometrics(credentials: Token(value: "\(step)"))
                    lines.append("stored \(step)")
                } catch let error as VaultError {
                    lines.append("error \(error.code)")
                } catch {
                    lines.append("other")
                }
            }
            lines.append("prompts \(device.promptCount) failures \(device.consecutiveFailures)")
            return lines
        }
        let first = await transcript()
        #expect(first == ["error authenticationFailed", "error userCancel", "stored 2", "error invalidVault", "error invalidVault", "error invalidVault", "prompts 3 failures 0"])
        #expect(await transcript() == first)
    }

    @Test func emptyQueueAnswersMatchAndPromptTextsAreRecorded() async throws {
        let device = SimulatedDevice()
        let prompt = PromptText(reason: "Sign in to Example", cancel: "Not now", fallback: "Use Passcode")
        let configuration = VaultConfiguration(store: device.store, authenticator: device.authenticator, prompt: prompt)
        _ = try await VaultFactory<Token>.retrieveVault(key: "k", configuration: configuration).storeToBiometrics(credentials: Token(value: "v"))
        #expect(device.promptCount == 1)
        #expect(device.shownPrompts == [prompt])
    }

    @Test(arguments: BiometryType.allCases)
    func reportsItsBiometryType(_ type: BiometryType) {
        #expect(SimulatedDevice(biometryType: type).authenticator.biometryType == type)
    }
}

/// Every `VaultError.Code` the simulator can produce, each reached through the public API.
@Suite(.onTestThreads)
struct ReachableCodesTests {
    static let reachable: [VaultError.Code] = [
        .biometryNotAvailable, .biometryNotEnrolled, .biometryLockout, .biometryChanged, .userCancel, .systemCancel,
        .authenticationFailed, .passcodeNotSet, .interactionNotAllowed, .storeUnavailable, .storeLocked, .corruptedItem,
        .invalidKey, .credentialsTooLarge, .invalidVault, .vaultLocked, .itemNotFound, .encodingFailed, .userFallback,
        .invalidPrompt, .storeFull,
    ]

    @Test func everyCodeIsListed() {
        #expect(Set(Self.reachable) == Set(VaultError.Code.all))
    }

    @Test(arguments: reachable)
    func codeIsReached(_ expected: VaultError.Code) async throws {
        let device = SimulatedDevice()
        let configuration = VaultConfiguration(store: device.store, authenticator: device.authenticator, service: "codes")
        let retrieve = { try VaultFactory<Token>.retrieveVaultOrThrow(key: "k", configuration: configuration) }
        let token = Token(value: "v")
        let reached: VaultError.Code?
        switch expected {
        case .biometryNotAvailable:
            let bare = SimulatedDevice(biometryType: .none)
            let config = VaultConfiguration(store: bare.store, authenticator: bare.authenticator)
            reached = await code { _ = try await VaultFactory<Token>.retrieveVault(key: "k", configuration: config).storeToBiometrics(credentials: token) }
        case .biometryNotEnrolled:
            device.removeEnrollment()
            reached = await code { _ = try await retrieve().storeToBiometrics(credentials: token) }
        case .biometryLockout:
            device.enqueue(.noMatch, .noMatch, .noMatch, .noMatch, .noMatch)
            for _ in 0..<5 { _ = await code { _ = try await retrieve().storeToBiometrics(credentials: token) } }
            reached = await code { _ = try await retrieve().storeToBiometrics(credentials: token) }
        case .biometryChanged:
            _ = try await retrieve().storeToBiometrics(credentials: token)
            let locked = try retrieve()
            device.changeEnrollment()
            reached = await code { _ = try await locked.unlock() }
        case .userCancel:
            device.enqueue(.userCancel)
            reached = await code { _ = try await retrieve().storeToBiometrics(credentials: token) }
        case .systemCancel:
            device.enqueue(.systemCancel)
            reached = await code { _ = try await retrieve().storeToBiometrics(credentials: token) }
        case .userFallback:
            device.enqueue(.userFallback)
            reached = await code { _ = try await retrieve().storeToBiometrics(credentials: token) }
        case .authenticationFailed:
            device.enqueue(.noMatch)
            reached = await code { _ = try await retrieve().storeToBiometrics(credentials: token) }
        case .passcodeNotSet:
            device.setPasscode(false)
            reached = await code { _ = try await retrieve().storeToBiometrics(credentials: token) }
        case .interactionNotAllowed:
            // A store that is handed an authorization that was already invalidated (e.g. by lock()).
            let authorization = try await device.authenticator.authenticate(for: .biometryAny, prompt: .default)
            authorization.invalidate()
            reached = await code {
                try device.store.write(
                    StoredItem(header: ItemHeader(protection: .protected(.biometryAny)), payload: SecretBytes(utf8: "{}")),
                    for: SecretItemID(service: "codes", key: "k"), authorization: authorization)
            }
        case .storeUnavailable:
            let faults = FaultInjectingStore(wrapping: device.store)
            faults.failCall(1)
            let config = VaultConfiguration(store: faults, authenticator: device.authenticator)
            reached = await code { _ = try VaultFactory<Token>.retrieveVaultOrThrow(key: "k", configuration: config) }
        case .storeFull:
            // A store with no room for the write (a full disk, the vault service's limits).
            let faults = FaultInjectingStore(wrapping: device.store, error: VaultError(.storeFull))
            let config = VaultConfiguration(store: faults, authenticator: device.authenticator)
            let empty = try VaultFactory<Token>.retrieveVaultOrThrow(key: "k", configuration: config)
            faults.failCall(1)
            reached = await code { _ = try empty.storeToKeychain(credentials: token) }
        case .storeLocked:
            device.setKeychainLocked(true)
            reached = await code { _ = try retrieve() }
        case .corruptedItem:
            _ = try retrieve().storeToKeychain(credentials: token)
            device.corruptItem(key: "k", service: "codes")
            reached = await code { _ = try retrieve() }
        case .invalidKey:
            reached = await code { _ = try VaultFactory<Token>.retrieveVaultOrThrow(key: "../k", configuration: configuration) }
        case .credentialsTooLarge:
            reached = await code { _ = try retrieve().storeToKeychain(credentials: Token(value: String(repeating: "x", count: 70_000))) }
        case .invalidVault:
            reached = await code { _ = try await retrieve().unlock() }
        case .vaultLocked:
            let vault = try await retrieve().storeToBiometrics(credentials: token)
            _ = try vault.lock()
            reached = await code { _ = try vault.downgrade() }
        case .itemNotFound:
            // Deleted through another configuration (another process, say) while this handle was unlocked.
            let vault = try await retrieve().storeToBiometrics(credentials: token)
            let other = VaultConfiguration(store: device.store, authenticator: device.authenticator, service: "codes")
            _ = try VaultFactory<Token>.retrieveVaultOrThrow(key: "k", configuration: other).reset()
            reached = await code { _ = try await vault.update(credentials: Token(value: "w")) }
        case .encodingFailed:
            struct Bad: Codable, Sendable { var number: Double }
            reached = await code {
                _ = try VaultFactory<Bad>.retrieveVaultOrThrow(key: "k", configuration: configuration)
                    .storeToKeychain(credentials: Bad(number: .infinity))
            }
        case .invalidPrompt:
            let silent = VaultConfiguration(
                store: device.store, authenticator: device.authenticator, service: "codes", prompt: PromptText(reason: " \n"))
            reached = await code {
                _ = try await VaultFactory<Token>.retrieveVaultOrThrow(key: "k", configuration: silent).storeToBiometrics(credentials: token)
            }
        default:
            Issue.record("no scenario for \(expected)")
            return
        }
        #expect(reached == expected)
    }
}
