/// An authenticator chosen on first use, so a run that never needs one (reading a plain item) never
/// pays for the probe behind the choice (several fprintd round trips, each checked by polkit).
///
/// The library's platform default starts the probe early (``startProbing(startingThread:)``), on another
/// thread, so it overlaps connecting to the Secret Service; the first call that needs the choice waits for it.
struct DeferredAuthenticator: Authenticator {
    /// The authenticator a probe chose, and what it answers `availability(for:)` with at the moment of
    /// the probe, as the probe saw it (`nil` for a policy the probe says nothing about).
    struct Choice: Sendable {
        var authenticator: any Authenticator
        var observedAvailability: @Sendable (ProtectionPolicy) -> AuthenticatorAvailability?
    }

    /// How long after the probe its observation may still answer `availability(for:)`.
    static let observationLifetime: Duration = .seconds(1)

    private let probe: ChoiceProbe

    init(_ resolve: @escaping @Sendable () -> any Authenticator) {
        self.init(choosing: { Choice(authenticator: resolve(), observedAvailability: { _ in nil }) })
    }

    /// The first call after the probe, if it is `availability(for:)` and comes within
    /// ``observationLifetime``, is answered from the probe's observation instead of asking the platform
    /// again in the same instant: for fprintd that would be a second system-bus connection and about seven
    /// more calls, one of which fprintd checks with polkit (about 5 ms of a cold retrieveVault).
    init(choosing resolve: @escaping @Sendable () -> Choice, clock: VaultClock = .continuous) {
        self.probe = ChoiceProbe(resolve, clock: clock)
    }

    private var authenticator: any Authenticator { probe.choice(wantsObservation: false).choice.authenticator }

    /// Starts the probe on a thread `startThread` starts, unless it has started already; returns at once.
    /// `startThread` runs its argument on a new thread and returns false if it could start none (the probe
    /// then runs here, before this returns).
    func startProbing(startingThread startThread: (_ body: @escaping @Sendable () -> Void) -> Bool) {
        probe.startInBackground(startingThread: startThread)
    }

    func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        let (choice, observationIsFresh) = probe.choice(wantsObservation: true)
        return (observationIsFresh ? choice.observedAvailability(policy) : nil) ?? choice.authenticator.availability(for: policy)
    }

    var biometryType: BiometryType { authenticator.biometryType }

    func currentEnrollment() throws -> EnrollmentFingerprint? {
        try authenticator.currentEnrollment()
    }

    func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        try await authenticator.authenticate(for: policy, prompt: prompt)
    }

    func authenticateOwner(prompt: PromptText) async throws {
        try await authenticator.authenticateOwner(prompt: prompt)
    }
}

/// Runs the probe behind a ``DeferredAuthenticator``'s choice exactly once (``ComputedOnce``): inline on
/// first use, or earlier on a thread of its own (`startInBackground`); callers arriving while it runs wait
/// for it.
private final class ChoiceProbe: Sendable {
    private struct Probed: Sendable {
        var choice: DeferredAuthenticator.Choice
        var observedAt: Duration
    }

    private let clock: VaultClock
    private let probed: ComputedOnce<Probed>
    /// Whether the observation has been handed out (or passed over): only the first caller may use it.
    private let observationTaken = LockedValue(false)

    init(_ resolve: @escaping @Sendable () -> DeferredAuthenticator.Choice, clock: VaultClock) {
        self.clock = clock
        self.probed = ComputedOnce {
            let choice = resolve()
            return Probed(choice: choice, observedAt: clock.now())
        }
    }

    func startInBackground(startingThread startThread: (_ body: @escaping @Sendable () -> Void) -> Bool) {
        probed.startInBackground(startingThread: startThread)
    }

    /// The choice, and whether the caller may use the probe's observation: only the first caller after
    /// the probe, within the observation's lifetime.
    func choice(wantsObservation: Bool) -> (choice: DeferredAuthenticator.Choice, observationIsFresh: Bool) {
        let probed = probed.value().value
        let now = clock.now()
        let isFirst = observationTaken.withLock { taken in
            defer { taken = true }
            return !taken
        }
        let fresh = isFirst && now - probed.observedAt <= DeferredAuthenticator.observationLifetime
        return (probed.choice, fresh && wantsObservation)
    }
}
