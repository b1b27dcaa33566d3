import BiometricsVaultCore

/// The simulated device's keychain: in memory, with Apple's access-control semantics.
///
/// - A protected item's payload is returned only with a valid ``Authorization`` from the device's
///   authenticator; without one, `read` returns the header and `payload == nil` (like a Keychain query
///   with `interactionNotAllowed`).
/// - A `.biometryCurrentSet` item whose enrollment changed cannot be read (`biometryChanged`).
/// - Writing a protected item needs a valid authorization (`interactionNotAllowed` otherwise) and a passcode.
/// - A protected item destroyed by removing the passcode is reported as `.passcodeRemoved`.
/// - Items are kept as `VaultEnvelope` bytes (the file store's format), so damaged bytes surface as `corruptedItem`.
public struct SimulatedKeychain: SecretStore {
    struct Entry: Sendable {
        var header: ItemHeader
        var envelope: SecretBytes
    }

    let device: LockedValue<SimulatedDevice.State>

    public var name: String { "simulated-keychain" }

    public func read(_ id: SecretItemID, authorization: Authorization?) throws -> StoredItem? {
        try device.withLock { state -> StoredItem? in
            if state.keychainLocked { throw VaultError(.storeLocked, underlying: .message("simulated keychain locked")) }
            guard let entry = state.items[id] else { return nil }
            let item = try VaultEnvelope.decode(entry.envelope)
            guard case .protected(let policy) = item.header.protection else { return item }
            guard let authorization else { return StoredItem(header: item.header, payload: nil) }
            guard authorization.isValid else {
                throw VaultError(.interactionNotAllowed, underlying: .message("authorization invalidated"))
            }
            if policy.bindsEnrollment && item.header.enrollment != state.enrollment {
                throw VaultError(.biometryChanged, underlying: .message("item invalidated by enrollment change"))
            }
            return item
        }
    }

    /// Checks `condition` and writes under the device's one lock: as atomic as a real store's
    /// cross-process lock.
    public func write(_ item: StoredItem, for id: SecretItemID, if condition: WriteCondition, authorization: Authorization?) throws {
        try device.withLock { state in
            if state.keychainLocked { throw VaultError(.storeLocked, underlying: .message("simulated keychain locked")) }
            if condition != .anything {
                let current = try state.items[id].map { try VaultEnvelope.decode($0.envelope).header }
                try condition.check(current)
            }
            if item.header.protection != .none {
                guard state.passcodeSet else { throw VaultError(.passcodeNotSet) }
                guard let authorization, authorization.isValid else {
                    throw VaultError(.interactionNotAllowed, underlying: .message("protected write without authorization"))
                }
            }
            state.items[id] = Entry(header: item.header, envelope: VaultEnvelope.encode(item))
            state.destroyedWithPasscode.remove(id)
        }
    }

    public func delete(_ id: SecretItemID) throws {
        try device.withLock { state in
            if state.keychainLocked { throw VaultError(.storeLocked, underlying: .message("simulated keychain locked")) }
            state.items[id] = nil
            state.destroyedWithPasscode.remove(id)
        }
    }

    /// `.passcodeRemoved` for a protected item that ``SimulatedDevice/setPasscode(_:)`` destroyed.
    public func vanishedItemReason(_ id: SecretItemID) -> VaultInvalidation? {
        device.withLock { state in
            state.items[id] == nil && state.destroyedWithPasscode.contains(id) ? .passcodeRemoved : nil
        }
    }

    public func keys(service: String) throws -> [String] {
        device.withLock { state in state.items.keys.filter { $0.service == service }.map(\.key).sorted() }
    }
}
