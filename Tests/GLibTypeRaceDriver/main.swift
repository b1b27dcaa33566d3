// Starts, at the same instant, the two GIO start-ups a cold retrieveVault overlaps: opening the Secret
// Service (a GDBus connection to the session bus through BiometricsVaultDBus) on one thread,
// and fprintd's probe (a GDBus connection to the system bus, which registers that type) on another.
// GLib 2.74 (Debian 12) can deadlock when the two meet in its type system for the first time
// (GTypeRaceTests, GTypeStartup.swift). Usage: GLibTypeRaceDriver [OFFSET_US]. Prints "done" and exits 0
// when both returned; a deadlock never prints. Not shipped in any product.
#if os(Linux)
import BiometricsVaultLinuxAuth
import BiometricsVaultSecretService
import Glibc

/// Both threads wait here, so their first GIO calls start together.
final class StartLine: @unchecked Sendable {
    // Safe to share: the barrier is initialised before either thread starts, and pthread barriers are
    // made for concurrent use; it is never destroyed (the process exits).
    let barrier = UnsafeMutablePointer<pthread_barrier_t>.allocate(capacity: 1)
    init(parties: UInt32) { pthread_barrier_init(barrier, nil, parties) }
    func wait() { pthread_barrier_wait(barrier) }
}

func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    guard pthread_create(&thread, nil, { context in
        Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
        return nil
    }, context) == 0 else { exit(2) }
    return thread
}

// The first argument, in microseconds, delays the Secret Service thread (negative: the fprintd one), so
// a caller can sweep the offset across the few hundred microseconds where the two set-ups overlap.
let offset = CommandLine.arguments.count > 1 ? Int32(CommandLine.arguments[1]) ?? 0 : 0
let start = StartLine(parties: 2)
let secretService = startThread {
    start.wait()
    if offset > 0 { usleep(UInt32(offset)) }
    _ = try? SecretServiceStore(timeout: .seconds(2))
}
let fingerprint = startThread {
    start.wait()
    if offset < 0 { usleep(UInt32(-offset)) }
    _ = FingerprintAuthenticator.probe()
}
pthread_join(secretService, nil)
pthread_join(fingerprint, nil)
print("done")
#else
print("done")
#endif
