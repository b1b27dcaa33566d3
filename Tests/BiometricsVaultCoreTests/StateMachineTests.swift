@testable import BiometricsVaultCore
import Testing

struct StateMachineTests {
    typealias Action = VaultStateMachine.Action

    static let active = SessionSnapshot(isActive: true, isReusable: false)
    static let reusable = SessionSnapshot(isActive: true, isReusable: true)
    static let locked = SessionSnapshot.none

    /// (state, operation, session) -> first action. Every pair of state and operation appears at least once.
    static let requestTable: [(VaultStateKind, VaultOperation, SessionSnapshot, Action)] = [
        (.empty, .storeToKeychain, locked, .write(protected: false, expecting: .empty)),
        (.empty, .storeToBiometrics, locked, .authenticate),
        (.empty, .update, locked, .fail(.invalidVault)),
        (.empty, .upgrade, locked, .fail(.invalidVault)),
        (.empty, .downgrade, locked, .fail(.invalidVault)),
        (.empty, .lock, locked, .fail(.invalidVault)),
        (.empty, .unlock, locked, .fail(.invalidVault)),
        (.empty, .reset, locked, .delete),
        (.empty, .reauthenticateOwner, locked, .fail(.invalidVault)),

        (.keychain, .storeToKeychain, locked, .fail(.invalidVault)),
        (.keychain, .storeToBiometrics, locked, .fail(.invalidVault)),
        (.keychain, .update, locked, .write(protected: false, expecting: .plain)),
        (.keychain, .upgrade, locked, .authenticate),
        (.keychain, .downgrade, locked, .fail(.invalidVault)),
        (.keychain, .lock, locked, .fail(.invalidVault)),
        (.keychain, .unlock, locked, .fail(.invalidVault)),
        (.keychain, .reset, locked, .delete),
        (.keychain, .reauthenticateOwner, locked, .fail(.invalidVault)),

        (.biometrics, .storeToKeychain, active, .fail(.invalidVault)),
        (.biometrics, .storeToBiometrics, active, .fail(.invalidVault)),
        (.biometrics, .update, active, .authenticate),
        (.biometrics, .update, reusable, .write(protected: true, expecting: .protected)),
        (.biometrics, .update, locked, .fail(.vaultLocked)),
        (.biometrics, .upgrade, active, .fail(.invalidVault)),
        (.biometrics, .downgrade, active, .write(protected: false, expecting: .protected)),
        (.biometrics, .downgrade, locked, .fail(.vaultLocked)),
        (.biometrics, .lock, active, .endSession),
        (.biometrics, .unlock, active, .fail(.invalidVault)),
        (.biometrics, .reset, active, .delete),
        (.biometrics, .reauthenticateOwner, active, .authenticateOwner),

        (.locked, .storeToKeychain, locked, .fail(.invalidVault)),
        (.locked, .storeToBiometrics, locked, .fail(.invalidVault)),
        (.locked, .update, locked, .fail(.invalidVault)),
        (.locked, .upgrade, locked, .fail(.invalidVault)),
        (.locked, .downgrade, locked, .fail(.invalidVault)),
        (.locked, .lock, locked, .finish(.locked)),
        (.locked, .unlock, locked, .authenticate),
        (.locked, .unlock, reusable, .readProtected),
        (.locked, .reset, locked, .delete),
        (.locked, .reauthenticateOwner, locked, .authenticateOwner),
    ]

    @Test(arguments: requestTable.indices)
    func requestedOperationYieldsAction(_ row: Int) {
        let (kind, operation, session, expected) = Self.requestTable[row]
        var machine = VaultStateMachine(kind)
        #expect(machine.requested(operation, session: session) == expected, "\(kind) + \(operation)")
        if case .fail = expected { #expect(machine.state == .idle(kind)) }
    }

    @Test func tableCoversEveryStateAndOperation() {
        for kind in VaultStateKind.allCases {
            for operation in VaultOperation.allCases {
                #expect(Self.requestTable.contains { $0.0 == kind && $0.1 == operation }, "\(kind) + \(operation)")
            }
        }
    }

    /// (state, operation, session) -> the state after every step succeeds.
    static let successTable: [(VaultStateKind, VaultOperation, SessionSnapshot, VaultStateKind)] = [
        (.empty, .storeToKeychain, locked, .keychain),
        (.empty, .storeToBiometrics, locked, .biometrics),
        (.empty, .reset, locked, .empty),
        (.keychain, .update, locked, .keychain),
        (.keychain, .upgrade, locked, .biometrics),
        (.keychain, .reset, locked, .empty),
        (.biometrics, .update, active, .biometrics),
        (.biometrics, .update, reusable, .biometrics),
        (.biometrics, .downgrade, active, .keychain),
        (.biometrics, .lock, active, .locked),
        (.biometrics, .reset, active, .empty),
        (.biometrics, .reauthenticateOwner, active, .biometrics),
        (.locked, .unlock, locked, .biometrics),
        (.locked, .unlock, reusable, .biometrics),
        (.locked, .lock, locked, .locked),
        (.locked, .reset, locked, .empty),
        (.locked, .reauthenticateOwner, locked, .locked),
    ]

    @Test(arguments: successTable.indices)
    func successfulRunEndsInState(_ row: Int) {
        let (kind, operation, session, expected) = Self.successTable[row]
        var machine = VaultStateMachine(kind)
        var action = machine.requested(operation, session: session)
        var steps = 0
        while steps < 5 {
            steps += 1
            switch action {
            case .authenticate, .authenticateOwner: action = machine.authenticationCompleted(.success(()))
            case .write, .readProtected, .delete: action = machine.storeCompleted(.success(()))
            case .endSession: action = machine.storeCompletedWithoutIO()
            case .finish(let final):
                #expect(final == expected, "\(kind) + \(operation)")
                #expect(machine.state == .finished(expected))
                return
            case .fail(let code):
                Issue.record("\(kind) + \(operation) failed with \(code)")
                return
            }
        }
        Issue.record("no finish after 5 steps")
    }

    static let failureCodes: [VaultError.Code] = [.userCancel, .authenticationFailed, .biometryLockout, .systemCancel]

    @Test(arguments: failureCodes)
    func failedAuthenticationReturnsToTheStartState(_ code: VaultError.Code) {
        for (kind, operation) in [(VaultStateKind.empty, VaultOperation.storeToBiometrics), (.keychain, .upgrade), (.locked, .unlock), (.biometrics, .update)] {
            var machine = VaultStateMachine(kind)
            #expect(machine.requested(operation, session: Self.active) == .authenticate)
            #expect(machine.authenticationCompleted(.failure(VaultError(code))) == .fail(code))
            #expect(machine.state == .idle(kind))
        }
    }

    @Test func failedWriteReturnsToTheStartState() {
        var machine = VaultStateMachine(.keychain)
        #expect(machine.requested(.upgrade, session: Self.locked) == .authenticate)
        #expect(machine.authenticationCompleted(.success(())) == .write(protected: true, expecting: .plain))
        #expect(machine.storeCompleted(.failure(.storeUnavailable)) == .fail(.storeUnavailable))
        #expect(machine.state == .idle(.keychain))
    }
}

struct RetrieveClassifierTests {
    static let enrollment = EnrollmentFingerprint("set-1")!
    static let other = EnrollmentFingerprint("set-2")!

    static let table: [(ItemHeader?, AuthenticatorAvailability, EnrollmentFingerprint?, RetrieveClassifier.Decision)] = [
        (nil, .available, enrollment, .empty(biometricsOffered: true, invalidation: nil)),
        (nil, .unavailable(.biometryNotEnrolled), nil, .empty(biometricsOffered: false, invalidation: nil)),
        (nil, .unavailable(.biometryLockout), enrollment, .empty(biometricsOffered: true, invalidation: nil)),
        (ItemHeader(protection: .none), .available, enrollment, .keychain(upgradable: true)),
        (ItemHeader(protection: .none), .unavailable(.biometryNotAvailable), nil, .keychain(upgradable: false)),
        (ItemHeader(protection: .protected(.biometryCurrentSet), enrollment: enrollment), .available, enrollment, .locked(.biometryCurrentSet)),
        (ItemHeader(protection: .protected(.biometryCurrentSet), enrollment: enrollment), .available, other, .empty(biometricsOffered: true, invalidation: .biometryChanged)),
        (ItemHeader(protection: .protected(.biometryCurrentSet), enrollment: enrollment), .unavailable(.biometryNotEnrolled), nil, .empty(biometricsOffered: false, invalidation: .biometryChanged)),
        (ItemHeader(protection: .protected(.biometryAny)), .available, other, .locked(.biometryAny)),
        (ItemHeader(protection: .protected(.userPresence)), .unavailable(.biometryNotEnrolled), nil, .locked(.userPresence)),
        (ItemHeader(protection: .protected(.devicePasscode)), .available, nil, .locked(.devicePasscode)),
    ]

    @Test(arguments: table.indices)
    func classifies(_ row: Int) {
        let (header, availability, enrollment, expected) = Self.table[row]
        #expect(RetrieveClassifier.classify(header: header, availability: availability, currentEnrollment: enrollment) == expected)
    }

    @Test(arguments: [
        (AuthenticationReuse.never, Duration.zero, false),
        (.session(timeout: .seconds(60)), .seconds(59), true),
        (.session(timeout: .seconds(60)), .seconds(60), false),
        (.session(timeout: .seconds(60)), .seconds(-1), false),
    ])
    func sessionReuse(_ reuse: AuthenticationReuse, _ elapsed: Duration, _ expected: Bool) {
        let start = Duration.seconds(100)
        #expect(SessionReusePolicy.isReusable(authenticatedAt: start, now: start + elapsed, reuse: reuse) == expected)
    }

    @Test func failedAttemptCounter() {
        var counter = FailedAttemptCounter()
        for _ in 0..<4 { counter.record(.noMatch) }
        counter.record(.cancelled)
        #expect(counter.consecutiveFailures == 4)
        #expect(!counter.isLockedOut)
        counter.record(.noMatch)
        #expect(counter.isLockedOut)
        counter.record(.noMatch)
        #expect(counter.consecutiveFailures == FailedAttemptCounter.limit)
        counter.record(.ownerAuthenticated)
        #expect(counter.consecutiveFailures == 0)
        counter.record(.noMatch)
        counter.record(.match)
        #expect(counter.consecutiveFailures == 0)
    }
}
