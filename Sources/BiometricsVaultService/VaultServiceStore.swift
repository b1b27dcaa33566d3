#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultProcess
import Glibc

/// The vault service as a `SecretStore`: items kept by `biometrics-vault service`, a system service under
/// its own uid, for the calling user only (Docs/VaultService.md).
///
/// Shaped like the Apple Keychain: the store enforces. `read` of a protected item without an
/// ``Authorization`` from ``VaultServiceAuthenticator`` returns its header and no payload; the service
/// releases the payload only to the connection that authenticated, after its own fingerprint match or
/// polkit password check for the caller's uid. Replacing a protected item needs such an authorization
/// too; deleting one does not (as on Apple platforms).
///
/// Every call is bounded by ``timeout``. A service that is not installed, not running and not activatable,
/// or that does not answer, is `storeUnavailable`.
public struct VaultServiceStore: SecretStore {
    /// How long one call waits for the service (its start by D-Bus activation included); by default the
    /// bus's own 25 s (``VaultServiceInterface/callTimeout``).
    public let timeout: Duration

    public init(timeout: Duration = .seconds(25)) {
        self.timeout = timeout
    }

    public var name: String { "service" }

    /// What a ping of the vault service found.
    package enum Ping: Sendable {
        case answered
        /// No system bus, or no service by that name (not installed, or not activatable).
        case absent(VaultError)
        /// The service is there and did not answer (activation failed, timed out, refused).
        case failed(VaultError)
    }

    /// Pings the vault service on the system bus (`org.freedesktop.DBus.Peer.Ping`, which D-Bus
    /// activation answers by starting it). Never prompts.
    package static func ping(timeout: Duration = VaultServiceInterface.callTimeout) -> Ping {
        do {
            _ = try VaultServiceConnection.connection(timeout: timeout).call(
                DBusMethod(destination: VaultServiceInterface.busName, path: VaultServiceInterface.objectPath,
                           interface: "org.freedesktop.DBus.Peer", member: "Ping"),
                timeout: timeout)
            return .answered
        } catch {
            let vaultError = VaultServiceInterface.vaultError(error)
            return error.kind == .serviceMissing ? .absent(vaultError) : .failed(vaultError)
        }
    }

    public func read(_ id: SecretItemID, authorization: Authorization?) throws -> StoredItem? {
        let reply = try VaultServiceConnection.call(
            .read(service: id.service, key: id.key, grant: VaultServiceGrant.token(of: authorization)), timeout: timeout)
        guard reply[0].bool == true else { return nil }
        let header = try ItemHeader(attributeValue: reply[1].string ?? "")
        guard reply[2].bool == true else { return StoredItem(header: header, payload: nil) }
        var bytes = reply[3].bytes ?? []
        defer { bytes.zeroize() }
        return StoredItem(header: header, payload: SecretBytes(bytes))
    }

    public func write(_ item: StoredItem, for id: SecretItemID, if condition: WriteCondition, authorization: Authorization?) throws {
        guard let payload = item.payload else {
            throw VaultError(.encodingFailed, underlying: .message("write without a payload"))
        }
        let (kind, expected) = VaultServiceInterface.encode(condition)
        _ = try VaultServiceConnection.call(
            .write(
                service: id.service, key: id.key, header: item.header.attributeValue, payload: payload, condition: kind,
                expected: expected, grant: VaultServiceGrant.token(of: authorization)),
            timeout: timeout)
    }

    public func delete(_ id: SecretItemID) throws {
        _ = try VaultServiceConnection.call(.delete(service: id.service, key: id.key), timeout: timeout)
    }

    public func keys(service: String) throws -> [String] {
        try listing(service: service).keys
    }

    public func listing(service: String) throws -> KeyListing {
        let reply = try VaultServiceConnection.call(.list(service: service), timeout: timeout)
        return KeyListing(keys: reply[0].strings ?? [], unreadable: Int(reply[1].uint32 ?? 0))
    }
}

/// The calls of this process to the service, all on one system-bus connection kept for the life of the
/// process: the service ties an authorization to the connection that authenticated (its unique name), so
/// the store's reads and the authenticator's prompts must share it. (GIO's shared connection is no such
/// thing: GIO holds it weakly, and a new one, with a new name, follows once no call holds it.)
enum VaultServiceConnection {
    private static let kept = LockedValue<DBusConnection?>(nil)

    /// The process's connection; a new one only when there is none yet or the bus closed it.
    static func connection(timeout: Duration, cancellation: DBusCancellation? = nil) throws(DBusFailure) -> DBusConnection {
        if let connection = kept.withLock({ $0 }), !connection.isClosed { return connection }
        let connection = try DBusConnection(.system, sharing: .privateConnection, timeout: timeout, cancellation: cancellation)
        return kept.withLock { kept in
            if let existing = kept, !existing.isClosed { return existing }
            kept = connection
            return connection
        }
    }

    /// The calls whose answer depends on which process calls (windows, prompts): the connection is
    /// attested before each (the service may have exited and started again since the last one).
    private static let attestedCalls: Set<VaultServiceMethod> = [.status, .authenticate, .authenticateOwner, .sshSign]

    /// Calls the service with `request`; its reply, of the method's reply type.
    static func call(_ request: VaultServiceRequest, timeout: Duration, cancellation: DBusCancellation? = nil) throws(VaultError) -> DBusValue {
        let method = request.method
        do {
            let connection = try connection(timeout: timeout, cancellation: cancellation)
            if attestedCalls.contains(method) { attest(connection, timeout: timeout) }
            return try connection.call(
                VaultServiceInterface.method(method), request.arguments, replyType: method.replyType, timeout: timeout,
                cancellation: cancellation)
        } catch {
            throw VaultServiceInterface.vaultError(error)
        }
    }

    /// ``call(_:timeout:cancellation:)`` for a call that may run a check (`Authenticate`): `checkStarted`
    /// hears, on this thread and before the reply, of each check the service begins on this connection,
    /// with the reason of the call it is for. Only the name's owner is heard: any program may send this
    /// connection a signal, and the bus names its sender.
    static func call(
        _ request: VaultServiceRequest, timeout: Duration, cancellation: DBusCancellation? = nil,
        checkStarted: (_ check: AuthenticationCheck, _ reason: String) -> Void
    ) throws(VaultError) -> DBusValue {
        let method = request.method
        do {
            let connection = try connection(timeout: timeout, cancellation: cancellation)
            if attestedCalls.contains(method) { attest(connection, timeout: timeout) }
            let subscription = connection.subscribe([DBusSignalMatch(
                sender: nil, path: VaultServiceInterface.objectPath, interface: VaultServiceInterface.interface,
                member: VaultServiceSignal.checkStarted.rawValue)])
            // After `attest`, which starts the service: a service this call starts is looked up when it signals.
            var owner = nameOwner(connection, timeout: timeout)
            return try subscription.call(
                VaultServiceInterface.method(method), request.arguments, replyType: method.replyType, timeout: timeout,
                cancellation: cancellation
            ) { signal in
                if owner == nil { owner = nameOwner(connection, timeout: timeout) }
                guard signal.sender == owner,
                    case .checkStarted(let check, let reason)? = VaultServicePromptEvent(member: signal.member, parameters: signal.parameters)
                else { return }
                checkStarted(check, reason)
            }
        } catch {
            throw VaultServiceInterface.vaultError(error)
        }
    }

    /// The unique name that owns the service's name now, as the bus says; `nil` when none does.
    private static func nameOwner(_ connection: DBusConnection, timeout: Duration) -> String? {
        let method = DBusMethod(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetNameOwner")
        return (try? connection.call(method, .tuple([.string(VaultServiceInterface.busName)]), replyType: "(s)", timeout: timeout))?[0].string
    }

    /// Tells the service which process this connection is, in the kernel's words: this process connects
    /// to the service's own socket (the kernel records it as the peer), reads the token the service
    /// answers, and passes it on the bus (`Attest`). A service that is not running yet is started first
    /// (it listens before it takes its bus name). Without the socket (a service of an earlier version)
    /// nothing is attested, and the service uses and opens no window for this connection.
    private static func attest(_ connection: DBusConnection, timeout: Duration) {
        var token = attestationToken(timeout: timeout)
        if token == nil {
            let start = DBusMethod(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "StartServiceByName")
            guard (try? connection.call(start, .tuple([.string(VaultServiceInterface.busName), .uint32(0)]), timeout: timeout)) != nil else {
                return
            }
            token = attestationToken(timeout: timeout)
        }
        guard var token else { return }
        defer { token.zeroize() }
        _ = try? connection.call(VaultServiceInterface.method(.attest), VaultServiceRequest.attest(token: token).arguments, timeout: timeout)
    }

    /// The token the service's socket answers this process, or `nil` without one.
    private static func attestationToken(timeout: Duration) -> [UInt8]? {
        let seconds = max(1, Int(timeout.components.seconds))
        guard case .success(let socket) = UnixSocket.connect(to: VaultServiceInterface.attestationSocket, timeout: seconds) else {
            return nil
        }
        defer { close(socket) }
        return UnixSocket.readExactly(socket, VaultServiceInterface.attestationTokenLength)
    }
}

/// The service's grant behind an ``Authorization``: an unguessable token the service issued to this
/// process's connection after it authenticated the caller. Useless on any other connection.
final class VaultServiceGrant: AuthorizationContext {
    let token: SecretBytes

    init(token: SecretBytes) { self.token = token }

    static func token(of authorization: Authorization?) -> [UInt8] {
        guard let authorization, authorization.isValid,
            let grant = authorization.context as? VaultServiceGrant
        else { return [] }
        return grant.token.copyBytes()
    }

    /// Tells the service to forget the grant (best effort: it also ends when this process's connection
    /// closes).
    func invalidate() {
        _ = try? VaultServiceConnection.call(.revoke(grant: token.copyBytes()), timeout: .seconds(2))
    }
}
#endif
