#if os(Linux)
import BiometricsVaultAgent
import BiometricsVaultCore
import CProcessControl
import Glibc

/// Unlock windows inside the vault service. Only the service's own successful authentication opens
/// one, for one user, one terminal session, one item service and one policy; a later call is inside it
/// only when the bus says it is that user's and its process (pinned by a pidfd while its scope is read)
/// runs in that same session: same controlling terminal, session id, and session leader (its start time
/// and pidfd inode), so a reused pid or a session re-created on the same pty never inherits one.
///
/// A window ends at its time, on `Lock`, when its session's leader is gone, when the enrolled fingers
/// it was opened with are no longer the enrolled set (checked at each use), and with the service: they
/// are kept in memory only.
final class ServiceWindows: Sendable {
    struct Key: Hashable, Sendable {
        let uid: UInt32
        let scope: PeerScope
        let service: String
        let policy: ProtectionPolicy
    }

    struct Window: Sendable {
        let method: Grant.Method
        let expires: ContinuousClock.Instant
    }

    /// The longest window, as for the agent's.
    static let maximumSeconds = AgentFrame.maximumWindowSeconds
    /// Windows one user may hold at once.
    static let maximumPerUser = 32

    private let table = LockedValue<[Key: Window]>([:])

    var isEmpty: Bool {
        let now = ContinuousClock.now
        return table.withLock { table in
            table = table.filter { $0.value.expires > now && $0.key.scope.isCurrent }
            return table.isEmpty
        }
    }

    /// Opens (or renews) a window; `false` when the user holds too many.
    func open(_ key: Key, seconds: Int, method: Grant.Method) -> Bool {
        let window = Window(method: method, expires: .now + .seconds(min(seconds, Self.maximumSeconds)))
        return table.withLock { table in
            guard table[key] != nil || table.keys.filter({ $0.uid == key.uid }).count < Self.maximumPerUser else { return false }
            table[key] = window
            return true
        }
    }

    /// The open window for `key`, if its time has not passed and its session still runs; an ended one
    /// is dropped, and reported in `ended`.
    func window(_ key: Key) -> (window: Window?, ended: Bool) {
        let now = ContinuousClock.now
        return table.withLock { table in
            guard let window = table[key] else { return (nil, false) }
            guard window.expires > now, key.scope.isCurrent else {
                table[key] = nil
                return (nil, true)
            }
            return (window, false)
        }
    }

    func close(_ key: Key) {
        table.withLock { $0[key] = nil }
    }

    /// Closes every window of `uid`; how many were open.
    func closeAll(uid: UInt32) -> Int {
        table.withLock { table in
            let before = table.count
            table = table.filter { $0.key.uid != uid }
            return before - table.count
        }
    }

    /// The open windows of `uid` in `scope`: item service, policy, seconds left.
    func open(uid: UInt32, scope: PeerScope) -> [(service: String, policy: ProtectionPolicy, seconds: Int)] {
        let now = ContinuousClock.now
        return table.withLock { table in
            table.compactMap { key, window in
                guard key.uid == uid, key.scope == scope, window.expires > now else { return nil }
                return (key.service, key.policy, Int((window.expires - now).components.seconds))
            }
        }
    }

    /// The terminal session of the caller's process, read now: `nil` when it has no controlling
    /// terminal or its session leader is gone, or when the process is not the caller's any more.
    ///
    /// The pidfd is opened first, then `stillCalling` asks the bus whether the caller's connection is
    /// still there with the same pid: a process's connection closes when it exits, and a pid is given to
    /// another process only after that, so the pidfd is the caller's. `/proc/PID/stat` is read while the
    /// pidfd's process is alive. A caller that handed its connection to a child and exited is not
    /// told apart from that child (the bus reports the pid that connected).
    static func scope(of caller: Caller, stillCalling: () -> Bool) -> PeerScope? {
        let pid = Int32(bitPattern: caller.pid)
        let pidfd = bv_pidfd_open(pid)
        guard pidfd >= 0 else { return nil }
        defer { Glibc.close(pidfd) }
        var owner = stat()
        guard stillCalling(), stat("/proc/\(pid)", &owner) == 0, owner.st_uid == caller.uid, ProcessStat.isAlive(pidfd: pidfd),
            let stat = ProcessStat.read(pid: pid), ProcessStat.isAlive(pidfd: pidfd)
        else { return nil }
        return PeerScope.of(stat: stat)
    }
}
#endif
