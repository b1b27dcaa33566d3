#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a vault keeps its bytes, who authenticates the owner, and how.
///
/// Copies of a configuration share one registry of authenticated sessions, so a `.session(timeout:)`
/// reuse window spans every vault retrieved through the same configuration value and its copies.
public struct VaultConfiguration: Sendable {
    /// Where bytes live.
    public var store: any SecretStore
    /// Who says "it is the owner".
    public var authenticator: any Authenticator
    /// The protection applied by `storeToBiometrics` and `upgrade`. Items keep the policy they were
    /// stored with; changing this does not change existing items.
    public var policy: ProtectionPolicy
    /// How long one authentication may be reused.
    public var reuse: AuthenticationReuse
    /// The namespace of the keys (Keychain `kSecAttrService`, Secret Service `service`, file-store folder).
    public var service: String
    /// The texts shown in prompts.
    public var prompt: PromptText
    /// The time source for the reuse window. Tests inject a manual clock.
    public var clock: VaultClock
    /// Opt-in reset after a reinstall (`nil`, the default: off). Keychain items survive deleting the
    /// app; with a marker kept outside the store (``InstallMarker/userDefaults(suiteName:)``), the first
    /// retrieve of a key in a new install finds the key unmarked, deletes the stored item and returns an
    /// empty vault whose `invalidation` is `.appReinstalled`. Keep the marker where the items are shared
    /// (an app group suite for items shared with extensions).
    public var installMarker: InstallMarker?

    let sessions = SessionRegistry()

    public init(
        store: any SecretStore,
        authenticator: any Authenticator,
        policy: ProtectionPolicy = .biometryCurrentSet,
        reuse: AuthenticationReuse = .never,
        service: String = VaultConfiguration.defaultService,
        prompt: PromptText = .default,
        clock: VaultClock = .continuous
    ) {
        self.store = store
        self.authenticator = authenticator
        self.policy = policy
        self.reuse = reuse
        self.service = service
        self.prompt = prompt
        self.clock = clock
    }

    /// Ends every session opened through this configuration and its copies, exactly as `lock()` does for
    /// one handle: afterwards `update` / `downgrade` through any `BiometricsSecureVault` of it throw
    /// `vaultLocked` and write nothing, `retrieveVault` gives `.locked`, and the next `unlock()` prompts.
    /// An operation in flight meanwhile (a prompt on screen) completes, but the vault it returns is
    /// already locked. Stored items are unchanged. Call it when the app goes to the background or the
    /// screen locks.
    public func lockAllSessions() {
        sessions.lockAll()
    }
}

/// A monotonic time source, as a duration since an arbitrary fixed origin.
public struct VaultClock: Sendable {
    public let now: @Sendable () -> Duration

    public init(now: @escaping @Sendable () -> Duration) {
        self.now = now
    }

    /// `ContinuousClock` (keeps counting while the machine sleeps, so a timeout cannot be stretched by sleep).
    public static let continuous: VaultClock = {
        let origin = ContinuousClock.now
        return VaultClock { ContinuousClock.now - origin }
    }()
}

/// One authenticated session, shared by every copy of an unlocked handle.
final class VaultSession: Sendable {
    private struct State: Sendable {
        var authorization: Authorization
        var authenticatedAt: Duration
        var locked = false
    }

    let id: SecretItemID
    private let state: LockedValue<State>

    init(id: SecretItemID, authorization: Authorization, at now: Duration) {
        self.id = id
        self.state = LockedValue(State(authorization: authorization, authenticatedAt: now))
    }

    var authorization: Authorization { state.withLock { $0.authorization } }

    func snapshot(now: Duration, reuse: AuthenticationReuse) -> SessionSnapshot {
        state.withLock { state in
            let active = !state.locked && state.authorization.isValid
            let reusable =
                active && SessionReusePolicy.isReusable(authenticatedAt: state.authenticatedAt, now: now, reuse: reuse)
            return SessionSnapshot(isActive: active, isReusable: reusable)
        }
    }

    /// A fresh authentication renews the session (unless it was locked meanwhile: then it stays locked).
    func renew(with authorization: Authorization, at now: Duration) {
        let replaced: Authorization? = state.withLock { state in
            guard !state.locked else { return authorization }
            defer { state.authorization = authorization; state.authenticatedAt = now }
            return state.authorization === authorization ? nil : state.authorization
        }
        replaced?.invalidate()
    }

    func lock() {
        let authorization = state.withLock { state in
            state.locked = true
            return state.authorization
        }
        authorization.invalidate()
    }
}

/// The sessions that may be reused by `unlock()` under `.session(timeout:)`, one per item, and every
/// session still open (for ``VaultConfiguration/lockAllSessions()``).
///
/// One lock over one non-generic state: every configuration makes a registry, and three generic
/// `LockedValue`s cost a cold `retrieveVault` their runtime metadata on its critical path (the most
/// expensive step between the Secret Service opening and the read, Docs/Benchmarks.md).
final class SessionRegistry: Sendable {
    private struct OpenSession: Sendable {
        // Weak: a session nobody holds any more cannot be used, so it need not be remembered.
        weak var session: VaultSession?
    }

    private struct State: Sendable {
        var reusable: [SecretItemID: VaultSession] = [:]
        var open: [ObjectIdentifier: OpenSession] = [:]
        var lockAllCount = 0
    }

    private let state = LockedValue(State())

    /// Changes with every ``lockAll()``: an operation that saw another value when it started was
    /// running while everything was locked, and must not leave a session open (``endIfLockedAll(since:_:)``).
    var epoch: Int { state.withLock { $0.lockAllCount } }

    /// Ends `session` if ``lockAll()`` ran since `epoch` (the operation that opened it was in flight then).
    func endIfLockedAll(since epoch: Int, _ session: VaultSession?) {
        guard let session, self.epoch != epoch else { return }
        end(session)
    }

    func register(_ session: VaultSession) {
        state.withLock { state in
            state.reusable[session.id] = session
            state.open = state.open.filter { $0.value.session != nil }
            state.open[ObjectIdentifier(session)] = OpenSession(session: session)
        }
    }

    /// Locks every session registered so far, whether or not it is still the reusable one of its item.
    func lockAll() {
        let sessions = state.withLock { state in
            state.lockAllCount += 1
            defer {
                state.reusable = [:]
                state.open = [:]
            }
            return Array(state.reusable.values) + state.open.values.compactMap(\.session)
        }
        // Outside the registry's lock: locking a session takes the session's own.
        for session in sessions { session.lock() }
    }

    func reusableSession(for id: SecretItemID, now: Duration, reuse: AuthenticationReuse) -> VaultSession? {
        guard let session = state.withLock({ $0.reusable[id] }) else { return nil }
        return session.snapshot(now: now, reuse: reuse).isReusable ? session : nil
    }

    /// Locks `session` and stops offering it for reuse.
    func end(_ session: VaultSession) {
        state.withLock { state in
            if state.reusable[session.id] === session { state.reusable[session.id] = nil }
        }
        session.lock()
    }

    /// Locks whatever session the item has (after `reset()`: the credentials are gone).
    func endAll(for id: SecretItemID) {
        state.withLock { $0.reusable.removeValue(forKey: id) }?.lock()
    }
}
