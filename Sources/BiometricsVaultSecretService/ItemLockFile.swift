#if os(Linux)
import BiometricsVaultCore
import Glibc

/// Cross-process serialisation of the writes to one Secret Service item: an exclusive `flock` on one of
/// ``stripes`` lock files, chosen by a hash of (service, key), under `$XDG_RUNTIME_DIR/biometrics-vault/`
/// (or, without a usable runtime directory, `/tmp/biometrics-vault-<uid>/`, created 0700 and checked to
/// be ours).
///
/// A fixed set of files, not one per item: a lock file cannot be removed safely while another process
/// may hold it open, so per-item files piled up, one for every key ever written (700 in `/tmp` after a
/// day of test runs). Two items sharing a stripe only wait for each other's write; no code path holds
/// one item's lock while taking another's, so sharing cannot deadlock.
///
/// The Secret Service has no compare-and-swap, so a conditional write is search, check, create, delete:
/// four D-Bus calls another process could interleave with. Every BiometricsVault process takes this lock
/// around them, which makes check-then-write atomic **among BiometricsVault processes**. It is
/// cooperative: `secret-tool`, python `keyring` or another program of the same user do not take it.
///
/// The only place the Secret Service store calls the file API. `flock` locks belong to the open file
/// description: each call opens its own descriptor, so threads exclude each other like processes do,
/// and the kernel drops the lock when a holder dies.
enum ItemLockFile {
    /// How many lock files a user's writes share, at most.
    static let stripes = 64

    /// Runs `body` holding the item's lock, waiting for it until one holder has kept it for `timeout`
    /// (``FileLock``): like every Secret Service call, a write never hangs on a holder that was stopped,
    /// not killed, and it waits its turn behind other writers that come and go.
    static func withLock<Result>(
        _ id: SecretItemID, timeout: Duration, _ body: () throws(VaultError) -> Result
    ) throws(VaultError) -> Result {
        let descriptor = try open(id)
        defer { close(descriptor) }
        switch FileLock.lockExclusively(descriptor, idleLimit: timeout) {
        case .acquired: break
        case .failed(let number): throw failure("cannot lock the item's lock file", number)
        case .timedOut:
            throw VaultError(
                .storeUnavailable,
                underlying: .message("another BiometricsVault process has been writing this item for longer than \(timeout); try again"))
        case .busy:
            throw VaultError(
                .storeUnavailable,
                underlying: .message("other BiometricsVault processes kept writing this item for over \(timeout * FileLock.busyLimitFactor); try again"))
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// Runs `body` if the item's lock is free now; `nil` without running it when a writer holds it (a
    /// repair that would race with a replace in progress is left to that writer).
    static func ifUnlocked<Result>(_ id: SecretItemID, _ body: () throws(VaultError) -> Result) throws(VaultError) -> Result? {
        let descriptor = try open(id)
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let number = errno
            if number == EWOULDBLOCK { return nil }
            if number != EINTR { throw failure("cannot lock the item's lock file", number) }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    // MARK: internals

    private static func failure(_ what: String, _ number: Int32) -> VaultError {
        VaultError(.storeUnavailable, underlying: .message("\(what) (\(String(cString: strerror(number))), errno \(number))"))
    }

    /// The lock directory, made and checked once per process.
    private static let directory: Swift.Result<String, VaultError> = {
        let environment = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }
        if let runtime = environment, runtime.hasPrefix("/"), isPrivateDirectory(runtime) {
            let path = runtime + "/biometrics-vault"
            if mkdir(path, 0o700) == 0 || errno == EEXIST, isPrivateDirectory(path) { return .success(path) }
        }
        let path = "/tmp/biometrics-vault-\(geteuid())"
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            return .failure(failure("cannot create the lock directory \(path)", errno))
        }
        guard isPrivateDirectory(path) else {
            return .failure(
                VaultError(
                    .storeUnavailable,
                    underlying: .message("refusing the lock directory \(path): it is not a directory of this user closed to others")))
        }
        return .success(path)
    }()

    /// A real directory (not a symlink), owned by this user, closed to group and others.
    private static func isPrivateDirectory(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) == S_IFDIR && info.st_uid == geteuid() && (info.st_mode & 0o077) == 0
    }

    /// `secret-service-<stripe>.lock`, the stripe in two hex digits (part of the cross-process protocol).
    static func fileName(for id: SecretItemID) -> String {
        // Not a secret: key names are attributes in the keyring already.
        let hash = FNV1a.hash(of: Array(id.service.utf8) + [0] + Array(id.key.utf8))
        let stripe = Int(hash % UInt64(stripes))
        return "secret-service-" + (stripe < 16 ? "0" : "") + String(stripe, radix: 16) + ".lock"
    }

    private static func open(_ id: SecretItemID) throws(VaultError) -> Int32 {
        let directory = try directory.get()
        let path = directory + "/" + fileName(for: id)
        while true {
            let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                // The umask may have removed our own bits (umask 777): make the mode exact.
                _ = fchmod(descriptor, 0o600)
                return descriptor
            }
            let number = errno
            if number != EINTR { throw failure("cannot open the lock file \(path)", number) }
        }
    }
}
#endif
