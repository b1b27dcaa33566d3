#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The calling thread's signal mask.
enum ThreadSignalMask {
    /// Blocks no signal on this thread. `main` calls it before it waits for the command, so signals sent
    /// to the process (Ctrl-C, SIGTERM, SIGHUP) reach it whatever mask the CLI inherited, as they reached
    /// the thread `dispatch_main` used to park (the pool's threads block every signal). `exec` calls it
    /// before `execve`, which hands the mask on to COMMAND.
    static func acceptAll() {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
    }
}
