#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultSecretService
import Foundation
import Glibc
import Testing

/// The per-item lock file that makes the Secret Service store's conditional write atomic among
/// BiometricsVault processes: a holder that never lets go (stopped, not killed) delays a writer by at
/// most the store's timeout, then the write fails and changes nothing.
@Suite(.enabled(if: Daemon.runSessionTests, "needs the Secret Service (scripts/setup/20-secret-service.sh)"))
struct ItemLockTests {
    /// Where ItemLockFile keeps the item's lock (the path is part of the cross-process protocol).
    func lockPath(_ id: SecretItemID) -> String {
        let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { path -> String? in
            var info = stat()
            guard path.hasPrefix("/"), lstat(path, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else { return nil }
            return path + "/biometrics-vault"
        }
        let directory = runtime ?? "/tmp/biometrics-vault-\(geteuid())"
        return directory + "/secret-service-" + FNV1a.hex(of: Array(id.service.utf8) + [0] + Array(id.key.utf8)) + ".lock"
    }

    @Test func aHeldItemLockMakesAWriteFailAfterTheTimeoutAndTouchNothing() throws {
        let store = try Daemon.sessionStore()
        let id = try SecretItemID(service: uniqueService("lock"), key: "held")
        defer { try? store.delete(id) }
        let plain = ItemHeader(protection: .none)
        try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "v1")), for: id, if: .absent, authorization: nil)

        // Another process's writer, stuck inside the lock.
        let descriptor = open(lockPath(id), O_RDWR | O_CLOEXEC)
        #expect(descriptor >= 0, "the store's lock file exists after a write")
        defer { close(descriptor) }
        #expect(flock(descriptor, LOCK_EX) == 0)

        let impatient = try SecretServiceStore(timeout: .milliseconds(300))
        #expect(throws: VaultError.storeUnavailable) {
            try impatient.write(StoredItem(header: plain, payload: SecretBytes(utf8: "v2")), for: id, if: .plain, authorization: nil)
        }
        #expect(throws: VaultError.storeUnavailable) { try impatient.delete(id) }
        // Reads take no lock.
        #expect(try impatient.read(id, authorization: nil)?.payload == SecretBytes(utf8: "v1"))

        #expect(flock(descriptor, LOCK_UN) == 0)
        try impatient.write(StoredItem(header: plain, payload: SecretBytes(utf8: "v3")), for: id, if: .plain, authorization: nil)
        #expect(try store.read(id, authorization: nil)?.payload == SecretBytes(utf8: "v3"))
    }
}
#endif
