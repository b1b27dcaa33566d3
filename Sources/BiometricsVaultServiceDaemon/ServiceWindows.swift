#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultLinuxAuth
import BiometricsVaultProcess
import CProcessControl
import Glibc

/// Unlock windows inside the vault service. Only the service's own successful authentication opens
/// one, for one user, one session, one item service and one policy; a later call is inside it only when
/// the bus says it is that user's and its process (pinned by a pidfd while its scope is read) runs in
/// that same session. Where logind runs, the session is the caller's logind session together with its
/// terminal session where it has a controlling terminal (so another terminal of the same desktop, or a
/// process that left its terminal with `setsid`, is asked); where no logind runs, the terminal session
/// alone. A terminal session is the same controlling terminal, session id and session leader (its start
/// time and pidfd inode), so a reused pid or a session re-created on the same pty never inherits one.
///
/// A window ends at its time, on `Lock`, when its terminal session's leader is gone, when its logind
/// session is closing or gone, when the enrolled fingers it was opened with are no longer the enrolled
/// set (checked at each use), on logind's `Lock` of the session it was opened in (and of any session,
/// for a window opened outside logind's sessions), on `SessionRemoved` of that session, on
/// `PrepareForSleep(true)` (every window of every user: a signal can only close windows), and with the
/// service: they are kept in memory only.
final class ServiceWindows: Sendable {
    /// Who is inside a window.
    enum Scope: Hashable, Sendable, CustomStringConvertible {
        /// The processes of one terminal session, where no logind runs.
        case terminal(PeerScope)
        /// The processes of one logind session (its object path) in one terminal session of it, or,
        /// `terminal` nil, those of it without a controlling terminal.
        case login(session: String, terminal: PeerScope?)
        /// One process (`unlock --for-command`, which then becomes the command) and its descendants, for as
        /// long as that process runs: named by its pid and start time, so a later process given the pid is
        /// not it.
        case processTree(pid: Int32, startTime: UInt64)

        var description: String {
            switch self {
            case .terminal(let scope): "\(scope)"
            case .login(let session, let terminal):
                "logind session \(LoginSessions.id(ofPath: session)), \(terminal.map { "\($0)" } ?? "without a terminal")"
            case .processTree(let pid, _): "the process tree of pid \(pid)"
            }
        }

        /// Whether the terminal session, or the tree's first process, still runs.
        var isCurrent: Bool {
            switch self {
            case .terminal(let scope): scope.isCurrent
            case .login(_, let terminal): terminal?.isCurrent ?? true
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
        /// The logind session (object path) of the process whose check opened it, if it was in one.
        let session: String?
    }

    /// The longest window: a day, as for the agent's (`AgentFrame.maximumWindowSeconds`).
    static let maximumSeconds = 86_400
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

    /// Opens (or renews) a window, opened by a process of the logind session `session`; `false` when the
    /// user holds too many.
    func open(_ key: Key, seconds: Int, method: Grant.Method, session: String?) -> Bool {
        let now = ContinuousClock.now
        let window = Window(method: method, expires: now + .seconds(min(seconds, Self.maximumSeconds)), session: session)
        return table.withLock { table in
            // Windows of the user that ended (their time, their process tree) take no place: dropped here.
            table = table.filter { $0.key.uid != key.uid || ($0.value.expires > now && $0.key.scope.isCurrent) }
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

    /// Closes the windows opened in the logind session `session`, and, `orNone`, those opened outside
    /// any; how many each user had open (a window whose time or session had already ended is not counted).
    func close(session: String, orNone: Bool) -> [UInt32: Int] {
        let now = ContinuousClock.now
        return table.withLock { table in
            let closing = table.filter { $0.value.session == session || (orNone && $0.value.session == nil) }
            table = table.filter { closing[$0.key] == nil }
            let open = closing.filter { $0.value.expires > now && $0.key.scope.isCurrent }
            return Dictionary(open.keys.map { ($0.uid, 1) }, uniquingKeysWith: +)
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
                guard key.uid == uid, key.scope == scope, window.expires > now, key.scope.isCurrent else { return nil }
                return (key.service, key.policy, Int((window.expires - now).components.seconds))
            }
        }
    }

    /// Where the caller is, as far as windows go: its session (``Scope/login(session:terminal:)`` where
    /// logind runs, ``Scope/terminal(_:)`` where it does not; `nil` where logind puts it in no session,
    /// or it has no controlling terminal and no logind runs), its logind session's object path, and
    /// itself and each of its ancestors as the first process of a tree.
    struct CallerScopes: Sendable {
        var session: Scope?
        var loginSession: String?
        var tree: [Scope]

        static let none = CallerScopes(session: nil, loginSession: nil, tree: [])
    }

    /// The scopes the caller's process is in, read now; none for a caller whose connection no process
    /// attested (``PeerAttestation``), or whose attesting process has exited.
    ///
    /// The process is the one the kernel named when it connected to the service's socket, pinned by the
    /// pidfd the service keeps for it: `/proc/PID/stat` is read and logind is asked about the pid while
    /// that pidfd's process is alive, so the answers are that process's. An ancestor is read from `/proc`
    /// after that (a process whose parent exited has been given another parent, and is outside the first
    /// parent's tree).
    static func scopes(of caller: Caller, sessions: LoginSessions) -> CallerScopes {
        guard let process = caller.process, let pid = process.pid else { return .none }
        var owner = stat()
        guard stat("/proc/\(pid)", &owner) == 0, owner.st_uid == caller.uid, let own = ProcessStat.read(pid: pid) else { return .none }
        let membership = sessions.membership(ofProcess: UInt32(bitPattern: pid))
        guard process.isAlive else { return .none }
        var tree: [Scope] = [.processTree(pid: pid, startTime: own.startTime)]
        var next = own.parent
        while next > 1, tree.count < 64, let parent = ProcessStat.read(pid: Int32(next)) {
            tree.append(.processTree(pid: Int32(next), startTime: parent.startTime))
            next = parent.parent
        }
        let terminal = PeerScope.of(stat: own)
        switch membership {
        case .session(let path): return CallerScopes(session: .login(session: path, terminal: terminal), loginSession: path, tree: tree)
        case .none: return CallerScopes(session: nil, loginSession: nil, tree: tree)
        case .noLogind: return CallerScopes(session: terminal.map(Scope.terminal), loginSession: nil, tree: tree)
        }
    }
}
#endif
