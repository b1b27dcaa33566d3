#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The calling thread's signal mask.
enum ThreadSignalMask {
    /// Blocks no signal on this thread. `main` calls it before it waits for the command, so signals sent
    /// to the process (Ctrl-C, SIGTERM, SIGHUP) reach it whatever mask the CLI inherited (the pool's
    /// threads block every signal).
    static func acceptAll() {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
    }

    /// Remembers the mask the CLI was started with; `main` calls it first, before ``acceptAll()``.
    static func recordInherited() {
        var mask = sigset_t()
        guard pthread_sigmask(SIG_SETMASK, nil, &mask) == 0 else { return }
        inherited.withLock { $0 = mask }
    }

    /// Gives the calling thread the mask the CLI was started with (none blocked if unknown). `exec` calls
    /// it before `execve`, which hands the mask on: COMMAND gets the mask it would have got if started
    /// directly.
    static func restoreInherited() {
        guard var mask = inherited.withLock({ $0 }) else { return acceptAll() }
        pthread_sigmask(SIG_SETMASK, &mask, nil)
    }

    private static let inherited = Mutex<sigset_t?>(nil)
}
