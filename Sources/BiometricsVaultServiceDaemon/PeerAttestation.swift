#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultLinuxAuth
import BiometricsVaultProcess
import BiometricsVaultService
import Glibc

/// A process the kernel named as the peer of the service's own socket: the pidfd `SO_PEERPIDFD` gave for
/// it, which refers to that process and to no later one given its pid, kept open for as long as this
/// lives.
final class AttestedProcess: Sendable {
    private let pidfd: Int32
    let uid: UInt32

    init(pidfd: Int32, uid: UInt32) {
        self.pidfd = pidfd
        self.uid = uid
    }

    deinit { close(pidfd) }

    /// Its pid, or `nil` once it has exited. A caller that reads `/proc/PID` for it checks
    /// ``isAlive`` after the read: until then the pid cannot have been given to another process.
    var pid: Int32? {
        guard isAlive else { return nil }
        let descriptor = open("/proc/self/fdinfo/\(pidfd)", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 512)
        let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard got > 0 else { return nil }
        let line = String(decoding: bytes[..<got], as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("Pid:") }
        guard let pid = line.flatMap({ Int32(String($0.dropFirst(4).filter { !$0.isWhitespace })) }), pid > 0 else { return nil }
        return pid
    }

    var isAlive: Bool { ProcessStat.isAlive(pidfd: pidfd) }
}

/// The service's attestation socket (``VaultServiceInterface/attestationSocket``). A client connects;
/// the service takes the kernel's record of who connected (a pidfd, the uid and pid), answers with a
/// random token and closes. The client's `Attest(token)` on the bus then binds that process to its bus
/// connection, if the bus reports the same uid and pid for it: from then on every call of that
/// connection is that process, whatever pid numbers are reused later. A pid number read from the bus is
/// never turned into a pidfd.
///
/// A token is good once, for ``tokenLifetime``; a user holds at most ``pendingPerUser`` unused ones (an
/// older one is dropped first), so connecting in a loop holds no more than that many pidfds.
final class PeerAttestation: Sendable {
    static let tokenLifetime: Duration = .seconds(10)
    /// Enough for a user's parallel commands (a build's credential helpers); each holds a pidfd.
    static let pendingPerUser = 256

    fileprivate struct Pending: Sendable {
        let process: AttestedProcess
        let pid: Int32
        let issued: ContinuousClock.Instant
    }

    private let listener: Int32
    private let pending = LockedValue<[[UInt8]: Pending]>([:])

    /// Listens at `path` (its directory must exist: the unit's `RuntimeDirectory=`, or tmpfiles.d) and
    /// serves it on a thread of its own until ``stop()``. Throws why it cannot.
    init(path: String) throws(VaultError) {
        // Every user connects to it; the token it answers is good only for the process that connected.
        let socket = try UnixSocket.listen(at: path, mode: 0o666)
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) & ~O_NONBLOCK)
        listener = socket
        let status = DedicatedThread.start(name: "vault-attest") { [self] in serve() }
        guard status == 0 else {
            close(socket)
            throw VaultError(.storeUnavailable, underlying: .errno(status))
        }
    }

    /// Stops accepting (the thread's `accept` returns) and forgets every token.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        pending.withLock { $0 = [:] }
    }

    /// A token claimed by the call that carried it (``claim(_:arrived:)``): the process it was issued to,
    /// until the call's caller is checked against it (``process(uid:pid:)``).
    struct Claim: Sendable {
        fileprivate let pending: Pending

        /// The process the token was issued to, if that was `uid` and is still `pid`.
        func process(uid: UInt32, pid: Int32) -> AttestedProcess? {
            guard pending.process.uid == uid, pending.pid == pid, pending.process.pid == pid else { return nil }
            return pending.process
        }
    }

    /// Takes `token` for the call that `arrived` with it, if it is unused and was issued less than
    /// ``tokenLifetime`` before that call arrived: how long the call then waits for a busy service to
    /// handle it does not age the token. The token is used up either way.
    func claim(_ token: [UInt8], arrived: ContinuousClock.Instant) -> Claim? {
        guard token.count == VaultServiceInterface.attestationTokenLength,
            let found = pending.withLock({ $0.removeValue(forKey: token) }),
            arrived - found.issued < Self.tokenLifetime
        else { return nil }
        return Claim(pending: found)
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                // Out of descriptors: a moment for some to be closed, rather than a busy loop.
                if errno == EMFILE || errno == ENFILE {
                    usleep(50_000)
                    continue
                }
                close(listener)
                return
            }
            answer(connection)
            close(connection)
        }
    }

    /// Records the peer of `connection` and sends it its token. On a kernel without `SO_PEERPIDFD` the
    /// pidfd is opened from the peer's pid at accept, while the peer waits for its token (as the agent's
    /// peers are pinned, SECURITY.md).
    private func answer(_ connection: Int32) {
        guard let peer = UnixSocket.peerCredentials(connection) else { return }
        let (pidfd, _) = PeerProcess.pin(socket: connection, credentials: peer)
        guard pidfd >= 0 else { return }
        let uid = peer.uid, pid = peer.pid
        let process = AttestedProcess(pidfd: pidfd, uid: uid)
        var generator = SystemRandomNumberGenerator()
        let token = (0..<VaultServiceInterface.attestationTokenLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let now = ContinuousClock.now
        pending.withLock { pending in
            pending = pending.filter { now - $0.value.issued < Self.tokenLifetime }
            let mine = pending.filter { $0.value.process.uid == uid }.sorted { $0.value.issued < $1.value.issued }
            for (old, _) in mine.prefix(max(0, mine.count - Self.pendingPerUser + 1)) { pending[old] = nil }
            pending[token] = Pending(process: process, pid: pid, issued: now)
        }
        _ = UnixSocket.writeAll(connection, token)
    }
}
#endif
