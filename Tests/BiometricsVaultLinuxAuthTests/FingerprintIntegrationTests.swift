#if os(Linux)
@testable import BiometricsVaultLinuxAuth
import BiometricsVaultCore
import BiometricsVaultProcess
import BiometricsVaultTestSupport
import BiometricsVaultTesting
import Foundation
import Testing

extension LinuxAuthIntegration {
    /// Fingerprint authentication against the REAL fprintd (libfprint's virtual sensor), plus PAM for the
    /// lockout recovery. Serialized with the other suites (see ``LinuxAuthIntegration``).
    ///
    /// Finger ids on the sensor: `<user>-finger-a` is enrolled as the right index finger; anything else is a
    /// stranger's finger.
    @Suite struct FingerprintIntegrationTests {
        static let enrolledID = "\(Harness.fingerIDPrefix)-finger-a"
        static let strangerID = "finger-stranger"

        let stateDirectory = Harness.temporaryStateDirectory()

        func authenticator(owner: (any OwnerAuthenticator)? = nil, timeout: Duration = .seconds(20)) -> FingerprintAuthenticator {
            FingerprintAuthenticator(owner: owner, verifyTimeout: timeout, stateDirectory: stateDirectory)
        }

        static func passwordOwner(_ password: String? = Harness.testPassword) -> PAMOwnerAuthenticator {
            PAMOwnerAuthenticator(user: Harness.testUser) { message in message.isPrompt ? password : nil }
        }

        func enrollOneFinger() async throws {
            try await Enrollment.reset(to: [("right-index-finger", Self.enrolledID)])
        }

        @Test(.needs(Harness.fingerprint))
        func nothingEnrolledIsBiometryNotEnrolled() async throws {
            try await Enrollment.deleteAll()
            let fingerprint = authenticator()
            #expect(FingerprintAuthenticator.probe() == .notEnrolled)
            #expect(fingerprint.availability(for: .biometryAny) == .unavailable(.biometryNotEnrolled))
            #expect(try fingerprint.currentEnrollment() == nil)
            #expect(fingerprint.biometryType == .fingerprint)
            await #expect(throws: VaultError.biometryNotEnrolled) {
                try await fingerprint.authenticate(for: .biometryAny, prompt: .default)
            }
        }

        @Test(.needs(Harness.fingerprint))
        func matchingFingerAuthenticates() async throws {
            try await enrollOneFinger()
            let fingerprint = authenticator()
            #expect(FingerprintAuthenticator.probe() == .available)
            #expect(fingerprint.availability(for: .biometryCurrentSet) == .available)
            let injection = VirtualSensor.whenFingerNeeded("SCAN \(Self.enrolledID)")
            let authorization = try await fingerprint.authenticate(for: .biometryCurrentSet, prompt: .default)
            #expect(authorization.isValid)
            #expect(authorization.policy == .biometryCurrentSet)
            #expect(authorization.enrollment != nil)
            #expect(authorization.enrollment == (try fingerprint.currentEnrollment()))
            #expect(try fingerprint.consecutiveFailures() == 0)
            #expect(try #require(await injection.wait()).isSuccess)
        }

        @Test(.needs(Harness.fingerprint))
        func strangersFingerIsAuthenticationFailedAndCounts() async throws {
            try await enrollOneFinger()
            let fingerprint = authenticator()
            VirtualSensor.whenFingerNeeded("SCAN \(Self.strangerID)")
            let error = await #expect(throws: VaultError.authenticationFailed) {
                try await fingerprint.authenticate(for: .biometryAny, prompt: .default)
            }
            #expect(error?.underlying != nil)
            #expect(try fingerprint.consecutiveFailures() == 1)
            // A match resets the count.
            VirtualSensor.whenFingerNeeded("SCAN \(Self.enrolledID)")
            _ = try await fingerprint.authenticate(for: .biometryAny, prompt: .default)
            #expect(try fingerprint.consecutiveFailures() == 0)
        }

        @Test(.needs(Harness.fingerprint, Harness.pam))
        func fiveMissesLockOutUntilThePasswordIsGiven() async throws {
            try await enrollOneFinger()
            let fingerprint = authenticator(owner: Self.passwordOwner())
            for attempt in 1...FailedAttemptCounter.limit {
                VirtualSensor.whenFingerNeeded("SCAN \(Self.strangerID)-\(attempt)")
                let expected: VaultError = attempt < FailedAttemptCounter.limit ? .authenticationFailed : .biometryLockout
                await #expect(throws: expected) {
                    try await fingerprint.authenticate(for: .biometryAny, prompt: .default)
                }
            }
            #expect(try fingerprint.isLockedOut())
            // Another process sees the same lockout (the counter is a file), and no prompt is shown.
            let sameUserElsewhere = authenticator()
            #expect(sameUserElsewhere.availability(for: .biometryCurrentSet) == .unavailable(.biometryLockout))
            await #expect(throws: VaultError.biometryLockout) {
                try await sameUserElsewhere.authenticate(for: .biometryAny, prompt: .default)
            }
            // userPresence falls back to the password while fingerprints are locked out.
            #expect(fingerprint.availability(for: .userPresence) == .available)

            try await fingerprint.authenticateOwner(prompt: .default)
            #expect(try !fingerprint.isLockedOut())
            VirtualSensor.whenFingerNeeded("SCAN \(Self.enrolledID)")
            let authorization = try await fingerprint.authenticate(for: .biometryAny, prompt: .default)
            #expect(authorization.isValid)
        }

        @Test(.needs(Harness.fingerprint))
        func lockoutStateFileIsPrivate() async throws {
            try await enrollOneFinger()
            let fingerprint = authenticator()
            VirtualSensor.whenFingerNeeded("SCAN \(Self.strangerID)")
            await #expect(throws: VaultError.authenticationFailed) {
                try await fingerprint.authenticate(for: .biometryAny, prompt: .default)
            }
            let file = LockoutStore(directoryPath: stateDirectory.path, user: fingerprint.user).filePath
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }

        @Test(.needs(Harness.fingerprint), arguments: ["RETRY 0", "RETRY 1", "RETRY 2", "RETRY 3"])
        func retryFeedbackThenMatchSucceeds(retry: String) async throws {
            try await enrollOneFinger()
            let fingerprint = authenticator()
            VirtualSensor.whenFingerNeeded(retry, "SCAN \(Self.enrolledID)")
            let authorization = try await fingerprint.authenticate(for: .biometryAny, prompt: .default)
            #expect(authorization.isValid)
            #expect(try fingerprint.consecutiveFailures() == 0)
        }

        @Test(.needs(Harness.fingerprint), arguments: [("ERROR 5", "verify-disconnected"), ("ERROR 0", "verify-unknown-error")])
        func sensorErrorIsATypedError(command: String, status: String) async throws {
            try await enrollOneFinger()
            let fingerprint = authenticator()
            VirtualSensor.whenFingerNeeded(command)
            let error = await #expect(throws: VaultError.biometryNotAvailable) {
                try await fingerprint.authenticate(for: .biometryAny, prompt: .default)
            }
            #expect(error?.underlying?.dbusText.contains(status) == true)
            #expect(try fingerprint.consecutiveFailures() == 0)
            // The reader was released: the next prompt works.
            VirtualSensor.whenFingerNeeded("SCAN \(Self.enrolledID)")
            _ = try await fingerprint.authenticate(for: .biometryAny, prompt: .default)
        }

        @Test(.needs(Harness.fingerprint))
        func cancellingTheTaskStopsTheVerifyAndNeverCounts() async throws {
            try await enrollOneFinger()
            let fingerprint = authenticator()
            // One real miss first, so "unchanged" is visibly not "reset".
            VirtualSensor.whenFingerNeeded("SCAN \(Self.strangerID)")
            await #expect(throws: VaultError.authenticationFailed) {
                try await fingerprint.authenticate(for: .biometryAny, prompt: .default)
            }
            #expect(try fingerprint.consecutiveFailures() == 1)

            let task = Task { try await fingerprint.authenticate(for: .biometryAny, prompt: .default) }
            try await waitUntilFingerNeeded()
            task.cancel()
            let result = await task.result
            #expect(throws: VaultError.systemCancel) { try result.get() }
            #expect(try fingerprint.consecutiveFailures() == 1)
            // fprintd 1.94's spurious verify-no-match after VerifyStop must not have counted either, and
            // the reader is free again.
            VirtualSensor.whenFingerNeeded("SCAN \(Self.enrolledID)")
            _ = try await fingerprint.authenticate(for: .biometryAny, prompt: .default)
            #expect(try fingerprint.consecutiveFailures() == 0)
        }

        @Test(.needs(Harness.fingerprint))
        func verifyTimeoutIsATypedErrorAndNeverCounts() async throws {
            try await enrollOneFinger()
            let fingerprint = authenticator(timeout: .seconds(1))
            let error = await #expect(throws: VaultError.systemCancel) {
                try await fingerprint.authenticate(for: .biometryAny, prompt: .default)
            }
            #expect(error?.underlying?.description.contains("no finger") == true)
            #expect(try fingerprint.consecutiveFailures() == 0)
        }

        @Test(.needs(Harness.fingerprint))
        func aSecondClaimantGetsDeviceBusy() async throws {
            try await enrollOneFinger()
            let fingerprint = authenticator()
            let task = Task { try await fingerprint.authenticate(for: .biometryAny, prompt: .default) }
            try await waitUntilFingerNeeded()
            #expect(FingerprintAuthenticator.probe() == .deviceBusy)
            let busy = await #expect(throws: VaultError.systemCancel) {
                try await authenticator().authenticate(for: .biometryAny, prompt: .default)
            }
            #expect(busy?.underlying?.dbusText.contains("AlreadyInUse") == true)
            try VirtualSensor.send("SCAN \(Self.enrolledID)")
            _ = try await task.value
        }

        @Test(.needs(Harness.fingerprint, Harness.pam))
        func devicePasscodeUsesThePasswordOnly() async throws {
            let fingerprint = authenticator(owner: Self.passwordOwner())
            let authorization = try await fingerprint.authenticate(for: .devicePasscode, prompt: .default)
            #expect(authorization.enrollment == nil)
            let fingerprintOnly = authenticator()
            #expect(fingerprintOnly.availability(for: .devicePasscode) == .unavailable(.passcodeNotSet))
            await #expect(throws: VaultError.passcodeNotSet) {
                try await fingerprintOnly.authenticate(for: .devicePasscode, prompt: .default)
            }
        }

        @Test(.needs(Harness.fingerprint, Harness.pam))
        func userPresenceFallsBackToThePasswordWhenNothingIsEnrolled() async throws {
            try await Enrollment.deleteAll()
            let fingerprint = authenticator(owner: Self.passwordOwner())
            #expect(fingerprint.availability(for: .userPresence) == .available)
            let authorization = try await fingerprint.authenticate(for: .userPresence, prompt: .default)
            #expect(authorization.enrollment == nil)
            let wrongPassword = authenticator(owner: Self.passwordOwner("not-the-password"))
            await #expect(throws: VaultError.authenticationFailed) {
                try await wrongPassword.authenticate(for: .userPresence, prompt: .default)
            }
        }

        /// uid 0 is always authorized by fprintd: the denial is real only for the non-root test user.
        @Test(.needs(Harness.fingerprint), .enabled(if: Harness.runsAsTestUser, Harness.asTestUserOnly))
        func anotherUsersPrintsAreDenied() async throws {
            let someoneElse = FingerprintAuthenticator(owner: nil, stateDirectory: stateDirectory, user: Harness.otherUser)
            #expect(someoneElse.probe(claiming: true).reason == .permissionDenied)
            let error = await #expect(throws: VaultError.biometryNotAvailable) {
                try await someoneElse.authenticate(for: .biometryAny, prompt: .default)
            }
            #expect(error?.underlying?.dbusText.contains("PermissionDenied") == true)
        }

        // MARK: Conformance

        @Test(.needs(Harness.fingerprint), arguments: AuthenticatorConformance.Check.allCases)
        func conformance(check: AuthenticatorConformance.Check) async throws {
            try await enrollOneFinger()
            let suite = AuthenticatorConformance(authenticator: authenticator()) {
                VirtualSensor.whenFingerNeeded("SCAN \(Self.enrolledID)")
            }
            try await suite.run(check)
        }

        @Test(.needs(Harness.fingerprint))
        func conformanceWhenNothingIsEnrolled() async throws {
            try await Enrollment.deleteAll()
            let suite = AuthenticatorConformance(authenticator: authenticator()) {
                Issue.record("prepareMatch must not be called while nothing is enrolled")
            }
            try await suite.runAll()
        }

        // MARK: Helpers

        func waitUntilFingerNeeded() async throws {
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                let needed = try await DedicatedThread.run(name: "finger-needed") { () throws(VaultError) -> Bool in
                    do throws(FprintdFailure) { return try FprintdDevice.openDefault().fingerNeeded() } catch {
                        throw error.vaultError
                    }
                }
                if needed { return }
                try await Task.sleep(for: .milliseconds(30))
            }
            Issue.record("fprintd never asked for a finger")
        }
    }
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
#endif
