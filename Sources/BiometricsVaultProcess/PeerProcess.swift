#if os(Linux)
import CProcessControl
import Glibc

/// The process at the other end of one connection, pinned by a pidfd when the agent accepts it, and
/// its scope, read once then: the agent answers about that process and that scope only.
///
/// A pid alone names whichever process has that number when it is looked up: a peer that connects,
/// sends a request and exits (while the agent is stopped, or slow) frees its pid, and a process on
/// another terminal may be given it before the request is served. So the scope is read at accept, from
/// the process a pidfd refers to, and a pidfd never refers to a later process with the same number:
/// - the pidfd comes from the socket itself (`SO_PEERPIDFD`, Linux 6.5 and later): it refers to the
///   process that called `connect()`, even if it has exited since. On older kernels it comes from
///   `pidfd_open` of the `SO_PEERCRED` pid, which is only as good as the pid still being the peer's
///   when the agent accepts (see SECURITY.md);
/// - `/proc/PID/stat` is read between two checks that the pidfd's process is alive: while it is, its pid
///   cannot be anybody else's, so what was read is that process's;
/// - before an answer is sent, ``isStillThere`` checks again (and that its start time is unchanged):
///   an answer that names a scope or carries a key goes to a live peer only.
///
/// Owns the pidfd (closed on release). Used on the agent's one thread only. ``pin(socket:credentials:)``
/// alone also pins the peers of the vault service's attestation socket.
package final class PeerProcess {
    package let pid: Int32
    package let uid: UInt32
    /// The scope read at accept; `nil` when the peer had no terminal, or had gone, or could not be pinned.
    package let scope: PeerScope?
    /// How the peer was pinned, for the log when that was weaker than `SO_PEERPIDFD`.
    package let pinning: Pinning
    private let pidfd: Int32
    private let startTime: UInt64?

    package enum Pinning: Equatable, Sendable {
        /// `SO_PEERPIDFD`: the connecting process itself.
        case socket
        /// `pidfd_open` of the pid at accept (a kernel without `SO_PEERPIDFD`).
        case pidAtAccept
        /// Neither worked: the peer had already exited (or `/proc` is not this pid namespace's).
        case none
    }

    /// `SO_PEERPIDFD` of `<asm-generic/socket.h>`, which Glibc's module leaves out.
    private static let peerPIDFDOption: Int32 = 77

    /// Pins the peer of the accepted `socket`, whose `SO_PEERCRED` are `credentials`.
    package init(socket descriptor: Int32, credentials: PeerCredentials) {
        pid = credentials.pid
        uid = credentials.uid
        let (pinned, how) = Self.pin(socket: descriptor, credentials: credentials)
        pidfd = pinned
        pinning = how
        guard pinned >= 0, ProcessStat.isAlive(pidfd: pinned), let stat = ProcessStat.read(pid: credentials.pid),
            ProcessStat.isAlive(pidfd: pinned)
        else {
            scope = nil
            startTime = nil
            return
        }
        startTime = stat.startTime
        scope = PeerScope.of(stat: stat)
    }

    deinit {
        if pidfd >= 0 { close(pidfd) }
    }

    /// A close-on-exec pidfd of the peer of the accepted `socket` (whose `SO_PEERCRED` are `credentials`),
    /// and how it was had; -1 with ``Pinning/none`` when none could be. The caller owns the pidfd.
    package static func pin(socket descriptor: Int32, credentials: PeerCredentials) -> (pidfd: Int32, pinning: Pinning) {
        var pinned: Int32 = -1
        var how = Pinning.none
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(descriptor, SOL_SOCKET, peerPIDFDOption, &pinned, &length) == 0, pinned >= 0 {
            how = .socket
        } else if errno == ENOPROTOOPT, credentials.pid > 0 {
            pinned = bv_pidfd_open(credentials.pid)
            how = pinned >= 0 ? .pidAtAccept : .none
        } else {
            pinned = -1
        }
        if pinned >= 0 { _ = fcntl(pinned, F_SETFD, FD_CLOEXEC) }
        return (pinned, how)
    }

    /// Whether the pinned process is still alive, and still the process with this pid and start time.
    package var isStillThere: Bool {
        guard pidfd >= 0, let startTime, ProcessStat.isAlive(pidfd: pidfd), let stat = ProcessStat.read(pid: pid),
            ProcessStat.isAlive(pidfd: pidfd)
        else {
            return false
        }
        return stat.startTime == startTime
    }
}
#endif
