#if os(Linux)
import BiometricsVaultCore
#if canImport(FoundationEssentials)
import BiometricsVaultProcess
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

/// The Linux fingerprint authenticator: a fingerprint reader driven by the real fprintd daemon over the
/// system bus, with an optional owner authenticator (PAM or polkit) for passwords.
///
/// Policies map as on Apple platforms:
/// - `.biometryCurrentSet`, `.biometryAny`: a fingerprint only.
/// - `.userPresence`: a fingerprint; the owner's password when no fingerprint can be used (no reader,
///   nothing enrolled, locked out).
/// - `.devicePasscode`: the owner's password only.
///
/// **Lockout.** fprintd does not count failures, so this authenticator does: five consecutive
/// `verify-no-match` results for the user lock fingerprints out (`biometryLockout`), across processes,
/// until ``authenticateOwner(prompt:)`` succeeds. Cancels and timeouts never count.
///
/// **Enrollment.** ``currentEnrollment()`` hashes the user, the reader's name and the sorted enrolled
/// finger *names*: adding or deleting a finger changes it, but re-enrolling the same finger does not,
/// because fprintd exposes nothing else about a print.
///
/// **Security model.** The verdict is delivered to this process by fprintd; it is a presence check, not
/// a hardware key release (see SECURITY.md).
public struct FingerprintAuthenticator: Authenticator {
    /// Who authenticates by password, or `nil` when only fingerprints are accepted.
    public let owner: (any OwnerAuthenticator)?
    /// How long one prompt waits for a finger before it ends with `systemCancel`.
    public let verifyTimeout: Duration
    /// Where the failed-attempt counter lives (0700 directory, 0600 file).
    public var stateDirectory: URL { URL(fileURLWithPath: stateDirectoryPath, isDirectory: true) }
    /// ``stateDirectory`` as a path (see ``LockoutStore``).
    private let stateDirectoryPath: String
    /// Whose prints are verified.
    public let user: String

    /// - Parameters:
    ///   - owner: the password path for `.devicePasscode`, the `.userPresence` fallback and
    ///     `reauthenticateOwner()`; `nil` for fingerprints only.
    ///   - verifyTimeout: how long one prompt waits for a finger (default 30 s).
    ///   - stateDirectory: where the lockout counter is kept; default `$XDG_STATE_HOME/biometrics-vault`.
    ///   - user: whose prints to verify; default the user running this process. Another user's prints
    ///     need polkit's `net.reactivated.fprint.device.setusername` (administrators only).
    public init(
        owner: (any OwnerAuthenticator)?, verifyTimeout: Duration = .seconds(30), stateDirectory: URL? = nil,
        user: String? = nil
    ) {
        self.owner = owner
        self.verifyTimeout = verifyTimeout
        self.stateDirectoryPath = stateDirectory?.path ?? LockoutStore.defaultDirectoryPath()
        self.user = user ?? Self.currentUserName()
    }

    /// Asks fprintd, without prompting, whether the calling user can authenticate by fingerprint.
    ///
    /// Unlike ``availability(for:)`` this also claims and releases the reader once, so it can report
    /// ``FingerprintAvailability/deviceBusy``.
    public static func probe() -> FingerprintAvailability {
        FingerprintAuthenticator(owner: nil).probe(claiming: true).reason
    }

    /// Whether the lockout counter is at its limit.
    public func isLockedOut() throws -> Bool {
        try lockout.load().isLockedOut
    }

    /// Consecutive failed fingerprint attempts recorded for ``user`` (0 after a match or owner
    /// authentication).
    public func consecutiveFailures() throws -> Int {
        try lockout.load().consecutiveFailures
    }

    // MARK: Authenticator

    public var biometryType: BiometryType {
        switch probe(claiming: false).reason {
        case .noFprintd, .noDevice: .none
        case .available, .notEnrolled, .permissionDenied, .deviceBusy: .fingerprint
        }
    }

    public func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        if policy == .devicePasscode { return ownerAvailability }
        let fingerprint = fingerprintAvailability()
        if policy == .userPresence, case .unavailable = fingerprint, owner != nil { return .available }
        return fingerprint
    }

    public func currentEnrollment() throws -> EnrollmentFingerprint? {
        let probe = probe(claiming: false, enrollment: true)
        switch probe.reason {
        case .available: return probe.enrollment
        case .notEnrolled: return nil
        case .noFprintd, .noDevice, .permissionDenied, .deviceBusy:
            throw probe.error ?? VaultError(.biometryNotAvailable)
        }
    }

    public func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        if Task.isCancelled { throw VaultError(.systemCancel, underlying: .message("task cancelled")) }
        switch policy {
        case .devicePasscode:
            try await authenticateOwner(prompt: prompt)
            return Authorization(policy: policy, enrollment: nil)
        case .userPresence:
            if case .unavailable = fingerprintAvailability(), owner != nil {
                try await authenticateOwner(prompt: prompt)
                return Authorization(policy: policy, enrollment: nil)
            }
            return try await verifyFingerprint(policy: policy)
        case .biometryCurrentSet, .biometryAny:
            return try await verifyFingerprint(policy: policy)
        }
    }

    public func authenticateOwner(prompt: PromptText) async throws {
        guard let owner else {
            throw VaultError(.passcodeNotSet, underlying: .message("no owner authenticator (PAM or polkit) configured"))
        }
        try await owner.authenticateOwner(prompt: prompt)
        try lockout.record(.ownerAuthenticated)
    }

    // MARK: Private

    private var lockout: LockoutStore { LockoutStore(directoryPath: stateDirectoryPath, user: user) }

    private var ownerAvailability: AuthenticatorAvailability {
        owner == nil
            ? .unavailable(VaultError(.passcodeNotSet, underlying: .message("no owner authenticator configured")))
            : .available
    }

    private func fingerprintAvailability() -> AuthenticatorAvailability {
        let probe = probe(claiming: false)
        if let error = probe.error { return .unavailable(error) }
        do {
            if try lockout.load().isLockedOut { return .unavailable(lockoutError) }
        } catch {
            return .unavailable(error)
        }
        return .available
    }

    private var lockoutError: VaultError {
        VaultError(.biometryLockout, underlying: .message(
            "\(FailedAttemptCounter.limit) failed fingerprint attempts; authenticate with the password"))
    }

    /// The user name fprintd expects: `""` (the caller) when it is us, so no `setusername` is needed.
    private var fprintdUser: String { user == Self.currentUserName() ? "" : user }

    package struct Probe: Sendable {
        package var reason: FingerprintAvailability
        var underlying: VaultError.Underlying?
        package var enrollment: EnrollmentFingerprint?
        package var error: VaultError? { reason.error.map { VaultError($0.code, underlying: underlying ?? $0.underlying) } }
    }

    /// Reads the reader and the user's enrolled fingers; with `enrollment`, also the reader's name (one
    /// more call) for ``Probe/enrollment``; with `claiming`, also claims and releases it. Availability
    /// needs neither: it is asked at every `retrieveVault`.
    package func probe(claiming: Bool, enrollment needsEnrollment: Bool = false) -> Probe {
        do throws(FprintdFailure) {
            if !claiming && !needsEnrollment {
                let fingers = try FprintdDevice.enrolledFingersOnDefaultReader(user: fprintdUser)
                return Probe(reason: fingers.isEmpty ? .notEnrolled : .available)
            }
            let device = try FprintdDevice.openDefault()
            let fingers = try device.enrolledFingers(user: fprintdUser)
            if fingers.isEmpty { return Probe(reason: .notEnrolled) }
            let enrollment = needsEnrollment
                ? Self.enrollment(user: user, device: try device.name(), fingers: fingers) : nil
            if claiming {
                try device.claim(user: fprintdUser)
                device.release()
            }
            return Probe(reason: .available, enrollment: enrollment)
        } catch {
            return Probe(reason: error.reason, underlying: error.underlying)
        }
    }

    /// hash(user, reader name, sorted finger names), NUL-separated.
    static func enrollment(user: String, device: String, fingers: [String]) -> EnrollmentFingerprint {
        let fields = [user, device] + fingers.sorted()
        return EnrollmentFingerprint(hashing: Array(fields.joined(separator: "\u{0}").utf8))
    }

    private func verifyFingerprint(policy: ProtectionPolicy) async throws -> Authorization {
        let lockout = self.lockout
        if try lockout.load().isLockedOut { throw lockoutError }
        let user = self.user
        let fprintdUser = self.fprintdUser
        let timeout = verifyTimeout
        let stop = StopRequest()
        let outcome = try await withTaskCancellationHandler {
            try await DedicatedThread.run(name: "fprintd-verify") { () throws(VaultError) -> VerifyOutcome in
                do throws(FprintdFailure) {
                    let device = try FprintdDevice.openDefault()
                    defer { device.release() }
                    try device.claimWaitingBriefly(user: fprintdUser)
                    let fingers = try device.enrolledFingers(user: fprintdUser)
                    if fingers.isEmpty { throw FprintdFailure(.notEnrolled, underlying: .message("no finger enrolled")) }
                    let enrollment = Self.enrollment(user: user, device: try device.name(), fingers: fingers)
                    if stop.reason != nil { return VerifyOutcome(result: .stopped(.taskCancelled), enrollment: enrollment) }
                    let result = try device.verify(timeout: timeout, stop: stop)
                    return VerifyOutcome(result: result, enrollment: enrollment)
                } catch {
                    throw error.vaultError
                }
            }
        } onCancel: {
            stop.stop(.taskCancelled)
        }
        switch outcome.result {
        case .match:
            try lockout.record(.match)
            return Authorization(policy: policy, enrollment: outcome.enrollment)
        case .noMatch:
            let counter = try lockout.record(.noMatch)
            if counter.isLockedOut { throw lockoutError }
            throw VaultError(.authenticationFailed, underlying: .message(
                "fingerprint did not match (\(counter.consecutiveFailures) of \(FailedAttemptCounter.limit))"))
        case .hardwareError(let status):
            throw VaultError(.biometryNotAvailable, underlying: .dbus(
                name: "net.reactivated.Fprint.Device.VerifyStatus", message: status))
        case .stopped:
            try lockout.record(.cancelled)
            throw VaultError(.systemCancel, underlying: .message("task cancelled; fingerprint verification stopped"))
        case .timedOut:
            throw VaultError(.systemCancel, underlying: .message(
                "no finger on the reader within \(timeout); fingerprint verification stopped"))
        }
    }

    private struct VerifyOutcome: Sendable {
        var result: FprintdVerifyResult
        var enrollment: EnrollmentFingerprint
    }

    static func currentUserName() -> String {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return "\(geteuid())" }
        return String(cString: name)
    }
}
#endif
