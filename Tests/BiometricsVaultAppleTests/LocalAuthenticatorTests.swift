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

@Suite("LocalAuthentication mapping")
struct LocalAuthenticationMappingTests {
    static let laErrors: [(Int, VaultError.Code)] = [
        (-1, .authenticationFailed), (-2, .userCancel), (-3, .userFallback), (-4, .systemCancel), (-5, .passcodeNotSet),
        (-6, .biometryNotAvailable), (-7, .biometryNotEnrolled), (-8, .biometryLockout), (-9, .systemCancel),
        (-10, .systemCancel), (-11, .biometryNotAvailable), (-12, .biometryNotAvailable), (-13, .biometryNotAvailable),
        (-14, .biometryNotAvailable), (-1004, .interactionNotAllowed), (-4242, .authenticationFailed),
    ]

    @Test(arguments: laErrors)
    func everyLAErrorCodeMapsAndKeepsTheCode(code: Int, expected: VaultError.Code) {
        let error = LocalAuthenticationMapping.error(code: code)
        #expect(error.code == expected)
        #expect(error.underlying == .laError(code))
    }

    @Test func theTableCoversEveryMappedCode() {
        #expect(Set(LocalAuthenticationMapping.codes.keys).isSubset(of: Set(Self.laErrors.map(\.0))))
    }

    @Test func anErrorThatIsNoLAErrorIsAFailedAuthentication() {
        #expect(LocalAuthenticationMapping.error(code: nil).code == .authenticationFailed)
    }

    @Test(arguments: [(0, BiometryType.none), (1, .touchID), (2, .faceID), (4, .opticID), (3, .none), (99, .none)])
    func biometryTypes(rawValue: Int, expected: BiometryType) {
        #expect(LocalAuthenticationMapping.biometryType(rawValue: rawValue) == expected)
    }

    @Test(arguments: [
        (ProtectionPolicy.biometryCurrentSet, LocalAuthenticationEvaluation.policy(.biometrics)),
        (.biometryAny, .policy(.biometrics)), (.userPresence, .policy(.deviceOwner)),
        (.devicePasscode, .accessControl(.devicePasscode)),
    ])
    func eachPolicyEvaluatesWhatItsAccessControlAccepts(policy: ProtectionPolicy, expected: LocalAuthenticationEvaluation) {
        #expect(LocalAuthenticationMapping.evaluation(for: policy) == expected)
    }

    @Test func promptTextsComeFromPromptTextAndBiometricPromptsHideTheFallback() {
        let bare = PromptText(reason: "Sign in")
        #expect(
            LocalAuthenticationMapping.promptTexts(bare, for: .policy(.biometrics))
                == LocalAuthenticationPromptTexts(reason: "Sign in", cancelTitle: nil, fallbackTitle: ""))
        #expect(
            LocalAuthenticationMapping.promptTexts(bare, for: .policy(.deviceOwner))
                == LocalAuthenticationPromptTexts(reason: "Sign in", cancelTitle: nil, fallbackTitle: nil))
        let full = PromptText(reason: "Sign in", cancel: "Not now", fallback: "Use Passcode")
        #expect(
            LocalAuthenticationMapping.promptTexts(full, for: .policy(.biometrics))
                == LocalAuthenticationPromptTexts(reason: "Sign in", cancelTitle: "Not now", fallbackTitle: "Use Passcode"))
    }

    @Test func enrollmentFromTheNewestSourceTaggedWithIt() throws {
        let both = EnrollmentReadings(biometryStateHash: Data([0x00, 0xFF, 0x10]), policyDomainState: Data([0x01]))
        #expect(try LocalAuthenticationMapping.enrollment(from: .init(canEvaluate: true, enrollment: both)) == EnrollmentFingerprint("bsh-00ff10"))
        let before18 = EnrollmentReadings(policyDomainState: Data([0x01]))
        #expect(try LocalAuthenticationMapping.enrollment(from: .init(canEvaluate: true, enrollment: before18)) == EnrollmentFingerprint("pds-01"))
        let long = EnrollmentReadings(biometryStateHash: Data(repeating: 7, count: 100))
        #expect(
            try LocalAuthenticationMapping.enrollment(from: .init(canEvaluate: true, enrollment: long))
                == EnrollmentFingerprint("bsh-" + EnrollmentFingerprint(hashing: Data(repeating: 7, count: 100)).value))
        let notEnrolled = LocalAuthenticationProbe(canEvaluate: false, errorCode: -7)
        #expect(try LocalAuthenticationMapping.enrollment(from: notEnrolled) == nil)
    }

    @Test(arguments: [-8, -5, -6])
    func enrollmentIsNeverGuessedWhenItCannotBeRead(code: Int) {
        let probe = LocalAuthenticationProbe(canEvaluate: false, errorCode: code)
        #expect(throws: LocalAuthenticationMapping.error(code: code)) { try LocalAuthenticationMapping.enrollment(from: probe) }
        #expect(throws: VaultError.biometryNotAvailable) {
            try LocalAuthenticationMapping.enrollment(from: LocalAuthenticationProbe(canEvaluate: true, enrollment: .none))
        }
    }
}

@Suite("LocalAuthenticator")
struct LocalAuthenticatorTests {
    @Test(arguments: [
        ("passcode not set", VaultError.Code.passcodeNotSet), ("no hardware", .biometryNotAvailable),
        ("not enrolled", .biometryNotEnrolled), ("locked out", .biometryLockout),
    ])
    func availabilityReasons(name: String, code: VaultError.Code) async {
        let device = FakeLADevice()
        device.state.withLock { state in
            switch name {
            case "passcode not set": state.passcodeSet = false
            case "no hardware": state.biometryTypeRawValue = 0
            case "not enrolled": state.enrolled = false
            default: state.lockedOut = true
            }
        }
        let availability = device.authenticator.availability(for: .biometryCurrentSet)
        #expect(availability == .unavailable(VaultError(code)), "\(name)")
        await #expect(throws: VaultError(code)) {
            _ = try await device.authenticator.authenticate(for: .biometryCurrentSet, prompt: .default)
        }
        #expect(device.evaluations.isEmpty, "no prompt when the policy cannot be evaluated")
        #expect(device.contexts.withLock { $0.allSatisfy(\.isInvalidated) })
    }

    @Test func userPresenceFallsBackToThePasscodeWhenBiometryIsLockedOut() {
        let device = FakeLADevice()
        device.state.withLock { $0.lockedOut = true }
        #expect(device.authenticator.availability(for: .userPresence) == .available)
    }

    @Test func biometryTypeIncludingOpticID() {
        let device = FakeLADevice()
        #expect(device.authenticator.biometryType == .faceID)
        device.state.withLock { $0.biometryTypeRawValue = 4 }
        #expect(device.authenticator.biometryType == .opticID)
    }

    @Test(arguments: ProtectionPolicy.allCases)
    func authenticateReturnsTheEvaluatedContextAndForbidsFurtherPrompts(policy: ProtectionPolicy) async throws {
        let device = FakeLADevice()
        let prompt = PromptText(reason: "Unlock", cancel: "Cancel", fallback: nil)
        let authorization = try await device.authenticator.authenticate(for: policy, prompt: prompt)
        let context = try #require(authorization.context as? FakeLAContext)
        let evaluation = LocalAuthenticationMapping.evaluation(for: policy)
        #expect(
            context.evaluations == [
                .init(evaluation: evaluation, prompt: LocalAuthenticationMapping.promptTexts(prompt, for: evaluation))
            ])
        #expect(context.isEvaluated)
        #expect(context.interactionForbidden)
        #expect(authorization.policy == policy)
        #expect(authorization.enrollment == (policy.requiresBiometry ? EnrollmentFingerprint("bsh-ab01") : nil))
        authorization.invalidate()
        #expect(context.isInvalidated)
    }

    @Test(arguments: [(-2, VaultError.Code.userCancel), (-3, .userFallback), (-1, .authenticationFailed), (-8, .biometryLockout), (-4, .systemCancel)])
    func failedPromptsMapAndInvalidateTheContext(code: Int, expected: VaultError.Code) async {
        let device = FakeLADevice()
        device.state.withLock { $0.outcomes = [.failure(code: code)] }
        do {
            _ = try await device.authenticator.authenticate(for: .biometryAny, prompt: .default)
            Issue.record("authenticate succeeded")
        } catch let error as VaultError {
            #expect(error.code == expected)
            #expect(error.underlying == .laError(code))
        } catch {
            Issue.record("not a VaultError: \(type(of: error))")
        }
        #expect(device.contexts.withLock { $0.allSatisfy(\.isInvalidated) })
    }

    @Test func cancellingTheTaskDismissesThePromptAndThrowsSystemCancel() async throws {
        let device = FakeLADevice()
        device.state.withLock { $0.outcomes = [nil] }  // the prompt stays up until the context is invalidated
        let authenticator = device.authenticator
        let task = Task { try await authenticator.authenticate(for: .biometryCurrentSet, prompt: .default) }
        while device.evaluations.isEmpty { await Task.yield() }
        task.cancel()
        await #expect(throws: VaultError.systemCancel) { _ = try await task.value }
        #expect(device.contexts.withLock { $0.allSatisfy(\.isInvalidated) })
    }

    @Test func authenticateOwnerUsesTheOwnerPolicyAndKeepsNoContext() async throws {
        let device = FakeLADevice()
        try await device.authenticator.authenticateOwner(prompt: PromptText(reason: "Passcode"))
        #expect(device.evaluations.map(\.evaluation) == [.policy(.deviceOwner)])
        #expect(device.contexts.withLock { $0.allSatisfy(\.isInvalidated) })
    }

    @Test func currentEnrollment() throws {
        let device = FakeLADevice()
        #expect(try device.authenticator.currentEnrollment() == EnrollmentFingerprint("bsh-ab01"))
        device.state.withLock { $0.biometryStateHash = Data([0xCD]) }
        #expect(try device.authenticator.currentEnrollment() == EnrollmentFingerprint("bsh-cd"))
        device.state.withLock { $0.biometryStateHash = nil }  // before iOS 18
        #expect(try device.authenticator.currentEnrollment() == EnrollmentFingerprint("pds-5d01"))
        device.state.withLock { $0.enrolled = false }
        #expect(try device.authenticator.currentEnrollment() == nil)
    }

    @Test func theKeychainConfigurationWiresTheAppleBackends() throws {
        let configuration = VaultConfiguration.keychain(
            policy: .userPresence, service: "com.example.app", accessGroup: "TEAM.shared", synchronizable: true)
        let store = try #require(configuration.store as? KeychainStore)
        #expect(store.accessGroup == "TEAM.shared")
        #expect(store.synchronizable)
        #expect(store.platform == .current)
        #expect(configuration.authenticator is LocalAuthenticator)
        #expect(configuration.policy == .userPresence)
        #expect(configuration.service == "com.example.app")
    }

    @Test(arguments: AuthenticatorConformance.Check.allCases)
    func conformance(_ check: AuthenticatorConformance.Check) async throws {
        let device = FakeLADevice()
        try await AuthenticatorConformance(authenticator: device.authenticator, prepareMatch: {}).run(check)
    }

    @Test func oneUnlockIsOnePromptAndLockInvalidatesTheContext() async throws {
        let device = FakeLADevice()
        let keychain = FakeKeychain(enrollment: device.enrollmentReadings)
        let configuration = VaultConfiguration(
            store: KeychainStore(platform: .iOSFamily, client: keychain), authenticator: device.authenticator,
            service: "com.example.app")
        guard case .emptyWithBiometrics(let empty) = try VaultFactory<Login>.retrieveVaultOrThrow(key: "k", configuration: configuration)
        else { Issue.record("biometrics not offered"); return }
        let stored = try await empty.storeToBiometrics(credentials: Login(user: "a", token: "1"))
        #expect(device.evaluations.count == 1)
        let firstContext = try #require(device.contexts.withLock { $0.first(where: { !$0.evaluations.isEmpty }) })
        let locked = stored.lock()
        #expect(firstContext.isInvalidated)
        let unlocked = try await locked.unlock()
        #expect(device.evaluations.count == 2)
        #expect(unlocked.credentials == Login(user: "a", token: "1"))
        // The read that opened the item used the context of that one prompt.
        let secondContext = try #require(device.contexts.withLock { $0.last(where: { !$0.evaluations.isEmpty }) })
        #expect(
            keychain.calls.contains(
                .copy(
                    Query([
                        .itemClass: .genericPassword, .service: .text("com.example.app"), .account: .text("k"),
                        .authenticationContext: .context(.evaluated(secondContext)), .returnData: .bool(true),
                        .matchLimit: .matchOne,
                    ]))))
    }
}
#endif
