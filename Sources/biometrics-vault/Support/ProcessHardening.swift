#if os(Linux)
import CProcessControl
import Glibc
import Synchronization

/// What the CLI does to its own process before anything else, so a secret it holds never reaches a core
/// file and a write to a closed pipe is an error it reports rather than a silent death.
enum ProcessHardening {
    static func apply() {
        // Not dumpable: no core file at all (whatever core_pattern says, unless root set suid_dumpable=2),
        // no ptrace attach by other processes of the user, /proc/<pid>/{mem,environ,...} owned by root.
        _ = bv_set_not_dumpable()
        // And no core size, for a core_pattern handler that honours the limit. Only the soft limit: the
        // hard one stays, so `exec` can hand COMMAND the limit it was started with (restoreForExec).
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit) == 0 {
            originalCoreLimit.withLock { $0 = limit }
            limit.rlim_cur = 0
            _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
        }
        // EPIPE instead of SIGPIPE: Console reports the failed write and exits with its documented status.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Before `exec` replaces the process: COMMAND gets the core limit the CLI was started with (the
    /// dumpable flag is reset by execve itself).
    static func restoreForExec() {
        guard var limit = originalCoreLimit.withLock({ $0 }) else { return }
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
    }

    private static let originalCoreLimit = Mutex<rlimit?>(nil)
}
#else
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Elsewhere only SIGPIPE is ignored (see the Linux version).
enum ProcessHardening {
    static func apply() {
        signal(SIGPIPE, SIG_IGN)
    }

    static func restoreForExec() {}
}
#endif
