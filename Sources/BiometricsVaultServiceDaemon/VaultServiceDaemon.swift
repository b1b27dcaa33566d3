#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultLinuxAuth
import BiometricsVaultProcess
import BiometricsVaultService
import BiometricsVaultSSH
import BiometricsVaultTPM
import CProcessControl
import Glibc

/// `biometrics-vault service`: the vault service on the system bus (Docs/VaultService.md). It runs as
/// its own system user, which the package creates; D-Bus activation starts it and it exits when idle.
///
/// Each method call is handled in a task of its own, for the user the bus daemon reports as the caller
/// (never what the message says); the server's thread only dispatches. A caller that leaves the bus
/// loses its grants, and its prompts in progress are stopped.
package enum VaultServiceDaemon {
    /// Where the service keeps its state when systemd does not say (`StateDirectory=`).
    package static let defaultStateDirectory = "/var/lib/biometrics-vault"

    /// Serves until idle for `idleExit` (no call in progress and no grant alive), or until the bus goes.
    /// `log` gets one line per start, stop and failure to start: never a secret or an item's key. `tpm`:
    /// the TPM that seals the stores' keys, when there is one.
    ///
    /// The server's loop runs on a thread of its own for its whole life, never on one of Swift's
    /// cooperative threads, which serve the calls.
    package static func run(
        stateDirectory: String, idleExit: Duration, tpm: TPMConfiguration = TPMConfiguration(), log: @escaping @Sendable (String) -> Void
    ) async throws {
        let result: Result<Void, any Error> = await withCheckedContinuation { continuation in
            let status = DedicatedThread.start(name: "vault-service") {
                do {
                    try serve(stateDirectory: stateDirectory, idleExit: idleExit, tpm: tpm, log: log)
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            if status != 0 {
                continuation.resume(returning: .failure(VaultError(.storeUnavailable, underlying: .errno(status))))
            }
        }
        try result.get()
    }

    private static func serve(
        stateDirectory: String, idleExit: Duration, tpm: TPMConfiguration, log: @escaping @Sendable (String) -> Void
    ) throws {
        guard getuid() != 0 else {
            throw VaultError(.storeUnavailable, underlying: .message(
                "the vault service runs as its own system user (biometrics-vault), not as root"))
        }
        // Same-uid processes must not read its memory (ptrace, /proc/PID/mem); no core dump of its keys.
        _ = bv_set_not_dumpable()
        umask(0o077)
        var status = stat()
        guard stat(stateDirectory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid(),
            status.st_mode & 0o077 == 0
        else {
            throw VaultError(.storeUnavailable, underlying: .message(
                "the state directory \(stateDirectory) must exist, be owned by the service's user and closed to others (0700)"))
        }
        let state = DaemonState(requests: VaultServiceRequests(
            stateDirectory: stateDirectory, tpm: tpm, limits: ServiceLimits.load(log: log)))
        // Each unused attestation token holds a pidfd (256 a user): the soft limit of open files (1024
        // under systemd) goes up to the hard one.
        var files = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &files) == 0, files.rlim_cur < files.rlim_max {
            files.rlim_cur = min(files.rlim_max, 65_536)
            _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &files)
        }
        // Without its socket no caller can attest, and no window is used or opened.
        do {
            state.attestation = try PeerAttestation(path: VaultServiceInterface.attestationSocket)
        } catch {
            log("no attestation socket at \(VaultServiceInterface.attestationSocket) (\(error.underlying?.description ?? error.code.name)): unlock windows are off")
        }
        defer { state.attestation?.stop() }
        // logind's session lock, session end and suspend close windows; without logind nothing is
        // signalled, and windows end by their time, `Lock` and their terminal sessions.
        let lockWatcher = try? ScreenLockWatcher(watchesSessionBus: false, watchesSessionRemoval: true) { signal, session in
            state.requests.closeWindows(for: signal, session: session)
        }
        defer { lockWatcher?.stop() }
        do throws(DBusFailure) {
            let server = try DBusObjectServer(
                bus: .system, name: VaultServiceInterface.busName, interfaceXML: VaultServiceInterface.introspectionXML,
                ownership: .exclusive, tree: VaultServiceObject(state: state))
            try server.serve(subtreeAt: VaultServiceInterface.objectPath)
            state.server = server
            let connection = server.connection
            state.requests.prompters.send { destination, event in
                connection.emit(
                    to: destination, path: VaultServiceInterface.objectPath, interface: VaultServiceInterface.interface,
                    member: event.signal.rawValue, event.arguments)
            }
            defer { state.requests.prompters.send(through: nil) }
            // The server's handlers hold the state, which holds the server: let go when serving ends.
            defer { state.server = nil }
            func checkIdle() {
                if state.isIdle(for: idleExit) {
                    server.stop()
                } else {
                    server.schedule(after: .seconds(1)) { checkIdle() }
                }
            }
            server.schedule(after: .seconds(1)) { checkIdle() }
            try server.run(ready: { log("serving \(VaultServiceInterface.busName) as uid \(getuid()) from \(stateDirectory)") })
        } catch {
            throw VaultServiceInterface.vaultError(error)
        }
        log("idle for \(idleExit): exiting")
    }
}

/// The service's running state: calls in progress (by caller, so a departure can cancel them) and the
/// time of the last one.
final class DaemonState: Sendable {
    let requests: VaultServiceRequests
    private let running = LockedValue<(calls: [String: [Int: Task<Void, Never>]], next: Int, last: ContinuousClock.Instant)>(([:], 0, .now))
    private let callers = LockedValue<[String: DBusPeerCredentials]>([:])
    /// The process each connection attested, by its unique name.
    private let attested = LockedValue<[String: AttestedProcess]>([:])
    private let serverBox = LockedValue<DBusObjectServer?>(nil)
    private let attestationBox = LockedValue<PeerAttestation?>(nil)
    /// The users whose `Audit` call is running.
    private let auditing = LockedValue<Set<UInt32>>([])

    init(requests: VaultServiceRequests) { self.requests = requests }

    var server: DBusObjectServer? {
        get { serverBox.withLock { $0 } }
        set { serverBox.withLock { $0 = newValue } }
    }

    var attestation: PeerAttestation? {
        get { attestationBox.withLock { $0 } }
        set { attestationBox.withLock { $0 = newValue } }
    }

    func isIdle(for idle: Duration) -> Bool {
        let quiet = running.withLock { $0.calls.isEmpty && ContinuousClock.now - $0.last >= idle }
        return quiet && requests.grants.isEmpty && requests.windows.isEmpty
    }

    /// A caller left the bus: its grants end, its calls in progress (a prompt) are cancelled, and it is
    /// no prompter any more.
    func left(_ connection: String) {
        callers.withLock { $0[connection] = nil }
        requests.prompters.left(connection)
        attested.withLock { $0[connection] = nil }
        requests.grants.revokeAll(connection: connection)
        let tasks = running.withLock { $0.calls[connection].map { Array($0.values) } ?? [] }
        for task in tasks { task.cancel() }
    }

    func dispatch(_ call: DBusMethodCall) {
        let request: VaultServiceRequest
        do {
            request = try VaultServiceRequest(member: call.member, parameters: call.parameters)
        } catch {
            call.fail(name: "org.freedesktop.DBus.Error.InvalidArgs", message: error.message)
            return
        }
        // An attestation token is claimed as its call arrives: the time the call then waits for a busy
        // service does not age it.
        let claim: PeerAttestation.Claim? = if case .attest(let token) = request {
            attestation?.claim(token, arrived: .now)
        } else {
            nil
        }
        let sender = call.sender
        running.withLock { state in
            let id = state.next
            state.next += 1
            state.last = .now
            let task = Task { [self] in
                await handle(call, request, claim: claim)
                running.withLock { state in
                    state.calls[sender]?[id] = nil
                    if state.calls[sender]?.isEmpty == true { state.calls[sender] = nil }
                    state.last = .now
                }
            }
            state.calls[sender, default: [:]][id] = task
        }
    }

    private func caller(_ sender: String) throws(VaultError) -> Caller {
        let process = attested.withLock { $0[sender] }
        if let known = callers.withLock({ $0[sender] }) {
            return Caller(connection: sender, uid: known.uid, pid: known.pid, process: process)
        }
        guard let server else { throw VaultError(.storeUnavailable, underlying: .message("the service is stopping")) }
        let credentials: DBusPeerCredentials
        do { credentials = try server.credentials(of: sender) } catch {
            throw VaultError(.storeUnavailable, underlying: .message("the bus did not say who is calling"))
        }
        callers.withLock { $0[sender] = credentials }
        return Caller(connection: sender, uid: credentials.uid, pid: credentials.pid, process: process)
    }

    /// The caller's session and process tree, read now (``ServiceWindows/scopes(of:sessions:)``).
    private func scopes(_ caller: Caller) -> ServiceWindows.CallerScopes {
        ServiceWindows.scopes(of: caller, sessions: requests.sessions)
    }

    /// Answers `call`; `claim` is the attestation token an `Attest` call claimed as it arrived.
    private func handle(_ call: DBusMethodCall, _ request: VaultServiceRequest, claim: PeerAttestation.Claim?) async {
        var audited: (caller: Caller, event: String, item: String?)?
        do {
            let caller = try caller(call.sender)
            // What only ends things is never refused: a user at the limit can still cancel and lock. Nor is
            // `Attest`, which holds nothing: refused, it would leave the connection's next call outside
            // every window.
            let counted = ![.attest, .lock, .revoke, .cancelAuthentication, .cancelPrompt].contains(request.method)
            if counted { try requests.admission.begin(uid: caller.uid) }
            defer { if counted { requests.admission.end(uid: caller.uid) } }
            switch request {
            case .attest:
                // The process the kernel named at the service's socket, if the bus reports the same uid and
                // pid for this connection now: both are the process that connected to the bus.
                guard let process = claim?.process(uid: caller.uid, pid: Int32(bitPattern: caller.pid)) else {
                    throw VaultError(.authenticationFailed, underlying: .message(
                        "no such attestation for this connection's process (a token is good once, for 10 s, for the process that took it)"))
                }
                attested.withLock { $0[call.sender] = process }
                call.reply(nil)
            case .status:
                call.reply(try requests.status(caller, scope: scopes(caller).session).argument)
            case .authenticate(let policy, let reason, let service, let windowSeconds, let scope):
                audited = (caller, "authenticate", service)
                let (token, enrollment, how) = try await requests.authenticate(
                    caller, policy: policy, reason: reason, service: service, windowSeconds: Int(windowSeconds), windowScope: scope,
                    scopes: scopes(caller))
                requests.audit.record(caller, "authenticate", item: service, result: "\(policy): \(how)")
                audited = nil
                call.reply(.tuple([.bytes(token), .string(enrollment?.value ?? "")]))
            case .authenticateOwner(let reason):
                audited = (caller, "authenticateOwner", nil)
                let shown = try await requests.authenticateOwner(caller, reason: reason)
                requests.audit.record(caller, "authenticateOwner", result: "password; shown: \(shown)")
                audited = nil
                call.reply(nil)
            case .lock:
                call.reply(.tuple([.uint32(UInt32(clamping: requests.lock(caller)))]))
            case .audit(let since):
                // One at a time per user, on a thread of its own: reading a user's log takes no thread
                // the other calls are served on, and no CPU they want.
                let since = Int64(clamping: since)
                let uid = caller.uid
                guard auditing.withLock({ $0.insert(uid).inserted }) else {
                    throw VaultError(.storeUnavailable, underlying: .message("another Audit call of this user is running"))
                }
                defer { auditing.withLock { _ = $0.remove(uid) } }
                let audit = requests.audit
                let entries = try await DedicatedThread.run(name: "vault-audit") { () throws(VaultError) in
                    // The lowest priority for this thread alone: a user's audit reads take the CPU only
                    // when the calls of others leave it idle.
                    _ = bv_set_thread_nice(19)
                    return audit.entries(uid: uid, since: since)
                }
                call.reply(.tuple([.strings(entries)]))
            case .cancelAuthentication:
                // Every call of this connection in progress: the prompts it started (and this call, which
                // has nothing left to cancel).
                let tasks = running.withLock { $0.calls[call.sender].map { Array($0.values) } ?? [] }
                for task in tasks { task.cancel() }
                call.reply(nil)
            case .revoke(let grant):
                requests.grants.revoke(grant, connection: caller.connection)
                call.reply(nil)
            case .read(let service, let key, let grant):
                let item = "\(service)/\(key)"
                audited = (caller, "read", item)
                let stored = try requests.read(caller, service: service, key: key, token: grant)
                audited = nil
                guard let stored else {
                    requests.audit.record(caller, "read", item: item, result: "absent")
                    call.reply(.tuple([.bool(false), .string(""), .bool(false), .bytes([])]))
                    return
                }
                let released = stored.payload != nil
                requests.audit.record(caller, "read", item: item, result: released ? "released" : "locked: header only")
                call.reply(.tuple([
                    .bool(true), .string(stored.header.attributeValue), .bool(released), .secretBytes(stored.payload ?? SecretBytes([])),
                ]))
            case .write(let service, let key, let header, let payload, let condition, let expected, let grant):
                let item = "\(service)/\(key)"
                audited = (caller, "write", item)
                try requests.write(
                    caller, service: service, key: key, header: header, payload: payload,
                    condition: try VaultServiceInterface.decodeCondition(kind: condition, expected: expected), token: grant)
                requests.audit.record(caller, "write", item: item, result: "written")
                audited = nil
                call.reply(nil)
            case .delete(let service, let key):
                let item = "\(service)/\(key)"
                audited = (caller, "delete", item)
                try requests.delete(caller, service: service, key: key)
                requests.audit.record(caller, "delete", item: item, result: "deleted")
                audited = nil
                call.reply(nil)
            case .registerPrompter:
                let previous = requests.prompters.register(uid: caller.uid, connection: caller.connection)
                if let previous {
                    requests.prompters.tell(previous, .replaced(by: "\(AuditLog.describe(pid: caller.processID)) (pid \(caller.processID))"))
                }
                requests.audit.record(
                    caller, "prompterRegistered", result: previous.map { "registered, replacing the prompter \($0)" } ?? "registered")
                call.reply(nil)
            case .cancelPrompt(let prompt):
                guard requests.prompters.cancel(prompt, uid: caller.uid) else {
                    throw VaultError(.itemNotFound, underlying: .message("no prompt \(prompt) of this user is shown"))
                }
                requests.audit.record(caller, "promptCancelled", result: "prompt \(prompt)")
                call.reply(nil)
            case .sshKeys:
                let keys = try requests.sshKeys(caller).map { key in
                    DBusArgument.tuple([
                        .string(key.name), .string(key.publicKey.openSSH(comment: key.name)), .string(key.policy), .bool(key.confirm),
                        .uint64(key.expires), .bool(key.generated),
                    ])
                }
                call.reply(.tuple([.array(of: "(sssbtb)", keys)]))
            case .sshKeyGenerate(let name, let type, let policy):
                audited = (caller, "sshKeyGenerate", "\(SSHKeyRecord.service)/\(name)")
                let key = try requests.sshKeyGenerate(caller, name: name, type: type, policy: policy)
                requests.audit.record(caller, "sshKeyGenerate", item: audited?.item, result: "\(key.type.rawValue) \(key.fingerprint), \(policy)")
                audited = nil
                call.reply(.tuple([.string(key.openSSH(comment: name))]))
            case .sshKeyImport(let name, let serialized, let policy, let confirm, let lifetime):
                audited = (caller, "sshKeyImport", "\(SSHKeyRecord.service)/\(name)")
                let key = try requests.sshKeyImport(
                    caller, name: name, key: serialized, policy: policy, confirm: confirm, lifetimeSeconds: lifetime)
                requests.audit.record(
                    caller, "sshKeyImport", item: audited?.item,
                    result: "\(key.type.rawValue) \(key.fingerprint), \(policy)" + (confirm ? ", confirm" : "") + (lifetime > 0 ? ", for \(lifetime) s" : ""))
                audited = nil
                call.reply(.tuple([.string(key.openSSH(comment: name))]))
            case .sshKeyDelete(let name):
                audited = (caller, "sshKeyDelete", "\(SSHKeyRecord.service)/\(name)")
                try requests.sshKeyDelete(caller, name: name)
                requests.audit.record(caller, "sshKeyDelete", item: audited?.item, result: "deleted")
                audited = nil
                call.reply(nil)
            case .sshSign(let publicKey, let data, let flags, let binding, let reason, let window):
                audited = (caller, "sshSign", nil)
                let signed = try await requests.sshSign(
                    caller, publicKey: publicKey, data: data, flags: flags, binding: binding, reason: reason, windowSeconds: Int(window),
                    scopes: { self.scopes(caller) })
                requests.audit.record(caller, "sshSign", item: "\(SSHKeyRecord.service)/\(signed.name)", result: "\(signed.what): \(signed.how)")
                audited = nil
                call.reply(.tuple([.bytes(signed.signature)]))
            case .list(let service):
                let listing = try requests.listing(caller, service: service)
                call.reply(.tuple([.strings(listing.keys), .uint32(UInt32(clamping: listing.unreadable))]))
            }
        } catch let error as VaultError {
            // With its reason, in the service's own words (never a secret: VaultError's rule).
            if let audited {
                requests.audit.record(
                    audited.caller, audited.event, item: audited.item,
                    result: "refused: \(error.code.name)" + (error.underlying.map { " (\($0))" } ?? ""))
            }
            call.fail(name: VaultServiceInterface.errorName(error.code), message: error.underlying?.description ?? error.code.name)
        } catch {
            if let audited { requests.audit.record(audited.caller, audited.event, item: audited.item, result: "refused: storeUnavailable") }
            call.fail(name: VaultServiceInterface.errorName(.storeUnavailable), message: String(describing: type(of: error)))
        }
    }
}
/// The service's one object, as the D-Bus server serves it: its interface at
/// ``VaultServiceInterface/objectPath``, no properties, every call to ``DaemonState/dispatch(_:)`` and
/// every departure from the bus to ``DaemonState/left(_:)``.
private final class VaultServiceObject: DBusObjectTree {
    private let state: DaemonState

    init(state: DaemonState) { self.state = state }

    func interfaces(at path: String) -> [String]? {
        path == VaultServiceInterface.objectPath ? [VaultServiceInterface.interface] : nil
    }

    func children(of path: String) -> [String] { [] }
    func handle(_ call: DBusMethodCall) { state.dispatch(call) }
    func property(_ name: String, interface: String, at path: String, sender: String) -> DBusArgument? { nil }
    func setProperty(_ name: String, interface: String, at path: String, sender: String, value: DBusValue) -> Bool { false }
    func peerLeft(_ uniqueName: String) { state.left(uniqueName) }
}
#endif
