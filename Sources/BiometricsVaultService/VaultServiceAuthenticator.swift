#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultProcess
import Glibc

/// The vault service's authentication, for ``VaultServiceStore``: the service itself verifies the
/// caller's finger through fprintd, or the caller's password through polkit (the caller's own
/// authentication agent asks for it), counts failed attempts and keeps the lockout, per user. This
/// process only receives the outcome: on success a grant the service honours for this process's
/// connection alone; on failure the typed error (`userCancel`, `authenticationFailed`,
/// `biometryLockout`, `biometryChanged`, `biometryNotAvailable`, `biometryNotEnrolled`, ...).
///
/// With `startsTerminalAgent`, a password check on a terminal runs polkit's text agent (`pkttyagent`)
/// for this process while it waits, so polkit can ask on the terminal where no desktop agent runs.
public struct VaultServiceAuthenticator: Authenticator, CheckAnnouncingAuthenticator {
    /// How long one prompt may take (a finger, or a password typed into the agent).
    public let timeout: Duration
    /// Whether a password prompt starts `pkttyagent` for this process on its controlling terminal.
    public let startsTerminalAgent: Bool
    /// The item service whose unlock windows this authenticator uses and opens.
    public let service: String
    /// The unlock window a successful prompt asks the service to open for this process's terminal
    /// session, `service` and the policy, in seconds; 0 for none. Inside an open window the service
    /// grants without a prompt.
    public let windowSeconds: Int
    /// Whom a window this authenticator's prompt opens admits.
    public let windowScope: WindowScope

    /// Whom an unlock window admits.
    public enum WindowScope: String, Sendable {
        /// The processes of this process's terminal session, for the prompt's policy.
        case terminal
        /// This process and its descendants, for as long as this process runs (it then becomes a
        /// command with `execve`, as `biometrics-vault unlock --for-command` does), for every policy the
        /// prompt satisfied.
        case command
    }

    public init(
        timeout: Duration = .seconds(150), startsTerminalAgent: Bool = false, service: String = "", windowSeconds: Int = 0,
        windowScope: WindowScope = .terminal
    ) {
        self.timeout = timeout
        self.startsTerminalAgent = startsTerminalAgent
        self.service = service
        self.windowSeconds = windowSeconds
        self.windowScope = windowScope
    }

    /// Closes every unlock window of this user in the service; how many were open.
    package static func lock() throws(VaultError) -> Int {
        Int(try VaultServiceConnection.call(.lock, timeout: VaultServiceInterface.callTimeout)[0].uint32 ?? 0)
    }

    /// This user's audit entries (JSON objects, one per string) since `since` (seconds since the epoch).
    package static func audit(since: Int64) throws(VaultError) -> [String] {
        try VaultServiceConnection.call(.audit(since: UInt64(max(0, since))), timeout: VaultServiceInterface.callTimeout)[0].strings ?? []
    }

    /// What the service says about the caller's fingerprint and password, without prompting.
    ///
    /// One read of an item asks several questions of the authenticator in the same instant (the enrolled
    /// set, the biometry type, the lockout), and each `Status` costs the service an fprintd call that
    /// fprintd checks with polkit (about 20 ms). So an answer younger than ``statusLifetime`` is reused,
    /// and every prompt drops it: a prompt is what changes the failure count. The answer only routes the
    /// request; the service enforces the policy whatever the client believed.
    package static func status() throws(VaultError) -> VaultServiceStatus {
        let now = ContinuousClock.now
        if let (status, at) = recentStatus.withLock({ $0 }), now - at <= statusLifetime { return status }
        let status = VaultServiceStatus(try VaultServiceConnection.call(.status, timeout: VaultServiceInterface.callTimeout)[0])
        recentStatus.withLock { $0 = (status, now) }
        if !status.caller.isEmpty { callerSeen.withLock { $0 = status.caller } }
        return status
    }

    /// This process as the service described it in its last `Status` (its name, `argv[0]` and parents),
    /// for a prompt; `nil` before the first.
    package static var caller: String? { callerSeen.withLock { $0 } }
    private static let callerSeen = LockedValue<String?>(nil)

    /// How long one `Status` answer is reused.
    package static let statusLifetime: Duration = .seconds(1)
    private static let recentStatus = LockedValue<(VaultServiceStatus, ContinuousClock.Instant)?>(nil)

    public var biometryType: BiometryType {
        guard let status = try? Self.status() else { return .none }
        return ["noFprintd", "noReader"].contains(status.biometry) ? .none : .fingerprint
    }

    public func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        let status: VaultServiceStatus
        do { status = try Self.status() } catch { return .unavailable(error) }
        let password: AuthenticatorAvailability = status.owner == "ready"
            ? .available
            : .unavailable(VaultError(.passcodeNotSet, underlying: .message("the vault service cannot ask for a password: polkit is \(status.owner)")))
        switch policy {
        case .devicePasscode: return password
        case .userPresence:
            if case .available = Self.fingerprint(status) { return .available }
            return password
        case .biometryAny, .biometryCurrentSet: return Self.fingerprint(status)
        }
    }

    public func currentEnrollment() throws -> EnrollmentFingerprint? {
        let status = try Self.status()
        switch status.biometry {
        case "available", "lockedOut":
            guard let enrollment = status.enrollment else {
                throw VaultError(.biometryNotAvailable, underlying: .message("the vault service did not report the enrolled fingers"))
            }
            return enrollment
        case "notEnrolled": return nil
        default: throw Self.fingerprintError(status.biometry)
        }
    }

    public func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        try await authenticate(for: policy, prompt: prompt, checkStarted: { _ in })
    }

    /// Inside an open window the service answers without a check: `checkStarted` is called only for a
    /// check the service says it began for this call (its `CheckStarted` signal).
    package func authenticate(
        for policy: ProtectionPolicy, prompt: PromptText, checkStarted: @escaping @Sendable (AuthenticationCheck) -> Void
    ) async throws -> Authorization {
        let needsPassword = policy == .devicePasscode
            || (policy == .userPresence && (try? Self.status().biometry) != "available")
        let reply = try await prompting(withAgent: needsPassword) { cancellation throws(VaultError) in
            try VaultServiceConnection.call(
                .authenticate(
                    policy: policy.rawValue, reason: prompt.reason, service: service, windowSeconds: UInt32(clamping: windowSeconds),
                    scope: windowScope.rawValue),
                timeout: timeout, cancellation: cancellation
            ) { check, reason in
                if reason == prompt.reason { checkStarted(check) }
            }
        }
        var token = reply[0].bytes ?? []
        defer { token.zeroize() }
        guard token.count == 32 else {
            throw VaultError(.authenticationFailed, underlying: .message("the vault service returned no grant"))
        }
        let enrollment = reply[1].string.flatMap { $0.isEmpty ? nil : EnrollmentFingerprint($0) }
        return Authorization(policy: policy, enrollment: enrollment, context: VaultServiceGrant(token: SecretBytes(token)))
    }

    public func authenticateOwner(prompt: PromptText) async throws {
        _ = try await prompting(withAgent: true) { cancellation throws(VaultError) in
            try VaultServiceConnection.call(.authenticateOwner(reason: prompt.reason), timeout: timeout, cancellation: cancellation)
        }
    }

    // MARK: Private

    /// Runs one prompting call on a thread of its own (it blocks until a person answers), with the text
    /// agent for the password when asked; a cancelled task cancels the call and tells the service to stop
    /// the prompt.
    private func prompting(
        withAgent: Bool, _ call: @escaping @Sendable (DBusCancellation) throws(VaultError) -> DBusValue
    ) async throws(VaultError) -> DBusValue {
        if Task.isCancelled { throw VaultError(.systemCancel, underlying: .message("task cancelled")) }
        Self.recentStatus.withLock { $0 = nil }
        defer { Self.recentStatus.withLock { $0 = nil } }
        let agent = withAgent && startsTerminalAgent ? PolkitTextAgent.start() : nil
        defer { agent?.stop() }
        let cancellation = DBusCancellation()
        // Its own thread: a prompt can take minutes, which must not hold a thread of Swift's cooperative pool.
        let result: Result<DBusValue, VaultError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let started = DedicatedThread.start(name: "vault-prompt") {
                    do throws(VaultError) {
                        continuation.resume(returning: .success(try call(cancellation)))
                    } catch {
                        continuation.resume(returning: .failure(error))
                    }
                }
                if started != 0 {
                    continuation.resume(returning: .failure(VaultError(.systemCancel, underlying: .message("no thread for the prompt"))))
                }
            }
        } onCancel: {
            cancellation.cancel()
            _ = try? VaultServiceConnection.call(.cancelAuthentication, timeout: .seconds(2))
        }
        return try result.get()
    }

    private static func fingerprint(_ status: VaultServiceStatus) -> AuthenticatorAvailability {
        status.biometry == "available" ? .available : .unavailable(fingerprintError(status.biometry))
    }

    private static func fingerprintError(_ biometry: String) -> VaultError {
        switch biometry {
        case "notEnrolled": VaultError(.biometryNotEnrolled, underlying: .message("no finger is enrolled for this user"))
        case "lockedOut":
            VaultError(.biometryLockout, underlying: .message(
                "\(FailedAttemptCounter.limit) failed fingerprint attempts; authenticate with the password"))
        case "deviceBusy": VaultError(.systemCancel, underlying: .message("the fingerprint reader is in use by another process"))
        case "permissionDenied": VaultError(.biometryNotAvailable, underlying: .message("polkit denied the vault service the fingerprint reader"))
        case "noReader": VaultError(.biometryNotAvailable, underlying: .message("fprintd has no fingerprint reader"))
        default: VaultError(.biometryNotAvailable, underlying: .message("fprintd is not running on the system bus"))
        }
    }
}

#endif
