#if os(Linux)
import BiometricsVaultCore
@testable import BiometricsVaultTPM
import Glibc
import BiometricsVaultTestSupport
import Testing

/// tpm2-tss's OpenSSL releases its per-thread state in a thread-exit destructor. A TPM call that returned
/// before its thread had ended let the CLI exit, and OpenSSL's exit-time cleanup run, beside that
/// destructor: CI's AddressSanitizer run found OpenSSL's objects unreachable (6775 bytes in 45
/// allocations). The destructor here is a fake standing in for OpenSSL's, made slow so that the order is
/// certain: the real one cannot be slowed on demand.
@Suite(.onTestThreads)
struct TPMThreadTests {
    /// Set by the fake destructor when it has finished.
    final class ThreadEnd: Sendable {
        private let state = LockedValue(false)
        var ended: Bool { state.withLock { $0 } }
        func mark() { state.withLock { $0 = true } }
    }

    @Test func aTPMCallReturnsOnlyOnceItsThreadHasEnded() throws {
        var created = pthread_key_t()
        try #require(
            pthread_key_create(&created) { value in
                guard let value else { return }
                usleep(300_000)
                Unmanaged<ThreadEnd>.fromOpaque(value).takeRetainedValue().mark()
            } == 0)
        let key = created
        let end = ThreadEnd()
        let value = try TPMBackend.bounded("run a test", TPMConfiguration(tcti: "none")) { () throws(VaultError) in
            pthread_setspecific(key, Unmanaged.passRetained(end).toOpaque())
            return 7
        }
        #expect(value == 7)
        #expect(end.ended, "the call returned while its thread was still running its thread-exit destructors")
        // Deleting the key while a destructor may still run would skip it: wait for it first (bounded).
        for _ in 0..<100 where !end.ended { usleep(10_000) }
        pthread_key_delete(key)
    }
}
#endif
