#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BiometricsVaultCore

/// The one place the file store calls the operating system's file API.
///
/// Every failure leaves here as a `VaultError`: `storeUnavailable` with the `errno` kept as the underlying
/// cause (disk full, permission denied, read-only file system, I/O error, ...). Callers never see a raw
/// `errno` and never call the C API themselves.
enum FileSystem {
    /// The status of a path, as far as the store cares.
    struct Status {
        var mode: UInt32
        var owner: UInt32
        var size: Int

        var isDirectory: Bool { (mode & UInt32(S_IFMT)) == UInt32(S_IFDIR) }
        var isRegularFile: Bool { (mode & UInt32(S_IFMT)) == UInt32(S_IFREG) }
        var permissions: UInt32 { mode & 0o7777 }
        /// Group- or world-writable.
        var writableByOthers: Bool { (mode & 0o022) != 0 }
        var isSticky: Bool { (mode & UInt32(S_ISVTX)) != 0 }
    }

    /// A directory opened once: files named in it are reached through its descriptor (`openat`,
    /// `renameat`, `unlinkat`), so swapping its path for a symlink after it was opened and checked cannot
    /// redirect them outside the store. ``current`` names whole paths (`AT_FDCWD`).
    final class Directory: Sendable {
        let descriptor: Int32
        /// For messages ("" for ``current``).
        let path: String
        private let owned: Bool

        private init(descriptor: Int32, path: String, owned: Bool) {
            self.descriptor = descriptor
            self.path = path
            self.owned = owned
        }

        /// Whole paths, as `open(2)` takes them.
        static let current = Directory(descriptor: AT_FDCWD, path: "", owned: false)

        /// `name` in this directory, for messages.
        func display(_ name: String) -> String { path.isEmpty ? name : path + "/" + name }

        /// Opens the directory `name` in `parent` (or a whole path in ``current``) to work in, and checks it
        /// is ours and closed to other users' writes. With `followingLink` false a symlink in its place is
        /// refused (`ELOOP`), never followed. `nil` when it does not exist.
        static func open(
            _ name: String, in parent: Directory = .current, followingLink: Bool
        ) throws(VaultError) -> Directory? {
            let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followingLink ? 0 : O_NOFOLLOW)
            let path = parent.display(name)
            let descriptor: Int32
            do {
                descriptor = try FileSystem.openDescriptor(name, in: parent, flags, mode: 0)
            } catch where error.underlying?.errnoValue == ENOENT {
                return nil
            } catch where error.underlying?.errnoValue == ELOOP || error.underlying?.errnoValue == ENOTDIR {
                throw VaultError(.storeUnavailable, underlying: .message("refusing to use \(path) for the file store: it is not a directory (a symlink or a file in its place)"))
            }
            let directory = Directory(descriptor: descriptor, path: path, owned: true)
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw FileSystem.failure("examine", path, errno) }
            guard UInt32(info.st_uid) == FileSystem.effectiveUserID else {
                throw VaultError(.storeUnavailable, underlying: .message("refusing to use \(path) for the file store: it is owned by another user"))
            }
            guard UInt32(info.st_mode) & 0o022 == 0 else {
                throw VaultError(.storeUnavailable, underlying: .message("refusing to use \(path) for the file store: other users can write to it"))
            }
            return directory
        }

        deinit {
            if owned { close(descriptor) }
        }
    }

    /// `storeUnavailable` (`storeFull` for no space left or a quota reached) naming what was done to
    /// which path, in words, with the `errno` kept.
    static func failure(_ operation: String, _ path: String, _ number: Int32) -> VaultError {
        VaultError(number == ENOSPC || number == EDQUOT ? .storeFull : .storeUnavailable,
                   underlying: .file(operation: operation, path: path, errno: number))
    }

    static var effectiveUserID: UInt32 { UInt32(geteuid()) }

    // MARK: paths and directories

    /// `stat` following symlinks; `nil` when the path does not exist.
    static func status(_ path: String) throws(VaultError) -> Status? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let number = errno
            if number == ENOENT { return nil }
            throw failure("examine", path, number)
        }
        return Status(mode: UInt32(info.st_mode), owner: UInt32(info.st_uid), size: Int(info.st_size))
    }

    /// `lstat` (does not follow a final symlink); `nil` when the path does not exist.
    static func linkStatus(_ path: String) throws(VaultError) -> Status? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let number = errno
            if number == ENOENT { return nil }
            throw failure("examine", path, number)
        }
        return Status(mode: UInt32(info.st_mode), owner: UInt32(info.st_uid), size: Int(info.st_size))
    }

    /// The canonical absolute path (symlinks resolved) of an existing path.
    static func canonicalPath(_ path: String) throws(VaultError) -> String {
        guard let resolved = realpath(path, nil) else { throw failure("resolve", path, errno) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Creates a directory with exactly `mode` and makes its entry durable (`fsync` of the parent: without
    /// it a power loss can take a new directory, and the first item written into it, away). Returns
    /// `false` when it already existed.
    @discardableResult
    static func makeDirectory(_ path: String, mode: UInt32) throws(VaultError) -> Bool {
        if mkdir(path, mode_t(mode)) == 0 {
            // The umask may have removed bits we need, never added any; make the mode exact.
            guard chmod(path, mode_t(mode)) == 0 else { throw failure("set the mode of", path, errno) }
            try syncDirectory(parent(of: path))
            return true
        }
        let number = errno
        if number == EEXIST { return false }
        throw failure("create the directory", path, number)
    }

    static func setPermissions(_ path: String, _ mode: UInt32) throws(VaultError) {
        guard chmod(path, mode_t(mode)) == 0 else { throw failure("set the mode of", path, errno) }
    }

    /// Takes group and other bits away from a directory of ours; where the mode cannot change (a
    /// read-only file system, an immutable directory) it is left as it is, for reading (see ``readFile``).
    static func tightenPermissions(_ path: String, _ mode: UInt32) throws(VaultError) {
        guard chmod(path, mode_t(mode)) != 0 else { return }
        let number = errno
        guard number == EROFS || number == EPERM else { throw failure("set the mode of", path, number) }
    }

    /// The directory part of a path (`/` for a top-level entry).
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// The names in a directory, without `.` and `..`; `nil` when it does not exist.
    static func directoryEntries(_ path: String) throws(VaultError) -> [String]? {
        let descriptor: Int32
        do {
            descriptor = try openWithoutAccessTime(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC)
        } catch where error.underlying?.errnoValue == ENOENT {
            return nil
        }
        guard let directory = fdopendir(descriptor) else {
            let number = errno
            close(descriptor)
            throw failure("list", path, number)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Flushes an open directory's entries (a rename or unlink in it) to stable storage.
    static func syncDirectory(_ directory: Directory) throws(VaultError) {
        guard directory.descriptor != AT_FDCWD else { return try syncDirectory(".") }
        guard durableSync(directory.descriptor) == 0 else { throw failure("sync the directory", directory.path, errno) }
    }

    /// Flushes a directory's entries (a rename or unlink in it) to stable storage.
    static func syncDirectory(_ path: String) throws(VaultError) {
        let descriptor = try openDescriptor(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
        defer { close(descriptor) }
        guard durableSync(descriptor) == 0 else { throw failure("sync the directory", path, errno) }
    }

    // MARK: files

    /// Reads a whole regular file of at most `limit` bytes. `nil` when it does not exist.
    /// A larger file, or something that is not a regular file (a FIFO, a device, a symlink, a
    /// directory), is reported through `tooLarge` / `notAFile` without blocking: the open is
    /// non-blocking, so a FIFO planted in the store cannot hang a read.
    ///
    /// The store's files are private: one owned by another user is refused (`storeUnavailable`), and
    /// one that group or others may read is tightened to 0600 before it is read.
    static func readFile(_ name: String, in directory: Directory = .current, limit: Int) throws(VaultError) -> ReadResult {
        let path = directory.display(name)
        let descriptor: Int32
        do {
            descriptor = try openWithoutAccessTime(name, in: directory, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        } catch where error.underlying?.errnoValue == ENOENT {
            return .missing
        } catch where error.underlying?.errnoValue == ELOOP {
            return .notAFile
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure("examine", path, errno) }
        guard (UInt32(info.st_mode) & UInt32(S_IFMT)) == UInt32(S_IFREG) else { return .notAFile }
        guard UInt32(info.st_uid) == effectiveUserID else {
            throw VaultError(.storeUnavailable, underlying: .message("refusing \(path): it is owned by another user"))
        }
        if UInt32(info.st_mode) & 0o077 != 0, fchmod(descriptor, 0o600) != 0 {
            // Readable by others on a read-only file system (or an immutable file): it cannot be
            // tightened, and refusing to read would take back nothing the mode already exposed
            // (SECURITY.md). Writes there fail anyway.
            let number = errno
            guard number == EROFS || number == EPERM else { throw failure("restrict the mode of", path, number) }
        }
        let size = Int(info.st_size)
        guard size <= limit else { return .tooLarge }
        // Item files are only ever replaced by rename, never changed in place: the size from fstat is the
        // size of this file for as long as it is open, so reading stops there (no extra read for EOF).
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let count = bytes.withUnsafeMutableBytes { raw in
                read(descriptor, raw.baseAddress! + filled, raw.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("read", path, errno)
            }
            if count == 0 { break }
            filled += count
        }
        bytes.removeSubrange(filled...)
        return .contents(bytes)
    }

    enum ReadResult {
        case missing
        case notAFile
        case tooLarge
        case contents([UInt8])
    }

    /// The durable atomic replace: write `bytes` to `temporaryName` in `directory` (a fresh file: a
    /// leftover from a crashed writer is removed first, and the new one is created with `O_EXCL` and set
    /// to exactly 0600 whatever the umask), `fsync` it, `rename` it over `finalName`, `fsync` the
    /// directory. Nothing else touches the disk.
    ///
    /// The caller must hold the directory's exclusive lock: the temporary name is shared by all writers.
    static func replaceDurably(
        directory path: String, temporaryName: String, finalName: String, bytes: [UInt8]
    ) throws(VaultError) {
        guard let directory = try Directory.open(path, followingLink: true) else { throw failure("open", path, ENOENT) }
        try replaceDurably(in: directory, temporaryName: temporaryName, finalName: finalName, bytes: bytes)
    }

    /// ``replaceDurably(directory:temporaryName:finalName:bytes:)`` in an open directory.
    static func replaceDurably(
        in directory: Directory, temporaryName: String, finalName: String, bytes: [UInt8]
    ) throws(VaultError) {
        let temporaryPath = directory.display(temporaryName)
        let folder = directory.descriptor
        try removeFile(temporaryName, in: directory)
        let descriptor = try createPrivateFile(temporaryName, in: directory)
        do throws(VaultError) {
            try writeAll(descriptor, bytes, path: temporaryPath)
            guard durableSync(descriptor) == 0 else { throw failure("sync", temporaryPath, errno) }
        } catch {
            close(descriptor)
            unlinkat(folder, temporaryName, 0)
            throw error
        }
        guard close(descriptor) == 0 else {
            let number = errno
            unlinkat(folder, temporaryName, 0)
            throw failure("close", temporaryPath, number)
        }
        guard renameat(folder, temporaryName, folder, finalName) == 0 else {
            let number = errno
            unlinkat(folder, temporaryName, 0)
            throw failure("rename", temporaryPath, number)
        }
        try syncDirectory(directory)
    }

    /// Writes a new file durably and publishes it under `finalName` only if that name is still free
    /// (`link`, not `rename`): of two processes creating the same file, the first wins and the second
    /// gets `false` and uses the winner's file. The temporary file is gone on every path but a kill;
    /// callers that may leave one behind (a kill -9) remove stale ones under their lock.
    static func createDurablyIfAbsent(
        directory: String, temporaryName: String, finalName: String, bytes: [UInt8]
    ) throws(VaultError) -> Bool {
        let temporaryPath = directory + "/" + temporaryName
        let finalPath = directory + "/" + finalName
        let descriptor = try createPrivateFile(temporaryPath, in: .current)
        defer { unlink(temporaryPath) }
        do throws(VaultError) {
            try writeAll(descriptor, bytes, path: temporaryPath)
            guard durableSync(descriptor) == 0 else { throw failure("sync", temporaryPath, errno) }
        } catch {
            close(descriptor)
            throw error
        }
        guard close(descriptor) == 0 else { throw failure("close", temporaryPath, errno) }
        guard link(temporaryPath, finalPath) == 0 else {
            let number = errno
            if number == EEXIST { return false }
            throw failure("link", finalPath, number)
        }
        try syncDirectory(directory)
        return true
    }

    /// Removes a file; `false` when it did not exist.
    @discardableResult
    static func removeFile(_ name: String, in directory: Directory = .current) throws(VaultError) -> Bool {
        guard unlinkat(directory.descriptor, name, 0) == 0 else {
            let number = errno
            if number == ENOENT { return false }
            throw failure("remove", directory.display(name), number)
        }
        return true
    }

    // MARK: locking

    /// Runs `body` holding an exclusive `flock` on `lockPath` (created 0600 if needed).
    ///
    /// `flock` locks belong to the open file description, so each call opens its own descriptor: two
    /// threads of one process exclude each other exactly like two processes do. The kernel drops the lock
    /// when a holder dies (`kill -9`), so a crash never leaves the store locked.
    ///
    /// The wait is bounded (``lockWaitLimit``): a holder that is stopped (SIGSTOP, a debugger) or hung
    /// keeps its lock, and waiting for it without a limit would hang every other writer without a word.
    /// The bound counts from the last time any writer took the lock, in time this writer was running to
    /// watch (``FileLock``), so a writer behind a queue of busy ones waits its turn. Past the limit this fails with `storeUnavailable` naming the
    /// holder's pid when the system says.
    static func withExclusiveLock<Result>(
        _ lockName: String, in directory: Directory = .current, _ body: () throws(VaultError) -> Result
    ) throws(VaultError) -> Result {
        let lockPath = directory.display(lockName)
        let descriptor = try openLockFile(lockName, in: directory)
        defer { close(descriptor) }
        switch FileLock.lockExclusively(descriptor, idleLimit: lockWaitLimit) {
        case .acquired: break
        case .failed(let number): throw failure("lock", lockPath, number)
        case .timedOut:
            var info = stat()
            let holder = fstat(descriptor, &info) == 0 ? LockHolder.processID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) : nil
            let who = holder.map { "process \($0)" } ?? "another process"
            throw VaultError(.storeUnavailable, underlying: .message(
                "the file store is locked by \(who), which has held \(lockPath) for over \(lockWaitLimit) (stopped or hung?); nothing was written"))
        case .busy:
            throw VaultError(.storeUnavailable, underlying: .message(
                "other writers kept \(lockPath) busy for over \(lockWaitLimit * FileLock.busyLimitFactor); nothing was written"))
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// How long a writer waits for a holder that keeps the lock. A write holds it for a few `fsync`s.
    static let lockWaitLimit: Duration = .seconds(10)

    // MARK: helpers

    /// Opens (creating, exactly 0600) a lock file. `flock` needs no write access: read-only is enough.
    private static func openLockFile(_ name: String, in directory: Directory) throws(VaultError) -> Int32 {
        let path = directory.display(name)
        let descriptor: Int32
        do {
            descriptor = try openDescriptor(name, in: directory, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
        } catch where error.underlying?.errnoValue == EACCES {
            // A lock file of ours left at mode 000 by an older version under `umask 777`: repair it once.
            var info = stat()
            guard fstatat(directory.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0,
                UInt32(info.st_mode) & UInt32(S_IFMT) == UInt32(S_IFREG), UInt32(info.st_uid) == effectiveUserID
            else { throw error }
            guard fchmodat(directory.descriptor, name, 0o600, 0) == 0 else { throw failure("set the mode of", path, errno) }
            descriptor = try openDescriptor(name, in: directory, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, mode: 0)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let number = errno
            close(descriptor)
            throw failure("examine", path, number)
        }
        // Created under a restrictive umask (`umask 777` gives mode 000): make the mode exact, so later
        // commands can open it again.
        if UInt32(info.st_mode) & 0o777 != 0o600, UInt32(info.st_uid) == effectiveUserID {
            _ = fchmod(descriptor, 0o600)
        }
        return descriptor
    }

    /// Creates a new file (`O_EXCL`: never an existing file or a planted symlink) with exactly 0600.
    private static func createPrivateFile(_ name: String, in directory: Directory) throws(VaultError) -> Int32 {
        let descriptor = try openDescriptor(name, in: directory, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
        // The umask may have removed our own bits (`umask 777`): a file we could not read back is no store.
        guard fchmod(descriptor, 0o600) == 0 else {
            let number = errno
            close(descriptor)
            unlinkat(directory.descriptor, name, 0)
            throw failure("set the mode of", directory.display(name), number)
        }
        return descriptor
    }

    /// Opens a file to read, or a directory to list, without updating its access time: reading a
    /// credential then writes nothing (with `relatime`, the first read or listing after each change would
    /// otherwise dirty the inode and start a journal transaction), and the store does not record when it
    /// was last read. The kernel allows that flag only to the owner (`EPERM` otherwise); such a path is
    /// opened again without it, so that the ownership checks refuse it with the usual words.
    private static func openWithoutAccessTime(
        _ name: String, in directory: Directory = .current, _ flags: Int32
    ) throws(VaultError) -> Int32 {
        do {
            return try openDescriptor(name, in: directory, flags | noAccessTimeFlag, mode: 0)
        } catch where noAccessTimeFlag != 0 && error.underlying?.errnoValue == EPERM {
            return try openDescriptor(name, in: directory, flags, mode: 0)
        }
    }

    private static func openDescriptor(_ path: String, _ flags: Int32, mode: UInt32) throws(VaultError) -> Int32 {
        try openDescriptor(path, in: .current, flags, mode: mode)
    }

    private static func openDescriptor(
        _ name: String, in directory: Directory, _ flags: Int32, mode: UInt32
    ) throws(VaultError) -> Int32 {
        while true {
            let descriptor = openat(directory.descriptor, name, flags, mode_t(mode))
            if descriptor >= 0 { return descriptor }
            let number = errno
            if number != EINTR { throw failure("open", directory.display(name), number) }
        }
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws(VaultError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { raw in write(descriptor, raw.baseAddress! + written, raw.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("write", path, errno)
            }
            written += count
        }
    }
}

#if os(Linux)
// `O_NOATIME`, which Swift's Glibc module does not export: 01000000 in asm-generic/fcntl.h, the value on
// every architecture Swift runs Linux on.
private let noAccessTimeFlag: Int32 = 0o1000000
#else
// No such flag: reads update the access time as the file system's mount options say.
private let noAccessTimeFlag: Int32 = 0
#endif

#if canImport(Darwin)
// On Apple platforms `fsync` only reaches the drive's cache; `F_FULLFSYNC` reaches stable storage.
private func durableSync(_ descriptor: Int32) -> Int32 {
    if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
    return fsync(descriptor)
}
#else
private func durableSync(_ descriptor: Int32) -> Int32 {
    fsync(descriptor)
}
#endif
