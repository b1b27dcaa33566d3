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
/// it was opened with are no longer the enrolled set (checked at each use), on logind's `Lock` of any
/// session and `PrepareForSleep(true)` (every window of every user: a signal can only close windows),
/// and with the service: they are kept in memory only.
final class ServiceWindows: Sendable {
    /// Who is inside a window.
    enum Scope: Hashable, Sendable, CustomStringConvertible {
        /// The processes of one terminal session.
        case terminal(PeerScope)
        /// One process (`unlock --for-command`, which then becomes the command) and its descendants, for as
        /// long as that process runs: named by its pid and start time, so a later process given the pid is
        /// not it.
        case processTree(pid: Int32, startTime: UInt64)

        var description: String {
            switch self {
            case .terminal(let scope): "\(scope)"
            case .processTree(let pid, _): "the process tree of pid \(pid)"
            }
        }

        /// Whether the terminal session, or the tree's first process, still runs.
        var isCurrent: Bool {
            switch self {
            case .terminal(let scope): scope.isCurrent
            case .processTree(let pid, let startTime):
                ProcessStat.read(pid: pid).map { $0.startTime == startTime && $0.state != "Z" && $0.state != "X" } ?? false
            }
        }
    }

    struct Key: Hashable, Sendable {
        let uid: UInt32
        let scope: Scope
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

    /// Closes every window of every user; how many each user had open (a window whose time or session
    /// had already ended is not counted).
    func closeEverything() -> [UInt32: Int] {
        let now = ContinuousClock.now
        return table.withLock { table in
            let open = table.filter { $0.value.expires > now && $0.key.scope.isCurrent }
            table = [:]
            return Dictionary(open.keys.map { ($0.uid, 1) }, uniquingKeysWith: +)
        }
    }

    /// The open windows of `uid` in `scope`: item service, policy, seconds left.
    func open(uid: UInt32, scope: Scope) -> [(service: String, policy: ProtectionPolicy, seconds: Int)] {
        let now = ContinuousClock.now
        return table.withLock { table in
            table.compactMap { key, window in
                guard key.uid == uid, key.scope == scope, window.expires > now else { return nil }
                return (key.service, key.policy, Int((window.expires - now).components.seconds))
            }
        }
    }

    /// The scopes the caller's process is in, read now: its terminal session (when it has a controlling
    /// terminal whose session leader runs), then itself and each of its ancestors as the first process
    /// of a tree. Empty when the process is not the caller's any more.
    ///
    /// The pidfd is opened first, then `stillCalling` asks the bus whether the caller's connection is
    /// still there with the same pid: a process's connection closes when it exits, and a pid is given to
    /// another process only after that, so the pidfd is the caller's. `/proc/PID/stat` is read while the
    /// pidfd's process is alive. A caller that handed its connection to a child and exited is not
    /// told apart from that child (the bus reports the pid that connected). An ancestor is read from
    /// `/proc` after that (a process whose parent exited has been given another parent, and is outside
    /// the first parent's tree).
    static func scopes(of caller: Caller, stillCalling: () -> Bool) -> (terminal: PeerScope?, tree: [Scope]) {
        let pid = Int32(bitPattern: caller.pid)
        let pidfd = bv_pidfd_open(pid)
        guard pidfd >= 0 else { return (nil, []) }
        defer { Glibc.close(pidfd) }
        var owner = stat()
        guard stillCalling(), stat("/proc/\(pid)", &owner) == 0, owner.st_uid == caller.uid, ProcessStat.isAlive(pidfd: pidfd),
            let own = ProcessStat.read(pid: pid), ProcessStat.isAlive(pidfd: pidfd)
        else { return (nil, []) }
        var tree: [Scope] = [.processTree(pid: pid, startTime: own.startTime)]
        var next = own.parent
        while next > 1, tree.count < 64, let parent = ProcessStat.read(pid: Int32(next)) {
            tree.append(.processTree(pid: Int32(next), startTime: parent.startTime))
            next = parent.parent
        }
        return (PeerScope.of(stat: own), tree)
    }
}
#endif
