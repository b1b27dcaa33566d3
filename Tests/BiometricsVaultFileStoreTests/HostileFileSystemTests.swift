#if canImport(Glibc)
import Glibc
import BiometricsVaultCore
import BiometricsVaultFileStore
import BiometricsVaultTestSupport
import Foundation
import Synchronization
import Testing

/// What a hostile or careless user (or a crash) can leave in the store directory, and what the store
/// must do with it: never hang, never trust, never leave key material or loose modes behind.
@Suite("EncryptedFileStore against a hostile file system", .onTestThreads)
struct HostileFileSystemTests {
    let id: SecretItemID

    init() throws { id = try SecretItemID(service: "svc", key: "k") }

    /// A store with one item, and the paths of its service directory and item file.
    func storeWithOneItem(_ directory: TemporaryDirectory) throws -> (store: EncryptedFileStore, serviceDirectory: String, itemFile: String) {
        let store = try EncryptedFileStore(directory: directory.storeURL)
        try store.write(item("v1"), for: id, authorization: nil)
        let file = try onlyItemFile(under: directory.storeURL)
        return (store, URL(fileURLWithPath: file).deletingLastPathComponent().path, file)
    }

    /// Runs `body`; if it is still running after 5 s, opens `fifo` for writing once to release a reader
    /// blocked in open(2), and reports that it had to.
    func withFIFOWatchdog(_ fifo: String, _ body: () throws -> Void) rethrows -> Bool {
        let finished = LockedFlag()
        let released = LockedFlag()
        let watchdog = Thread {
            for _ in 0..<100 {
                if finished.value { return }
                usleep(50_000)
            }
            released.set()
            let descriptor = open(fifo, O_WRONLY | O_NONBLOCK)
            if descriptor >= 0 { close(descriptor) }
        }
        watchdog.start()
        defer { finished.set() }
        try body()
        return released.value
    }

    @Test("an item file replaced by a FIFO: corruptedItem at once, no hang")
    func fifoItem() throws {
        let directory = try TemporaryDirectory()
        let (store, _, file) = try storeWithOneItem(directory)
        #expect(unlink(file) == 0)
        #expect(mkfifo(file, 0o600) == 0)
        let blocked = withFIFOWatchdog(file) {
            #expect(throws: VaultError.corruptedItem) { try store.read(id, authorization: nil) }
        }
        #expect(!blocked, "the read blocked in open(2) on the FIFO")
    }

    @Test("master.key replaced by a FIFO: storeUnavailable at once, no hang")
    func fifoKeyFile() throws {
        let directory = try TemporaryDirectory()
        _ = try storeWithOneItem(directory)
        let keyFile = directory.storeURL.appendingPathComponent("master.key").path
        #expect(unlink(keyFile) == 0)
        #expect(mkfifo(keyFile, 0o600) == 0)
        let blocked = withFIFOWatchdog(keyFile) {
            #expect(throws: VaultError.storeUnavailable) { try EncryptedFileStore(directory: directory.storeURL) }
        }
        #expect(!blocked, "opening the store blocked in open(2) on the FIFO")
    }

    @Test("a key file others can read is tightened to 0600 when the store opens", arguments: [UInt32(0o644), 0o666, 0o640])
    func looseKeyFileIsTightened(_ mode: UInt32) throws {
        let directory = try TemporaryDirectory()
        _ = try storeWithOneItem(directory)
        let keyFile = directory.storeURL.appendingPathComponent("master.key").path
        #expect(chmod(keyFile, mode_t(mode)) == 0)
        let store = try EncryptedFileStore(directory: directory.storeURL)
        #expect(text(of: try store.read(id, authorization: nil)) == "v1")
        #expect(try permissions(of: keyFile) == 0o600)
    }

    @Test("a key file owned by another user is refused (storeUnavailable)", .enabled(if: geteuid() == 0, "only root can give a file away"))
    func foreignKeyFileIsRefused() throws {
        let directory = try TemporaryDirectory()
        _ = try storeWithOneItem(directory)
        let keyFile = directory.storeURL.appendingPathComponent("master.key").path
        #expect(chown(keyFile, 65534, 65534) == 0)
        #expect(throws: VaultError.storeUnavailable) { try EncryptedFileStore(directory: directory.storeURL) }
    }

    @Test("another store's valid master.key copied in: corruptedItem when the store opens, never 'empty'")
    func foreignKeyIsDetected() throws {
        let directory = try TemporaryDirectory()
        _ = try storeWithOneItem(directory)
        let other = try TemporaryDirectory()
        _ = try storeWithOneItem(other)
        let keyFile = directory.storeURL.appendingPathComponent("master.key").path
        #expect(unlink(keyFile) == 0)
        try FileManager.default.copyItem(atPath: other.storeURL.appendingPathComponent("master.key").path, toPath: keyFile)

        // Opening checks the key against the data, so no read, list or store gets as far as "empty".
        #expect(throws: VaultError.corruptedItem) { try EncryptedFileStore(directory: directory.storeURL) }
        #expect(try itemFiles(under: directory.storeURL).count == 1, "nothing is written beside the orphaned items")
    }

    @Test("a store written before key check values (no .check) still opens, and gets one on the next write")
    func legacyDirectoryWithoutCheckValue() throws {
        let directory = try TemporaryDirectory()
        let (_, serviceDirectory, _) = try storeWithOneItem(directory)
        #expect(unlink(serviceDirectory + "/.check") == 0)
        let store = try EncryptedFileStore(directory: directory.storeURL)
        #expect(text(of: try store.read(id, authorization: nil)) == "v1")
        try store.write(item("v2"), for: id, authorization: nil)
        let reopened = try EncryptedFileStore(directory: directory.storeURL)
        try reopened.write(item("v3"), for: id, authorization: nil)
        #expect(FileManager.default.fileExists(atPath: serviceDirectory + "/.check"))
    }

    @Test("a leftover .pending with mode 0644 does not make the next item file 0644")
    func leftoverPendingMode() throws {
        let directory = try TemporaryDirectory()
        let (store, serviceDirectory, file) = try storeWithOneItem(directory)
        let pending = serviceDirectory + "/.pending"
        #expect(FileManager.default.createFile(atPath: pending, contents: Data("junk".utf8)))
        #expect(chmod(pending, 0o644) == 0)
        try store.write(item("v2"), for: id, authorization: nil)
        #expect(try permissions(of: file) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: pending))
    }

    @Test("a spare key left by a creator killed half-way (.master.key.<hex>) is removed when the store is created")
    func spareKeyIsRemoved() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.storeURL, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let spare = directory.storeURL.appendingPathComponent(".master.key.0123456789abcdef").path
        #expect(FileManager.default.createFile(atPath: spare, contents: Data(repeating: 7, count: 42), attributes: [.posixPermissions: 0o600]))
        let store = try EncryptedFileStore(directory: directory.storeURL)
        try store.write(item("v1"), for: id, authorization: nil)
        #expect(!FileManager.default.fileExists(atPath: spare), "a complete spare key stayed behind")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.storeURL.path)
        #expect(!names.contains { $0.hasPrefix(".master.key.") })
    }

    @Test("a spare key left beside a complete master.key (creator killed before removing it) is removed when the store opens")
    func spareKeyBesideKeyFileIsRemoved() throws {
        let directory = try TemporaryDirectory()
        _ = try storeWithOneItem(directory)
        let spare = directory.storeURL.appendingPathComponent(".master.key.fedcba9876543210").path
        try FileManager.default.copyItem(atPath: directory.storeURL.appendingPathComponent("master.key").path, toPath: spare)
        let store = try EncryptedFileStore(directory: directory.storeURL)
        #expect(text(of: try store.read(id, authorization: nil)) == "v1")
        #expect(!FileManager.default.fileExists(atPath: spare), "a complete spare key stayed behind")
    }

    @Test("a service directory others can write is refused by read, list and delete, not only by write")
    func worldWritableServiceDirectory() throws {
        let directory = try TemporaryDirectory()
        let (_, serviceDirectory, file) = try storeWithOneItem(directory)
        #expect(chmod(serviceDirectory, 0o777) == 0)
        let store = try EncryptedFileStore(directory: directory.storeURL)
        #expect(throws: VaultError.storeUnavailable) { try store.read(id, authorization: nil) }
        #expect(throws: VaultError.storeUnavailable) { try store.keys(service: "svc") }
        #expect(throws: VaultError.storeUnavailable) { try store.delete(id) }
        #expect(FileManager.default.fileExists(atPath: file))
    }

    @Test("a service directory replaced by a symlink: read, list and delete refuse, and nothing in the target is touched")
    func symlinkedServiceDirectory() throws {
        let directory = try TemporaryDirectory()
        let (_, serviceDirectory, file) = try storeWithOneItem(directory)
        let elsewhere = directory.url.appendingPathComponent("elsewhere").path
        #expect(rename(serviceDirectory, elsewhere) == 0)
        #expect(symlink(elsewhere, serviceDirectory) == 0)
        let moved = elsewhere + "/" + URL(fileURLWithPath: file).lastPathComponent
        let store = try EncryptedFileStore(directory: directory.storeURL)
        #expect(throws: VaultError.storeUnavailable) { try store.read(id, authorization: nil) }
        #expect(throws: VaultError.storeUnavailable) { try store.keys(service: "svc") }
        #expect(throws: VaultError.storeUnavailable) { try store.delete(id) }
        #expect(FileManager.default.fileExists(atPath: moved), "delete followed the symlink")
    }

    @Test("a service directory swapped for a symlink after the store checked it: write and delete refuse, nothing lands outside")
    func serviceDirectorySwappedAfterTheCheck() throws {
        let directory = try TemporaryDirectory()
        // The same store value throughout: its check of the directory is cached from the first write.
        let (store, serviceDirectory, file) = try storeWithOneItem(directory)
        let elsewhere = directory.url.appendingPathComponent("elsewhere").path
        #expect(rename(serviceDirectory, elsewhere) == 0)
        #expect(symlink(elsewhere, serviceDirectory) == 0)
        let moved = elsewhere + "/" + URL(fileURLWithPath: file).lastPathComponent
        let before = try Data(contentsOf: URL(fileURLWithPath: moved))
        #expect(throws: VaultError.storeUnavailable) { try store.write(item("v2"), for: id, authorization: nil) }
        #expect(throws: VaultError.storeUnavailable) { try store.update(id, authorization: nil) { _ in item("v3") } }
        #expect(throws: VaultError.storeUnavailable) { try store.delete(id) }
        #expect(throws: VaultError.storeUnavailable) { try store.read(id, authorization: nil) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: moved)) == before, "a write went through the symlink")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).sorted() == [".check", ".lock", URL(fileURLWithPath: file).lastPathComponent].sorted())
    }

    @Test("a writer that holds the lock and never lets go (stopped): other writers fail within the bound, naming its pid")
    func heldLockIsBounded() async throws {
        let directory = try TemporaryDirectory()
        let (store, serviceDirectory, file) = try storeWithOneItem(directory)
        // This process holds the service's lock through a descriptor of its own, as a stopped writer would.
        let holder = open(serviceDirectory + "/.lock", O_RDONLY | O_CLOEXEC)
        try #require(holder >= 0)
        #expect(flock(holder, LOCK_EX) == 0)
        let outcome = LockedValue<Result<Void, VaultError>?>(nil)
        let isPending = { outcome.withLock { value in value.map { _ in false } ?? true } }
        let writer = Thread {
            let result: Result<Void, VaultError>
            do {
                try store.write(item("v2"), for: id, authorization: nil)
                result = .success(())
            } catch let error as VaultError {
                result = .failure(error)
            } catch {
                result = .failure(VaultError(.storeUnavailable))
            }
            outcome.withLock { $0 = result }
        }
        let started = Date()
        writer.start()
        while isPending() && Date().timeIntervalSince(started) < 30 { try await Task.sleep(for: .microseconds(50_000)) }
        let waited = Date().timeIntervalSince(started)
        close(holder)  // lets a writer that waits without a bound finish, so the test ends either way
        while isPending() { try await Task.sleep(for: .microseconds(10_000)) }
        guard case .failure(let error) = try #require(outcome.withLock { $0 }) else {
            Issue.record("the write waited \(waited) s for a lock that was never released, then wrote")
            return
        }
        #expect(waited < 20, "the wait took \(waited) s")
        #expect(error.code == .storeUnavailable)
        #expect("\(error)".contains("process \(getpid())"), "\(error)")
        #expect(text(of: try store.read(id, authorization: nil)) == "v1")
        #expect(FileManager.default.fileExists(atPath: file))
    }

    @Test("a store on a read-only file system whose modes are loose is still read (its modes cannot be tightened)",
        .enabled(if: geteuid() == 0, "a read-only bind mount needs root"))
    func readOnlyStoreWithLooseModes() async throws {
        let directory = try TemporaryDirectory()
        let (_, serviceDirectory, file) = try storeWithOneItem(directory)
        let root = directory.storeURL.path
        for (path, mode) in [(root, 0o755), (serviceDirectory, 0o755), (file, 0o644), (root + "/master.key", 0o644)] {
            #expect(chmod(path, mode_t(mode)) == 0)
        }
        try #require(await run("/bin/mount", ["--bind", root, root]) == 0)
        do {
            try #require(await run("/bin/mount", ["-o", "remount,bind,ro", root]) == 0)
            let store = try EncryptedFileStore(directory: directory.storeURL)
            #expect(text(of: try store.read(id, authorization: nil)) == "v1")
            #expect(try store.keys(service: "svc") == ["k"])
            // Writing is refused (the file system says so); nothing is changed.
            #expect(throws: VaultError.storeUnavailable) { try store.write(item("v2"), for: id, authorization: nil) }
        } catch {
            _ = await run("/bin/umount", [root])
            throw error
        }
        #expect(await run("/bin/umount", [root]) == 0)
    }

    private func run(_ executable: String, _ arguments: [String]) async -> Int32 {
        (try? await Shell.run(executable, arguments))?.status ?? -1
    }

    @Test("errors name the path and say what is wrong in words, with the errno kept")
    func errorsInWords() throws {
        let directory = try TemporaryDirectory()
        let (_, _, file) = try storeWithOneItem(directory)
        #expect(unlink(file) == 0)
        #expect(symlink("/etc/hostname", file) == 0)
        let error = VaultError(.storeUnavailable, underlying: .file(operation: "open", path: file, errno: ELOOP))
        #expect("\(error)".contains(file))
        #expect("\(error)".contains("Too many levels of symbolic links"))
        #expect(error.underlying?.errnoValue == ELOOP)
        // A symlinked item file is refused as corrupt (not followed to /etc/hostname).
        let store = try EncryptedFileStore(directory: directory.storeURL)
        #expect(throws: VaultError.corruptedItem) { try store.read(id, authorization: nil) }
    }
}

/// A flag shared with a watchdog thread (test scaffolding).
final class LockedFlag: Sendable {
    private let state = Mutex(false)
    var value: Bool { state.withLock { $0 } }
    func set() { state.withLock { $0 = true } }
}
#endif
