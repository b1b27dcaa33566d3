import BiometricsVaultCore

/// A clock that moves only when told to, for `.session(timeout:)` tests.
public final class ManualClock: Sendable {
    private let time = LockedValue(Duration.zero)

    public init() {}

    public var now: Duration { time.withLock { $0 } }

    public func advance(by duration: Duration) {
        time.withLock { $0 += duration }
    }

    /// Pass as `VaultConfiguration(..., clock: manualClock.vaultClock)`.
    public var vaultClock: VaultClock {
        VaultClock { [time] in time.withLock { $0 } }
    }
}
