#if os(Linux)
import CProcessControl
import Glibc
import Synchronization

/// What the CLI does to its own process before anything else, so a secret it holds never reaches a core
/// file and a write to a closed pipe is an error it reports rather than a silent death.
enum ProcessHardening {
    static func apply() {
        recordIgnoredSignals()
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

    /// Under an address-space limit (`ulimit -v`, RLIMIT_AS): reserves less (2 MiB thread stacks instead
    /// of RLIMIT_STACK's 8 MiB, one malloc arena instead of a 64 MiB reservation per thread), then checks
    /// that the threads and buffers a command needs still fit. `nil` when they do (or there is no limit);
    /// else the message `main` exits with, before anything starts: a thread that cannot be created made
    /// the CLI wait forever (libdispatch retries) or trap.
    static func addressSpaceShortage() -> String? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return nil
        }
        _ = bv_reserve_less_address_space(2 << 20)
        guard bv_address_space_available(addressSpaceHeadroom) == 0 else { return nil }
        return "the address-space limit (ulimit -v) of \(limit.rlim_cur >> 20) MiB leaves less than "
            + "\(addressSpaceHeadroom >> 20) MiB for the threads and buffers a command needs; raise it"
    }

    /// What a command maps after `main` starts, at most: a few 2 MiB thread stacks (the task pool,
    /// libdispatch's and GIO's D-Bus threads), the TPM and PAM libraries loaded on demand, buffers.
    static let addressSpaceHeadroom = 24 << 20

    /// Whether the caller had `number` ignored when it started the CLI (`nohup` ignores SIGHUP, `trap ''
    /// INT` SIGINT, a daemon SIGPIPE). Such a signal stays ignored: `exec` hands it on to COMMAND ignored,
    /// and a SIGINT the caller ignores never cancels a command (``Interrupts``).
    static func wasIgnoredAtStart(_ number: Int32) -> Bool {
        number > 0 && number < 64 && ignoredAtStart.withLock { $0 } & (1 << UInt64(number)) != 0
    }

    /// Bit n: signal n was SIG_IGN before `apply` changed anything (sigaction reads without changing).
    private static let ignoredAtStart = Mutex<UInt64>(0)

    private static func recordIgnoredSignals() {
        var ignored: UInt64 = 0
        for number in Int32(1)..<32 {
            var action = sigaction()
            guard sigaction(number, nil, &action) == 0 else { continue }
            if unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                ignored |= 1 << UInt64(number)
            }
        }
        ignoredAtStart.withLock { $0 = ignored }
    }
}
#else
import BiometricsVault
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Elsewhere only SIGPIPE is ignored (see the Linux version).
enum ProcessHardening {
    static func apply() {
        var ignored: UInt64 = 0
        for number in Int32(1)..<32 {
            var action = sigaction()
            guard sigaction(number, nil, &action) == 0 else { continue }
            if unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                ignored |= 1 << UInt64(number)
            }
        }
        ignoredAtStart.withLock { $0 = ignored }
        signal(SIGPIPE, SIG_IGN)
    }

    static func restoreForExec() {}

    /// The address-space check is Linux's (see the Linux version).
    static func addressSpaceShortage() -> String? { nil }

    /// See the Linux version.
    static func wasIgnoredAtStart(_ number: Int32) -> Bool {
        number > 0 && number < 64 && ignoredAtStart.withLock { $0 } & (1 << UInt64(number)) != 0
    }

    private static let ignoredAtStart = LockedValue<UInt64>(0)
}
#endif
