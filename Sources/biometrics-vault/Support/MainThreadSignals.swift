#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The main thread waits for the command while the pool's threads (which block every signal) do the
/// work, so signals sent to the process (Ctrl-C, SIGTERM, SIGHUP) must be delivered to it whatever mask
/// the CLI inherited: `dispatch_main`, which used to park this thread, waited with an empty mask too.
enum MainThreadSignals {
    static func acceptAll() {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
    }
}
