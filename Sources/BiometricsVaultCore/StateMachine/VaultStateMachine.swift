/// The state of a vault handle, as the state machine sees it.
public enum VaultStateKind: String, Hashable, Sendable, CaseIterable {
    case empty, keychain, biometrics, locked
}

/// An operation an app asks of a vault handle.
public enum VaultOperation: String, Hashable, Sendable, CaseIterable {
    case storeToKeychain, storeToBiometrics, update, upgrade, downgrade, lock, unlock, reset, reauthenticateOwner
}

/// What the machine knows of the authenticated session behind a `.biometrics` handle.
struct SessionSnapshot: Hashable, Sendable {
    /// Not locked, and the authorization was not invalidated.
    var isActive: Bool
    /// Active and, under `.session(timeout:)`, still inside the reuse window.
    var isReusable: Bool

    static let none = SessionSnapshot(isActive: false, isReusable: false)
}

/// What a write may replace. The driver turns it into the store's ``WriteCondition``, which the store
/// checks under its own cross-process lock, so a handle never silently overwrites an item that another
/// handle or process created, deleted or (un)protected.
enum WriteExpectation: Hashable, Sendable {
    /// Nothing (storing into an empty vault), or the invalidated item the empty vault was retrieved over.
    case empty
    /// The plain item the handle holds.
    case plain
    /// The protected item the handle holds (same policy and enrollment binding).
    case protected
}

/// The pure heart of the vault: events in, actions out. No I/O, no clock reads; the driver
/// (`VaultDriver`) performs each action and feeds the result back.
struct VaultStateMachine: Hashable, Sendable {
    enum State: Hashable, Sendable {
        case idle(VaultStateKind)
        case authenticating(from: VaultStateKind, VaultOperation)
        case writing(from: VaultStateKind, VaultOperation)
        case reading(from: VaultStateKind, VaultOperation)
        case deleting(from: VaultStateKind)
        case finished(VaultStateKind)
    }

    enum Action: Hashable, Sendable {
        /// Throw this error; the state returns to where it was.
        case fail(VaultError.Code)
        /// Prompt for the item's policy (biometrics or, per policy, passcode).
        case authenticate
        /// Prompt for the owner's passcode / password.
        case authenticateOwner
        /// Write the credentials with this protection, after checking the expectation.
        case write(protected: Bool, expecting: WriteExpectation)
        /// Read the protected item through the session's authorization.
        case readProtected
        /// Delete the item and end any session.
        case delete
        /// End the session for every copy of the handle.
        case endSession
        /// Done: the handle is now in this state.
        case finish(VaultStateKind)
    }

    private(set) var state: State

    init(_ kind: VaultStateKind) {
        state = .idle(kind)
    }

    /// The app asked for `operation`.
    mutating func requested(_ operation: VaultOperation, session: SessionSnapshot) -> Action {
        guard case .idle(let kind) = state else { preconditionFailure("Invalid state: \(state)") }
        let action = Self.plan(operation, in: kind, session: session)
        switch action {
        case .fail: state = .idle(kind)
        case .authenticate, .authenticateOwner: state = .authenticating(from: kind, operation)
        case .write: state = .writing(from: kind, operation)
        case .readProtected: state = .reading(from: kind, operation)
        case .delete: state = .deleting(from: kind)
        case .endSession: state = .finished(.locked)
        case .finish(let next): state = .finished(next)
        }
        return action
    }

    /// The prompt ended.
    mutating func authenticationCompleted(_ result: Result<Void, VaultError>) -> Action {
        guard case .authenticating(let kind, let operation) = state else {
            preconditionFailure("Invalid state: \(state)")
        }
        if case .failure(let error) = result {
            state = .idle(kind)
            return .fail(error.code)
        }
        switch operation {
        case .storeToBiometrics:
            state = .writing(from: kind, operation)
            return .write(protected: true, expecting: .empty)
        case .upgrade:
            state = .writing(from: kind, operation)
            return .write(protected: true, expecting: .plain)
        case .update:
            state = .writing(from: kind, operation)
            return .write(protected: true, expecting: .protected)
        case .unlock:
            state = .reading(from: kind, operation)
            return .readProtected
        case .reauthenticateOwner:
            state = .finished(kind)
            return .finish(kind)
        case .storeToKeychain, .downgrade, .lock, .reset:
            preconditionFailure("Invalid state: \(operation) never authenticates")
        }
    }

    /// The write, read or delete ended.
    mutating func storeCompleted(_ result: Result<Void, VaultError>) -> Action {
        let kind: VaultStateKind
        let next: VaultStateKind
        switch state {
        case .writing(let from, let operation):
            kind = from
            next = Self.stateAfterWrite(operation, from: from)
        case .reading(let from, _):
            kind = from
            next = .biometrics
        case .deleting(let from):
            kind = from
            next = .empty
        case .idle, .authenticating, .finished:
            preconditionFailure("Invalid state: \(state)")
        }
        switch result {
        case .success:
            state = .finished(next)
            return .finish(next)
        case .failure(let error):
            state = .idle(kind)
            return .fail(error.code)
        }
    }

    // MARK: Private

    private static func plan(_ operation: VaultOperation, in kind: VaultStateKind, session: SessionSnapshot)
        -> Action
    {
        switch (operation, kind) {
        case (.storeToKeychain, .empty): return .write(protected: false, expecting: .empty)
        case (.storeToKeychain, .keychain), (.storeToKeychain, .biometrics), (.storeToKeychain, .locked):
            return .fail(.invalidVault)

        case (.storeToBiometrics, .empty): return .authenticate
        case (.storeToBiometrics, .keychain), (.storeToBiometrics, .biometrics), (.storeToBiometrics, .locked):
            return .fail(.invalidVault)

        case (.update, .keychain): return .write(protected: false, expecting: .plain)
        case (.update, .biometrics):
            if !session.isActive { return .fail(.vaultLocked) }
            return session.isReusable ? .write(protected: true, expecting: .protected) : .authenticate
        case (.update, .empty), (.update, .locked): return .fail(.invalidVault)

        case (.upgrade, .keychain): return .authenticate
        case (.upgrade, .empty), (.upgrade, .biometrics), (.upgrade, .locked): return .fail(.invalidVault)

        case (.downgrade, .biometrics):
            return session.isActive ? .write(protected: false, expecting: .protected) : .fail(.vaultLocked)
        case (.downgrade, .empty), (.downgrade, .keychain), (.downgrade, .locked): return .fail(.invalidVault)

        case (.lock, .biometrics): return .endSession
        case (.lock, .locked): return .finish(.locked)
        case (.lock, .empty), (.lock, .keychain): return .fail(.invalidVault)

        case (.unlock, .locked): return session.isReusable ? .readProtected : .authenticate
        case (.unlock, .empty), (.unlock, .keychain), (.unlock, .biometrics): return .fail(.invalidVault)

        case (.reset, .empty), (.reset, .keychain), (.reset, .biometrics), (.reset, .locked): return .delete

        case (.reauthenticateOwner, .biometrics), (.reauthenticateOwner, .locked): return .authenticateOwner
        case (.reauthenticateOwner, .empty), (.reauthenticateOwner, .keychain): return .fail(.invalidVault)
        }
    }

    private static func stateAfterWrite(_ operation: VaultOperation, from kind: VaultStateKind) -> VaultStateKind {
        switch operation {
        case .storeToKeychain, .downgrade: .keychain
        case .storeToBiometrics, .upgrade: .biometrics
        case .update: kind
        case .lock, .unlock, .reset, .reauthenticateOwner: preconditionFailure("Invalid state: \(operation) never writes")
        }
    }
}

/// How a stored item and the platform's state read at `retrieveVault` become a vault case. Pure.
enum RetrieveClassifier {
    enum Decision: Hashable, Sendable {
        case empty(biometricsOffered: Bool, invalidation: VaultInvalidation?)
        case keychain(upgradable: Bool)
        case locked(ProtectionPolicy)
    }

    /// - Parameters:
    ///   - header: the stored item's header, or `nil` when nothing is stored.
    ///   - availability: the authenticator's availability for the configured policy.
    ///   - currentEnrollment: the enrolled set now (asked only for `.biometryCurrentSet` items).
    static func classify(
        header: ItemHeader?,
        availability: AuthenticatorAvailability,
        currentEnrollment: EnrollmentFingerprint?
    ) -> Decision {
        let biometricsOffered: Bool
        switch availability {
        case .available: biometricsOffered = true
        // Locked out is still "biometrics present": the app should offer reauthenticateOwner(), not hide them.
        case .unavailable(let reason): biometricsOffered = reason.code == .biometryLockout
        }
        guard let header else { return .empty(biometricsOffered: biometricsOffered, invalidation: nil) }
        switch header.protection {
        case .none:
            return .keychain(upgradable: biometricsOffered)
        case .protected(let policy):
            if policy.bindsEnrollment && header.enrollment != currentEnrollment {
                return .empty(biometricsOffered: biometricsOffered, invalidation: .biometryChanged)
            }
            return .locked(policy)
        }
    }
}

extension RetrieveClassifier {
    /// Whether an authenticator that answered `nil` for the enrolled set means "nothing is enrolled"
    /// (a `.biometryCurrentSet` item is then invalidated, as on Apple platforms), judged by its
    /// availability for the item's policy. Only an answering sensor with no enrollment
    /// (`biometryNotEnrolled`), or one that says it is available, confirms it. Any other unavailability
    /// (no reader, its daemon down, lockout, no passcode) means the set is unknown: a sensor nobody can
    /// ask is not an enrollment change, and reading it as one would have the user store the item again
    /// and lose the credential.
    static func confirmsNothingEnrolled(_ availability: AuthenticatorAvailability) -> Bool {
        switch availability {
        case .available: true
        case .unavailable(let reason): reason.code == .biometryNotEnrolled
        }
    }
}

/// Whether an authenticated session may be reused without a new prompt. Pure: `now` is passed in.
enum SessionReusePolicy {
    static func isReusable(authenticatedAt: Duration, now: Duration, reuse: AuthenticationReuse) -> Bool {
        switch reuse {
        case .never: false
        case .session(let timeout): now >= authenticatedAt && now - authenticatedAt < timeout
        }
    }
}
