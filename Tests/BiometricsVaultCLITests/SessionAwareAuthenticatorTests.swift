import BiometricsVault
import BiometricsVaultTesting
import BiometricsVaultTestSupport
import Testing

/// The library's session routing (``SessionAwareAuthenticator``), in process over a simulated reader: who
/// is asked for what over SSH, after a lockout, and when no reader answers.
@Suite(.onTestThreads) struct SessionAwareAuthenticatorTests {
    static let guidance = SessionAwareAuthenticator.Guidance(lockoutWayOut: "WAY-OUT", readerDiagnosis: "DIAGNOSIS")

    /// A fingerprint device, locked out after 5 failed attempts when `lockedOut`.
    static func device(lockedOut: Bool) async -> SimulatedDevice {
        let device = SimulatedDevice(biometryType: .fingerprint)
        guard lockedOut else { return device }
        for _ in 0..<FailedAttemptCounter.limit {
            device.enqueue(.noMatch)
            _ = try? await device.authenticator.authenticate(for: .biometryAny, prompt: PromptText(reason: "fail"))
        }
        return device
    }

    static func authenticator(_ device: SimulatedDevice, remote: Bool, ownerUsable: Bool, announced: LockedValue<[String]> = LockedValue([]))
        -> SessionAwareAuthenticator
    {
        SessionAwareAuthenticator(
            prompting: device.authenticator, platform: device.authenticator,
            session: SessionKind(isRemote: remote, ownerAuthenticationUsable: ownerUsable), guidance: guidance,
            announce: { line in announced.withLock { $0.append(line) } })
    }

    /// The error `body` threw, or `nil`: the body's value goes to `check`.
    static func thrown<Value>(_ body: () async throws -> Value, check: (Value) -> Void = { _ in }) async -> VaultError? {
        do {
            check(try await body())
            return nil
        } catch let error as VaultError {
            return error
        } catch {
            Issue.record("not a VaultError: \(error)")
            return nil
        }
    }

    struct Route: Sendable, CustomTestStringConvertible {
        var remote: Bool
        var ownerUsable: Bool
        var lockedOut: Bool
        var policy: ProtectionPolicy
        /// `nil`: authorized.
        var error: VaultError.Code?
        var fingerPrompts: Int
        var ownerPrompts: Int
        var testDescription: String {
            "\(remote ? "remote" : "local"), owner \(ownerUsable ? "usable" : "unusable"), \(lockedOut ? "locked out, " : "")\(policy)"
        }
    }

    @Test("each session routes to the prompt its user can answer", arguments: [
        Route(remote: false, ownerUsable: true, lockedOut: false, policy: .biometryCurrentSet, error: nil, fingerPrompts: 1, ownerPrompts: 0),
        Route(remote: false, ownerUsable: true, lockedOut: false, policy: .devicePasscode, error: nil, fingerPrompts: 0, ownerPrompts: 1),
        // Over SSH the reader is never waited for.
        Route(remote: true, ownerUsable: true, lockedOut: false, policy: .biometryCurrentSet, error: .biometryNotAvailable, fingerPrompts: 0, ownerPrompts: 0),
        Route(remote: true, ownerUsable: true, lockedOut: false, policy: .biometryAny, error: .biometryNotAvailable, fingerPrompts: 0, ownerPrompts: 0),
        Route(remote: true, ownerUsable: true, lockedOut: false, policy: .userPresence, error: nil, fingerPrompts: 0, ownerPrompts: 1),
        Route(remote: true, ownerUsable: false, lockedOut: false, policy: .userPresence, error: .interactionNotAllowed, fingerPrompts: 0, ownerPrompts: 0),
        // Locked out: the password clears the lockout, then the finger is asked once more.
        Route(remote: false, ownerUsable: true, lockedOut: true, policy: .biometryAny, error: nil, fingerPrompts: 1, ownerPrompts: 1),
        Route(remote: false, ownerUsable: true, lockedOut: true, policy: .biometryCurrentSet, error: nil, fingerPrompts: 1, ownerPrompts: 1),
        Route(remote: false, ownerUsable: false, lockedOut: true, policy: .biometryAny, error: .biometryLockout, fingerPrompts: 0, ownerPrompts: 0),
    ])
    func routes(_ route: Route) async throws {
        let device = await Self.device(lockedOut: route.lockedOut)
        let fingersBefore = device.biometricPromptCount
        let announced = LockedValue<[String]>([])
        let authenticator = Self.authenticator(device, remote: route.remote, ownerUsable: route.ownerUsable, announced: announced)
        let error = await Self.thrown {
            try await authenticator.authenticate(for: route.policy, prompt: PromptText(reason: "Open the item"))
        } check: { authorization in
            #expect(authorization.policy == route.policy)
        }
        #expect(error?.code == route.error, "\(String(describing: error))")
        #expect(device.biometricPromptCount - fingersBefore == route.fingerPrompts)
        #expect(device.ownerPromptCount == route.ownerPrompts)
        // Only a lockout recovered with the password is announced, once, before its prompt.
        #expect(announced.withLock { $0.count } == (route.lockedOut && route.error == nil ? 1 : 0))
        if route.error == .biometryLockout {
            #expect(error?.underlying?.description.hasSuffix("WAY-OUT") == true, "\(String(describing: error))")
        }
    }

    @Test("a remote session reports fingerprint-only policies unavailable, without asking the reader", arguments: ProtectionPolicy.allCases)
    func remoteAvailability(policy: ProtectionPolicy) async {
        let device = await Self.device(lockedOut: false)
        let availability = Self.authenticator(device, remote: true, ownerUsable: true).availability(for: policy)
        switch policy {
        case .biometryAny, .biometryCurrentSet:
            guard case .unavailable(let error) = availability else {
                Issue.record("available over SSH")
                return
            }
            #expect(error.code == .biometryNotAvailable)
        case .userPresence, .devicePasscode:
            #expect(availability.isAvailable)
        }
    }

    struct Clearing: Sendable, CustomTestStringConvertible {
        var lockedOut: Bool
        var ownerUsable: Bool
        var ownerAnswer: SimulatedPromptResult
        /// What `clearLockout()` returns; `nil` when it throws `error`.
        var clearance: SessionAwareAuthenticator.LockoutClearance?
        var error: VaultError.Code?
        var lockedOutAfter: Bool
        var ownerPrompts: Int
        var testDescription: String {
            "\(lockedOut ? "locked out" : "not locked out"), owner \(ownerUsable ? "usable, answers \(ownerAnswer)" : "unusable")"
        }
    }

    @Test("clearLockout asks the owner only when locked out, and the lockout ends only on the right password", arguments: [
        Clearing(lockedOut: false, ownerUsable: true, ownerAnswer: .match, clearance: .notLockedOut, error: nil, lockedOutAfter: false, ownerPrompts: 0),
        Clearing(lockedOut: false, ownerUsable: false, ownerAnswer: .match, clearance: .notLockedOut, error: nil, lockedOutAfter: false, ownerPrompts: 0),
        Clearing(lockedOut: true, ownerUsable: true, ownerAnswer: .match, clearance: .cleared, error: nil, lockedOutAfter: false, ownerPrompts: 1),
        Clearing(lockedOut: true, ownerUsable: true, ownerAnswer: .noMatch, clearance: nil, error: .authenticationFailed, lockedOutAfter: true, ownerPrompts: 1),
        Clearing(lockedOut: true, ownerUsable: true, ownerAnswer: .userCancel, clearance: nil, error: .userCancel, lockedOutAfter: true, ownerPrompts: 1),
        Clearing(lockedOut: true, ownerUsable: false, ownerAnswer: .match, clearance: nil, error: .interactionNotAllowed, lockedOutAfter: true, ownerPrompts: 0),
    ])
    func clearLockout(_ clearing: Clearing) async {
        let device = await Self.device(lockedOut: clearing.lockedOut)
        device.enqueueOwner(clearing.ownerAnswer)
        let authenticator = Self.authenticator(device, remote: false, ownerUsable: clearing.ownerUsable)
        #expect(authenticator.isLockedOut == clearing.lockedOut)
        var clearance: SessionAwareAuthenticator.LockoutClearance?
        let error = await Self.thrown { try await authenticator.clearLockout() } check: { clearance = $0 }
        #expect(clearance == clearing.clearance)
        #expect(error?.code == clearing.error, "\(String(describing: error))")
        #expect(device.isLockedOut == clearing.lockedOutAfter)
        #expect(device.ownerPromptCount == clearing.ownerPrompts)
        #expect(authenticator.isLockedOut == clearing.lockedOutAfter)
    }

    @Test("no reader to ask for a fingerprint-only item: the error keeps its code and says the item is kept",
        arguments: [ProtectionPolicy.biometryAny, .biometryCurrentSet])
    func readerUnanswered(policy: ProtectionPolicy) async {
        let device = SimulatedDevice(biometryType: .none)
        let authenticator = Self.authenticator(device, remote: false, ownerUsable: true)
        let error = await Self.thrown { try await authenticator.authenticate(for: policy, prompt: PromptText(reason: "Open the item")) }
        #expect(error?.code == .biometryNotAvailable)
        let message = error?.underlying?.description ?? ""
        #expect(message.hasSuffix("; the item is kept: it opens with a finger once the fingerprint reader can be asked (DIAGNOSIS)"), "\(message)")
        #expect(device.promptCount == 0)
    }

    @Test("owner authentication is usable with polkit, never with none; PAM needs a terminal", arguments: ["polkit", "none", "pam"])
    func sessionKind(ownerAuthenticationName: String) {
        let kind = SessionKind.current(ownerAuthenticationName: ownerAuthenticationName)
        #expect(kind.isRemote == (RemoteSession.variable() != nil))
        switch ownerAuthenticationName {
        case "polkit": #expect(kind.ownerAuthenticationUsable)
        case "none": #expect(!kind.ownerAuthenticationUsable)
        default: #expect(kind.ownerAuthenticationUsable == PlatformInteraction.terminal.hasTerminal)
        }
    }
}
