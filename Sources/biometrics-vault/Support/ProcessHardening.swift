#if os(Linux)
import CProcessControl
import Glibc

/// What the CLI does to its own process before anything else, so a secret it holds never reaches a core
/// file and a write to a closed pipe is an error it reports rather than a silent death.
enum ProcessHardening {
    static func apply() {
        // Not dumpable: no core file at all (whatever core_pattern says, unless root set suid_dumpable=2),
        // no ptrace attach by other processes of the user, /proc/<pid>/{mem,environ,...} owned by root.
        _ = bv_set_not_dumpable()
        // And no core size, for a core_pattern handler that honours the limit.
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
        // EPIPE instead of SIGPIPE: Console reports the failed write and exits with its documented status.
        signal(SIGPIPE, SIG_IGN)
    }
}
#else
import Foundation

/// Elsewhere only SIGPIPE is ignored (see the Linux version).
enum ProcessHardening {
    static func apply() {
        signal(SIGPIPE, SIG_IGN)
    }
}
#endif
