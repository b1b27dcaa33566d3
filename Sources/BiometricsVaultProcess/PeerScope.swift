#if os(Linux)
import CProcessControl
import Glibc

/// Where a peer process runs, as far as unlock windows go: its controlling terminal, its session, and
/// the start time of that session's leader, read from `/proc` (as sudo scopes its timestamp per
/// terminal). Two processes share windows only when all three are equal; a process without a
/// controlling terminal, or whose session leader is gone, has no scope and gets no window.
///
/// The leader's identity is what tells a session from a later one that reuses its number: once the
/// leader has exited, a process that is given its pid, calls `setsid()` and takes the same pty as its
/// controlling terminal has the same terminal and session id, but a later start time; and, where pidfds
/// live in pidfs (Linux 6.9 and later), another pidfd inode number, which no two processes of one boot
/// share (the start time only counts clock ticks, 10 ms).
package struct PeerScope: Hashable, Sendable, CustomStringConvertible {
    /// `tty_nr`: the controlling terminal's device number (never 0 here).
    package let terminal: Int
    /// The session id (the session leader's pid).
    package let session: Int
    /// The session leader's start time (`/proc/SID/stat` field 22, clock ticks after boot).
    let leaderStart: UInt64
    /// The inode number of a pidfd of the session leader: unique per process on pidfs; on a kernel
    /// without pidfs every pidfd shares one inode, and the start time alone tells sessions apart.
    let leaderInode: UInt64

    package var description: String {
        "tty \(terminal >> 8 & 0xFFF):\(terminal & 0xFF | (terminal >> 12) & 0xFFF00) session \(session) (leader started at tick \(leaderStart))"
    }

    /// The scope of a process whose `/proc/PID/stat` says `stat`; `nil` when it has no controlling
    /// terminal, or the session's leader is gone (or no longer on that terminal).
    package static func of(stat: ProcessStat) -> PeerScope? {
        guard stat.terminal != 0, stat.session > 0, let leader = Leader.read(session: stat.session),
            leader.stat.isLeader(ofSession: stat.session, onTerminal: stat.terminal)
        else { return nil }
        return PeerScope(terminal: stat.terminal, session: stat.session, leaderStart: leader.stat.startTime, leaderInode: leader.inode)
    }

    /// Whether this process has a controlling terminal: without one it has no scope, so no agent can
    /// hold a window or a key for it, and an answer that says otherwise is not the agent's.
    package static var thisProcessHasTerminal: Bool {
        (ProcessStat.read(pid: getpid())?.terminal ?? 0) != 0
    }

    /// Whether the session this scope names still runs on its terminal: its leader (the same process,
    /// by its start time and pidfd inode) is alive and still has the terminal. A hung-up terminal, an
    /// exited leader or a session that only reuses the number ends every window and key of the scope.
    package var isCurrent: Bool {
        guard let leader = Leader.read(session: session) else { return false }
        return leader.stat.isLeader(ofSession: session, onTerminal: terminal) && leader.stat.startTime == leaderStart
            && leader.inode == leaderInode
    }

    /// The process whose pid is `session`: its stat, read while a pidfd of it was alive (so it is that
    /// process's), and that pidfd's inode number.
    private struct Leader {
        let stat: ProcessStat
        let inode: UInt64

        static func read(session: Int) -> Leader? {
            guard let pid = Int32(exactly: session), pid > 0 else { return nil }
            let pidfd = bv_pidfd_open(pid)
            guard pidfd >= 0 else { return nil }
            defer { close(pidfd) }
            var info = Glibc.stat()
            guard fstat(pidfd, &info) == 0, let leader = ProcessStat.read(pid: pid), ProcessStat.isAlive(pidfd: pidfd) else { return nil }
            return Leader(stat: leader, inode: UInt64(info.st_ino))
        }
    }
}
#endif
