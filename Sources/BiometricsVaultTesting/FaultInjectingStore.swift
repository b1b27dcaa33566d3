import BiometricsVaultCore

/// A fake for faults a real store cannot be made to produce on demand: wraps a store and fails chosen
/// calls (counted from 1 across `read`, `write`, `delete` and `keys`) with a chosen error.
///
/// Used by the vault's atomicity tests: fail every call of a transition in turn and check that the
/// credentials stored before are still retrievable.
public final class FaultInjectingStore: SecretStore {
    private struct State: Sendable {
        var calls = 0
        var failingCalls: Set<Int> = []
        var log: [String] = []
    }

    public let wrapped: any SecretStore
    public let error: VaultError
    private let state = LockedValue(State())

    public init(wrapping store: any SecretStore, error: VaultError = VaultError(.storeUnavailable, underlying: .message("injected fault"))) {
        self.wrapped = store
        self.error = error
    }

    /// Makes the `n`-th call from now fail (1 = the next call). Resets the call counter.
    public func failCall(_ n: Int) {
        state.withLock { state in
            state.calls = 0
            state.failingCalls = [n]
        }
    }

    /// Stops injecting faults and resets the call counter.
    public func reset() {
        state.withLock { state in
            state.calls = 0
            state.failingCalls = []
        }
    }

    /// Calls since the last `failCall` / `reset`.
    public var callCount: Int { state.withLock { $0.calls } }
    /// The operations seen, in order ("read", "write", "delete", "keys").
    public var log: [String] { state.withLock { $0.log } }

    public var name: String { wrapped.name }

    public func read(_ id: SecretItemID, authorization: Authorization?) throws -> StoredItem? {
        try call("read")
        return try wrapped.read(id, authorization: authorization)
    }

    public func write(_ item: StoredItem, for id: SecretItemID, if condition: WriteCondition, authorization: Authorization?) throws {
        try call("write")
        try wrapped.write(item, for: id, if: condition, authorization: authorization)
    }

    public func delete(_ id: SecretItemID) throws {
        try call("delete")
        try wrapped.delete(id)
    }

    public func keys(service: String) throws -> [String] {
        try call("keys")
        return try wrapped.keys(service: service)
    }

    public func listing(service: String) throws -> KeyListing {
        try call("keys")
        return try wrapped.listing(service: service)
    }

    /// Forwarded, never failed and not counted: it cannot throw, and `retrieveVault` asks it only for a
    /// key with nothing stored.
    public func vanishedItemReason(_ id: SecretItemID) -> VaultInvalidation? {
        wrapped.vanishedItemReason(id)
    }

    private func call(_ operation: String) throws {
        let fails = state.withLock { state in
            state.calls += 1
            state.log.append(operation)
            return state.failingCalls.contains(state.calls)
        }
        if fails { throw error }
    }
}
