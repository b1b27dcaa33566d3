#if os(Linux)
import BiometricsVaultCore

/// What the service issued after it authenticated a caller: held only in the service's memory, tied to
/// the caller's connection (its unique name, which the bus never reuses) and uid, ending when that
/// connection leaves the bus, when the caller revokes it, or after ``Grants/lifetime``.
struct Grant: Sendable {
    enum Method: Sendable, Equatable {
        /// A finger of this enrolled set matched (fprintd, for the caller's user).
        case fingerprint(EnrollmentFingerprint?)
        /// polkit accepted the caller's password.
        case password
    }

    let connection: String
    let uid: UInt32
    let method: Method
    let expires: ContinuousClock.Instant
    /// The item service a grant given inside an unlock window is for (windows are per service); `nil` for
    /// a grant that followed a prompt.
    let service: String?

    /// Whether this grant releases an item of `service` with `header`; throws why not.
    func check(_ header: ItemHeader, service: String) throws(VaultError) {
        if let granted = self.service, granted != service {
            throw VaultError(.vaultLocked, underlying: .message("this authentication came from an unlock window of another service"))
        }
        guard let policy = header.protection.policy else { return }
        switch (policy, method) {
        case (.biometryCurrentSet, .fingerprint(let enrollment)):
            guard enrollment != nil, enrollment == header.enrollment else {
                throw VaultError(.biometryChanged, underlying: .message("the enrolled fingers changed since the item was stored"))
            }
        case (.biometryAny, .fingerprint), (.userPresence, _), (.devicePasscode, .password):
            return
        case (.biometryCurrentSet, .password), (.biometryAny, .password):
            throw VaultError(.authenticationFailed, underlying: .message("this item needs a fingerprint"))
        case (.devicePasscode, .fingerprint):
            throw VaultError(.authenticationFailed, underlying: .message("this item needs the password"))
        }
    }
}

/// The grants the service holds, by token.
final class Grants: Sendable {
    /// The longest a grant lives, however long its connection stays: an app's authenticated session
    /// ends here at the latest, and the next read asks again.
    static let lifetime: Duration = .seconds(15 * 60)
    static let tokenSize = 32

    private let table = LockedValue<[[UInt8]: Grant]>([:])

    /// Whether no grant is alive (expired ones are dropped here too, so they never keep the service up).
    var isEmpty: Bool {
        let now = ContinuousClock.now
        return table.withLock { table in
            table = table.filter { $0.value.expires > now }
            return table.isEmpty
        }
    }

    /// A new grant for `caller`: its random token. `service`: the item service it is limited to (a grant
    /// given inside a window of that service).
    func issue(connection: String, uid: UInt32, method: Grant.Method, service: String? = nil) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<Self.tokenSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let grant = Grant(connection: connection, uid: uid, method: method, expires: .now + Self.lifetime, service: service)
        table.withLock { $0[token] = grant }
        return token
    }

    /// The grant `token` names, if it is alive and was issued to this connection and uid; `nil` for an
    /// empty token; `vaultLocked` for any other.
    func grant(_ token: [UInt8], connection: String, uid: UInt32) throws(VaultError) -> Grant? {
        guard !token.isEmpty else { return nil }
        let now = ContinuousClock.now
        let grant = table.withLock { table -> Grant? in
            table = table.filter { $0.value.expires > now }
            return table[token]
        }
        guard let grant, grant.connection == connection, grant.uid == uid else {
            throw VaultError(.vaultLocked, underlying: .message("the authentication ended; authenticate again"))
        }
        return grant
    }

    func revoke(_ token: [UInt8], connection: String) {
        table.withLock { table in
            if table[token]?.connection == connection { table[token] = nil }
        }
    }

    /// Ends every grant of a connection that left the bus.
    func revokeAll(connection: String) {
        table.withLock { table in table = table.filter { $0.value.connection != connection } }
    }
}
#endif
