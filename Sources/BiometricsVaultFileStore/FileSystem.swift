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

    static func failure(_ number: Int32) -> VaultError {
        VaultError(.storeUnavailable, underlying: .errno(number))
    }

    static var effectiveUserID: UInt32 { UInt32(geteuid()) }

    // MARK: paths and directories

    /// `stat` following symlinks; `nil` when the path does not exist.
    static func status(_ path: String) throws(VaultError) -> Status? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let number = errno
            if number == ENOENT { return nil }
            throw failure(number)
        }
        return Status(mode: UInt32(info.st_mode), owner: UInt32(info.st_uid), size: Int(info.st_size))
    }

    /// `lstat` (does not follow a final symlink); `nil` when the path does not exist.
    static func linkStatus(_ path: String) throws(VaultError) -> Status? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let number = errno
            if number == ENOENT { return nil }
            throw failure(number)
        }
        return Status(mode: UInt32(info.st_mode), owner: UInt32(info.st_uid), size: Int(info.st_size))
    }

    /// The canonical absolute path (symlinks resolved) of an existing path.
    static func canonicalPath(_ path: String) throws(VaultError) -> String {
        guard let resolved = realpath(path, nil) else { throw failure(errno) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Creates a directory with `mode`; returns `false` when it already existed.
    @discardableResult
    static func makeDirectory(_ path: String, mode: UInt32) throws(VaultError) -> Bool {
        if mkdir(path, mode_t(mode)) == 0 {
            // The umask may have removed bits we need, never added any; make the mode exact.
            guard chmod(path, mode_t(mode)) == 0 else { throw failure(errno) }
            return true
        }
        let number = errno
        if number == EEXIST { return false }
        throw failure(number)
    }

    static func setPermissions(_ path: String, _ mode: UInt32) throws(VaultError) {
        guard chmod(path, mode_t(mode)) == 0 else { throw failure(errno) }
    }

    /// The names in a directory, without `.` and `..`; `nil` when it does not exist.
    static func directoryEntries(_ path: String) throws(VaultError) -> [String]? {
        guard let directory = opendir(path) else {
            let number = errno
            if number == ENOENT { return nil }
            throw failure(number)
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

    /// Flushes a directory's entries (a rename or unlink in it) to stable storage.
    static func syncDirectory(_ path: String) throws(VaultError) {
        let descriptor = try openDescriptor(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
        defer { close(descriptor) }
        guard durableSync(descriptor) == 0 else { throw failure(errno) }
    }

    // MARK: files

    /// Reads a whole regular file of at most `limit` bytes. `nil` when it does not exist.
    /// A larger file, or something that is not a regular file, is reported through `tooLarge` / `notAFile`.
    static func readFile(_ path: String, limit: Int) throws(VaultError) -> ReadResult {
        let descriptor: Int32
        do {
            descriptor = try openDescriptor(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, mode: 0)
        } catch where error.underlying == .errno(ENOENT) {
            return .missing
        } catch where error.underlying == .errno(ELOOP) {
            return .notAFile
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(errno) }
        guard (UInt32(info.st_mode) & UInt32(S_IFMT)) == UInt32(S_IFREG) else { return .notAFile }
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
                throw failure(errno)
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

    /// The durable atomic replace: write `bytes` to `temporaryName` in `directory` (created 0600,
    /// truncating a leftover from a crashed writer), `fsync` it, `rename` it over `finalName`, `fsync` the
    /// directory. Nothing else touches the disk.
    ///
    /// The caller must hold the directory's exclusive lock: the temporary name is shared by all writers.
    static func replaceDurably(
        directory: String, temporaryName: String, finalName: String, bytes: [UInt8]
    ) throws(VaultError) {
        let temporaryPath = directory + "/" + temporaryName
        let finalPath = directory + "/" + finalName
        let descriptor = try openDescriptor(
            temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
        do throws(VaultError) {
            try writeAll(descriptor, bytes)
            guard durableSync(descriptor) == 0 else { throw failure(errno) }
        } catch {
            close(descriptor)
            unlink(temporaryPath)
            throw error
        }
        guard close(descriptor) == 0 else {
            let number = errno
            unlink(temporaryPath)
            throw failure(number)
        }
        guard rename(temporaryPath, finalPath) == 0 else {
            let number = errno
            unlink(temporaryPath)
            throw failure(number)
        }
        try syncDirectory(directory)
    }

    /// Writes a new file durably and publishes it under `finalName` only if that name is still free
    /// (`link`, not `rename`): of two processes creating the same file, the first wins and the second
    /// gets `false` and uses the winner's file.
    static func createDurablyIfAbsent(
        directory: String, temporaryName: String, finalName: String, bytes: [UInt8]
    ) throws(VaultError) -> Bool {
        let temporaryPath = directory + "/" + temporaryName
        let finalPath = directory + "/" + finalName
        let descriptor = try openDescriptor(
            temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
        defer { unlink(temporaryPath) }
        do throws(VaultError) {
            try writeAll(descriptor, bytes)
            guard durableSync(descriptor) == 0 else { throw failure(errno) }
        } catch {
            close(descriptor)
            throw error
        }
        guard close(descriptor) == 0 else { throw failure(errno) }
        guard link(temporaryPath, finalPath) == 0 else {
            let number = errno
            if number == EEXIST { return false }
            throw failure(number)
        }
        try syncDirectory(directory)
        return true
    }

    /// Removes a file; `false` when it did not exist.
    @discardableResult
    static func removeFile(_ path: String) throws(VaultError) -> Bool {
        guard unlink(path) == 0 else {
            let number = errno
            if number == ENOENT { return false }
            throw failure(number)
        }
        return true
    }

    // MARK: locking

    /// Runs `body` holding an exclusive `flock` on `lockPath` (created 0600 if needed).
    ///
    /// `flock` locks belong to the open file description, so each call opens its own descriptor: two
    /// threads of one process exclude each other exactly like two processes do. The kernel drops the lock
    /// when a holder dies (`kill -9`), so a crash never leaves the store locked.
    static func withExclusiveLock<Result>(
        _ lockPath: String, _ body: () throws(VaultError) -> Result
    ) throws(VaultError) -> Result {
        let descriptor = try openDescriptor(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            let number = errno
            if number != EINTR { throw failure(number) }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    // MARK: helpers

    private static func openDescriptor(_ path: String, _ flags: Int32, mode: UInt32) throws(VaultError) -> Int32 {
        while true {
            let descriptor = open(path, flags, mode_t(mode))
            if descriptor >= 0 { return descriptor }
            let number = errno
            if number != EINTR { throw failure(number) }
        }
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(VaultError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { raw in write(descriptor, raw.baseAddress! + written, raw.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(errno)
            }
            written += count
        }
    }
}

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
