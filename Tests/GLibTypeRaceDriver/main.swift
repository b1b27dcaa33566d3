// Starts, at the same instant, the two GIO start-ups a cold retrieveVault overlaps: opening the Secret
// Service (a GDBus connection to the session bus through BiometricsVaultDBus) on one thread,
// and fprintd's probe (a GDBus connection to the system bus, which registers that type) on another.
// GLib 2.74 (Debian 12) can deadlock when the two meet in its type system for the first time
// (GTypeRaceTests, GTypeStartup.swift). Usage: GLibTypeRaceDriver [OFFSET_US]. Prints "done" and exits 0
// when both returned; a deadlock never prints. Not shipped in any product.
//
// Both buses are a socket of this process's own that closes every connection it accepts (`InstantBus`),
// never the environment's buses: the race is in GIO's type set-up, and a busy daemon (CI's keyring and
// fprintd under the whole test suite) only made an attempt slow, which the caller cannot tell from a hang.
// Connecting, sending the credentials byte and starting authentication still set up the classes a real
// bus does, except GDBusMessage (which GTypeStartup prepares anyway): checked with GLib 2.74 by walking
// the type tree after a connection to each.
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

@discardableResult
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

/// A listening Unix socket in a fresh directory whose thread closes each connection as soon as it is
/// accepted: a "bus" that answers at once (the client's authentication fails with a broken pipe or
/// end of stream) however loaded the machine is.
struct InstantBus: Sendable {
    let directory: String
    let path: String

    init() {
        var template = Array("/tmp/bv-gtype-race.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { exit(3) }
        directory = String(cString: made)
        path = directory + "/bus"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard listener >= 0, bound == 0, listen(listener, 16) == 0 else { exit(3) }
        startThread {
            while true {
                let connection = accept(listener, nil, nil)
                if connection >= 0 { close(connection) }
            }
        }
    }

    var address: String { "unix:path=" + path }

    func remove() {
        unlink(path)
        rmdir(directory)
    }
}

// Set before any thread calls into GIO, which reads them when it connects.
let bus = InstantBus()
setenv("DBUS_SESSION_BUS_ADDRESS", bus.address, 1)
setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address, 1)

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
bus.remove()
print("done")
#else
print("done")
#endif
