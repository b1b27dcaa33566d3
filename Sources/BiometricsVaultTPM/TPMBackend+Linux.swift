#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultProcess
import CTSS2
import Dispatch
import Glibc

/// On Linux the TPM is reached through tpm2-tss (``TSS2``), each operation on a thread of its own under
/// a deadline (``TPMConfiguration/timeout``).
///
/// tpm2-tss's synchronous calls wait for the TPM without a limit (a timeout only makes them try again),
/// so a TPM that stops answering (a stopped swtpm, a wedged firmware TPM, a hung simulator) would hang
/// every command that opens the store. Past the deadline the caller gets `storeUnavailable` and the
/// thread is left to finish or hang on its own; it holds only its own connection and buffers.
///
/// In time, the caller returns only once the thread has ended, its thread-exit destructors included
/// (waiting at most 2 s more for that): tpm2-tss's OpenSSL frees its per-thread state in one, and the
/// CLI exits right after a TPM call.
/// OpenSSL's exit-time cleanup running beside that destructor left OpenSSL's objects unreachable
/// (LeakSanitizer in CI, 6775 bytes in 45 allocations) and can crash.
enum TPMBackend {
    static func seal(_ secret: SecretBytes, pin: SecretBytes?, tpm: TPMConfiguration) throws -> [UInt8] {
        try bounded("seal the store's key", tpm) { () throws(VaultError) in try TSS2.seal(secret, pin: pin, tcti: tpm.tcti) }
    }

    static func unseal(_ blob: [UInt8], pin: SecretBytes?, tpm: TPMConfiguration) throws -> SecretBytes {
        try bounded("unseal the store's key", tpm) { () throws(VaultError) in try TSS2.unseal(blob, pin: pin, tcti: tpm.tcti) }
    }

    static func status(_ tpm: TPMConfiguration) throws -> TPMStatus {
        try bounded("read its status", tpm) { () throws(VaultError) in try TSS2.status(tcti: tpm.tcti) }
    }

    static func bounded<Value: Sendable>(
        _ action: String, _ tpm: TPMConfiguration, _ body: @escaping @Sendable () throws(VaultError) -> Value
    ) throws(VaultError) -> Value {
        let (tcti, timeout) = (tpm.tcti, tpm.timeout)
        let outcome = Outcome<Value>()
        guard let thread = TPMThread.start({ outcome.finish(Result { () throws(VaultError) in try body() }) }) else {
            throw VaultError(.storeUnavailable, underlying: .message("could not start a thread to \(action) with the TPM"))
        }
        guard let result = outcome.wait(seconds: timeout) else {
            thread.abandon()
            throw VaultError(
                .storeUnavailable,
                underlying: .message(
                    "the TPM at '\(tcti)' did not answer within \(timeout) s (stopped or hung) when asked to \(action); nothing was changed"))
        }
        thread.join(seconds: 2)
        return try result.get()
    }

    /// The result of one operation, handed from its thread to the waiting caller (or to nobody, after
    /// the deadline: the value is then released with the box, and a secret in it zeroed).
    private final class Outcome<Value: Sendable>: Sendable {
        private let result = LockedValue<Result<Value, VaultError>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        func finish(_ value: Result<Value, VaultError>) {
            result.withLock { $0 = value }
            done.signal()
        }

        func wait(seconds: Int) -> Result<Value, VaultError>? {
            guard done.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
            return result.withLock { $0 }
        }
    }
}

/// The thread of one TPM command (``DedicatedThread``), which a command that hangs leaves behind.
private struct TPMThread {
    private let thread: pthread_t

    /// Starts `body` on a new thread; `nil` when none could be started (`body` never runs). The thread
    /// must then be joined or abandoned, once.
    static func start(_ body: @escaping @Sendable () -> Void) -> TPMThread? {
        DedicatedThread.startJoinable(name: "tpm-command", body).map(TPMThread.init(thread:))
    }

    /// Waits until the thread has ended, its thread-exit destructors included, for at most `seconds`;
    /// past that it is abandoned.
    func join(seconds: Int) {
        if bv_join_thread_within(thread, Int32(seconds)) != 0 { abandon() }
    }

    /// Leaves the thread to finish or hang on its own; the system frees it when it ends.
    func abandon() {
        pthread_detach(thread)
    }
}
#endif
