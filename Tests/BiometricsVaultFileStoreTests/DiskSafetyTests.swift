#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BiometricsVaultCore
import BiometricsVaultFileStore
import Foundation
import BiometricsVaultTestSupport
import Testing

@Suite("EncryptedFileStore on disk: plaintext, permissions, location", .onTestThreads)
struct DiskSafetyTests {
    static let marker = "BV-MARKER-7f3a9c-correct-horse"

    /// The marker in every form a careless store might write it: UTF-8, UTF-16 (both byte orders), base64.
    static var markerForms: [(name: String, bytes: [UInt8])] {
        var forms: [(String, [UInt8])] = [("utf8", Array(marker.utf8))]
        forms.append(("utf16le", marker.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
        forms.append(("utf16be", marker.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
        // base64 of the marker at each of the three alignments it can have inside a longer base64 text.
        for shift in 0..<3 {
            let encoded = Data((String(repeating: "x", count: shift) + marker).utf8).base64EncodedString()
            let stable = Array(encoded.utf8).dropFirst(shift == 0 ? 0 : 4).dropLast(4)
            forms.append(("base64+\(shift)", Array(stable)))
        }
        return forms
    }

    @Test("no plaintext: the marker appears nowhere under the store, in any encoding")
    func noPlaintext() throws {
        let directory = try TemporaryDirectory()
        let passphraseDirectory = try TemporaryDirectory()
        let credentials = "{\"username\":\"\(Self.marker)\",\"password\":\"\(Self.marker)\"}"
        for (store, root) in [
            (try EncryptedFileStore(directory: directory.storeURL), directory.url),
            (try EncryptedFileStore(directory: passphraseDirectory.storeURL, keySource: .passphrase(SecretBytes(utf8: Self.marker))), passphraseDirectory.url),
        ] {
            // The marker as credentials, as key, as service; plain and protected; overwritten and deleted.
            let ids = [
                try SecretItemID(service: "svc", key: "alice"),
                try SecretItemID(service: "svc", key: Self.marker),
                try SecretItemID(service: Self.marker, key: "bob"),
            ]
            for id in ids {
                try store.write(item(credentials), for: id, authorization: nil)
                try store.write(item(credentials + credentials, ItemHeader(protection: .protected(.biometryAny))), for: id, authorization: nil)
            }
            try store.delete(ids[0])
            let files = try allFiles(under: root)
            #expect(files.count >= 4)
            for file in files {
                #expect(!file.path.contains(Self.marker), "the marker is part of a path: \(file.path)")
                for form in Self.markerForms {
                    #expect(!contains(file.bytes, form.bytes), "\(form.name) form of the marker found in \(file.path)")
                }
            }
            #expect(try store.keys(service: "svc") == [Self.marker])
        }
        // The scan itself finds the marker when it is there.
        for form in Self.markerForms {
            let planted = Array("prefix".utf8) + form.bytes + Array("suffix".utf8)
            #expect(contains(planted, form.bytes))
        }
        let base64 = Array(Data(("ab" + Self.marker + "cd").utf8).base64EncodedString().utf8)
        #expect(Self.markerForms.filter { $0.name.hasPrefix("base64") }.contains { contains(base64, $0.bytes) })
    }

    /// Under the process's umask, which this test leaves alone: it is process-wide, and a `umask(0)` here
    /// made the directories other tests create at the same moment writable by everyone (the file store then
    /// refused them). Other umasks are checked in a child process (`FileStoreEdgeCLITests.anyUmask`).
    @Test("directories are 0700 and files 0600")
    func permissionsOnDisk() throws {
        let directory = try TemporaryDirectory()
        let store = try EncryptedFileStore(directory: directory.url.appendingPathComponent("a/b/store"))
        try store.write(item("v"), for: SecretItemID(service: "svc", key: "k"), authorization: nil)
        try store.write(item("v"), for: SecretItemID(service: "svc2", key: "k"), authorization: nil)
        for path in ["a", "a/b", "a/b/store"] {
            #expect(try permissions(of: directory.url.appendingPathComponent(path).path) == 0o700, "\(path)")
        }
        let entries = try FileManager.default.subpathsOfDirectory(atPath: directory.url.appendingPathComponent("a/b/store").path)
        #expect(entries.count >= 7)  // master.key, 2 directories, 2 items, 2 lock files
        for entry in entries {
            let path = directory.url.appendingPathComponent("a/b/store/\(entry)").path
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory))
            #expect(try permissions(of: path) == (isDirectory.boolValue ? 0o700 : 0o600), "\(entry)")
        }
    }

    @Test("a world-writable parent is refused with storeUnavailable, and nothing is written")
    func worldWritableParent() throws {
        let directory = try TemporaryDirectory()
        #expect(chmod(directory.path, 0o777) == 0)
        let error = expectVaultError(.storeUnavailable) { try EncryptedFileStore(directory: directory.storeURL) }
        #expect(error?.underlying?.description.contains("other users can write") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("a group-writable parent further up is refused too")
    func groupWritableAncestor() throws {
        let directory = try TemporaryDirectory()
        let middle = directory.url.appendingPathComponent("middle")
        try FileManager.default.createDirectory(at: middle.appendingPathComponent("inner"), withIntermediateDirectories: true)
        #expect(chmod(middle.path, 0o770) == 0)
        expectVaultError(.storeUnavailable) { try EncryptedFileStore(directory: middle.appendingPathComponent("inner/store")) }
        #expect(!FileManager.default.fileExists(atPath: middle.appendingPathComponent("inner/store").path))
    }

    @Test("a root other users can write is refused; a merely readable root of ours is tightened to 0700")
    func rootModes() throws {
        let directory = try TemporaryDirectory()
        let store = try EncryptedFileStore(directory: directory.storeURL)
        try store.write(item("v"), for: SecretItemID(service: "svc", key: "k"), authorization: nil)
        #expect(chmod(directory.storeURL.path, 0o757) == 0)
        expectVaultError(.storeUnavailable) { try EncryptedFileStore(directory: directory.storeURL) }
        #expect(chmod(directory.storeURL.path, 0o755) == 0)
        _ = try EncryptedFileStore(directory: directory.storeURL)
        #expect(try permissions(of: directory.storeURL.path) == 0o700)
    }

    @Test("a sticky world-writable parent (like /tmp) is accepted: others cannot replace our entry there")
    func stickyParent() throws {
        let directory = try TemporaryDirectory()
        #expect(chmod(directory.path, 0o1777) == 0)
        let store = try EncryptedFileStore(directory: directory.storeURL)
        try store.write(item("v"), for: SecretItemID(service: "svc", key: "k"), authorization: nil)
        #expect(try permissions(of: directory.storeURL.path) == 0o700)
    }

    @Test("a root that is a file is storeUnavailable")
    func rootIsAFile() throws {
        let directory = try TemporaryDirectory()
        try Data("x".utf8).write(to: directory.storeURL)
        expectVaultError(.storeUnavailable) { try EncryptedFileStore(directory: directory.storeURL) }
        expectVaultError(.storeUnavailable) { try EncryptedFileStore(directory: directory.storeURL.appendingPathComponent("below")) }
    }

    #if os(Linux)
    // Linux only: the store reads with `O_NOATIME` there (and `st_atim` is Linux's spelling).
    @Test("a read writes nothing: the access times of the item, master.key and the store's directories stay as they were")
    func readLeavesAccessTimes() throws {
        let directory = try TemporaryDirectory()
        let id = try SecretItemID(service: "svc", key: "k")
        try EncryptedFileStore(directory: directory.storeURL).write(item("v"), for: id, authorization: nil)
        let itemFile = try #require(try itemFiles(under: directory.storeURL).first)
        let keyFile = directory.storeURL.appendingPathComponent("master.key").path
        let serviceDirectory = URL(fileURLWithPath: itemFile).deletingLastPathComponent().path
        // Opening a store lists its root (to check each service directory's key check value).
        let paths = [itemFile, keyFile, directory.storeURL.path, serviceDirectory]
        // An access time a day old or older than the modification time is one `relatime` updates on read.
        let old = timespec(tv_sec: 86_400, tv_nsec: 0)
        let keepModificationTime = timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2)  // UTIME_OMIT
        for file in paths {
            #expect(utimensat(AT_FDCWD, file, [old, keepModificationTime], 0) == 0)
        }
        #expect(text(of: try EncryptedFileStore(directory: directory.storeURL).read(id, authorization: nil)) == "v")
        for file in paths {
            var info = stat()
            #expect(stat(file, &info) == 0)
            #expect(info.st_atim.tv_sec == old.tv_sec, "\(file) records when it was read")
        }
    }
    #endif

    #if os(Linux)
    @Test("a full disk is storeFull: nothing written, and what was stored stays readable",
          .enabled(if: geteuid() == 0, "mounting a small tmpfs needs root (scripts/test.sh runs the suite as root)"))
    func fullDisk() throws {
        let directory = try TemporaryDirectory()
        try #require(mount("tmpfs", directory.path, "tmpfs", 0, "size=256k,mode=0700") == 0, "mount: errno \(errno)")
        defer { _ = umount2(directory.path, Int32(MNT_DETACH)) }
        let store = try EncryptedFileStore(directory: directory.storeURL)
        let id = try SecretItemID(service: "svc", key: "k")
        try store.write(item("old"), for: id, authorization: nil)
        let filler = open(directory.path + "/filler", O_WRONLY | O_CREAT, 0o600)
        try #require(filler >= 0)
        let page = [UInt8](repeating: 7, count: 4096)
        while write(filler, page, page.count) > 0 {}
        close(filler)
        let replaced = expectVaultError(.storeFull) { try store.write(item(String(repeating: "n", count: 8192)), for: id, authorization: nil) }
        #expect(replaced?.underlying?.errnoValue == ENOSPC, "\(String(describing: replaced))")
        let added = expectVaultError(.storeFull) {
            try store.write(item(String(repeating: "a", count: 8192)), for: SecretItemID(service: "svc", key: "added"), authorization: nil)
        }
        #expect(added?.underlying?.errnoValue == ENOSPC, "\(String(describing: added))")
        #expect(text(of: try store.read(id, authorization: nil)) == "old")
        #expect(try store.keys(service: "svc") == ["k"])
    }
    #endif

    @Test("permission denied is storeUnavailable with the errno kept (needs a non-root user)",
          .enabled(if: geteuid() != 0, "root bypasses file permissions: run as a non-root user by scripts/extra-tests/30-file-store-non-root.sh"))
    func permissionDenied() throws {
        let directory = try TemporaryDirectory()
        let store = try EncryptedFileStore(directory: directory.storeURL)
        let id = try SecretItemID(service: "svc", key: "k")
        try store.write(item("old"), for: id, authorization: nil)
        let serviceDirectory = try #require(try itemFiles(under: directory.url).first).split(separator: "/").dropLast().joined(separator: "/")
        #expect(chmod("/" + serviceDirectory, 0o500) == 0)
        defer { _ = chmod("/" + serviceDirectory, 0o700) }
        let error = expectVaultError(.storeUnavailable) { try store.write(item("new"), for: id, authorization: nil) }
        #expect(error?.underlying?.errnoValue == EACCES)
        #expect(text(of: try store.read(id, authorization: nil)) == "old")
    }
}
