#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultSecretService
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// The item lock files (64 stripes) that make the Secret Service store's conditional write atomic among
/// BiometricsVault processes: a holder that never lets go (stopped, not killed) delays a writer by at
/// most the store's timeout, then the write fails and changes nothing.
@Suite(.onTestThreads, .needs(Daemon.session))
struct ItemLockTests {
    /// Where ItemLockFile keeps its locks (the paths are part of the cross-process protocol).
    var lockDirectory: String {
        let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { path -> String? in
            var info = stat()
            guard path.hasPrefix("/"), lstat(path, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else { return nil }
            return path + "/biometrics-vault"
        }
        return runtime ?? "/tmp/biometrics-vault-\(geteuid())"
    }

    /// The item's lock: one of 64 stripes, by FNV-1a of service, NUL, key.
    func lockPath(_ id: SecretItemID) -> String {
        let stripe = FNV1a.hash(of: Array(id.service.utf8) + [0] + Array(id.key.utf8)) % 64
        return lockDirectory + "/secret-service-" + (stripe < 16 ? "0" : "") + String(stripe, radix: 16) + ".lock"
    }

    /// Lock files are never removed (one may be held open by another process), so they must be a bounded
    /// set: 100 new items add no file outside the 64 stripes. One file per item had left 700 in `/tmp`.
    @Test func writesToManyItemsCreateOnlyTheStripeLockFiles() throws {
        let store = try Daemon.sessionStore()
        let service = uniqueService("lock-stripes")
        let ids = try (0..<100).map { try SecretItemID(service: service, key: "key-\($0)") }
        defer { for id in ids { try? store.delete(id) } }
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: lockDirectory))
        let plain = ItemHeader(protection: .none)
        for id in ids {
            try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "v")), for: id, if: .absent, authorization: nil)
            #expect(access(lockPath(id), F_OK) == 0, "the write took the item's stripe lock")
        }
        let added = Set(try FileManager.default.contentsOfDirectory(atPath: lockDirectory)).subtracting(before)
        let stripeName = /secret-service-[0-9a-f]{2}\.lock/
        #expect(added.filter { $0.wholeMatch(of: stripeName) == nil }.isEmpty, "lock files outside the stripes: \(added.sorted().prefix(5))")
        let stripes = try FileManager.default.contentsOfDirectory(atPath: lockDirectory).filter { $0.wholeMatch(of: stripeName) != nil }
        #expect(stripes.count <= 64)
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
        // Reads take no lock. (The impatient store's timeout bounds its D-Bus calls too, which a loaded
        // machine can exceed: the calls after the lock's are the patient store's.)
        #expect(try store.read(id, authorization: nil)?.payload == SecretBytes(utf8: "v1"))

        #expect(flock(descriptor, LOCK_UN) == 0)
        try store.write(StoredItem(header: plain, payload: SecretBytes(utf8: "v3")), for: id, if: .plain, authorization: nil)
        #expect(try store.read(id, authorization: nil)?.payload == SecretBytes(utf8: "v3"))
    }
}
#endif
