#if os(Linux)
import BiometricsVaultCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

/// The per-user failed-attempt counter, persisted so five misses lock biometrics out across processes.
///
/// fprintd has no lockout of its own, so the library counts. The count lives in
/// `<stateDirectory>/fingerprint-attempts-<user>` (directory 0700, file 0600), updated under an
/// exclusive `flock` so concurrent processes never lose an increment. An unreadable file counts as locked
/// out (fail closed); a successful owner authentication rewrites it.
///
/// Paths are strings, not `URL`s: the store is opened by every cold `retrieveVault` where fprintd has a
/// reader (the probe reads the count), and FoundationEssentials' URL path operations cost about 0.3 ms of
/// CPU there (perf, Docs/Benchmarks.md), for a name this type builds itself.
struct LockoutStore: Sendable {
    /// The counter file.
    let filePath: String
    private let directoryPath: String

    init(directoryPath: String, user: String) {
        // Most names are portable ASCII already; only others need the Character walk.
        let isPortable = user.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
        let safeUser = isPortable
            ? user : String(user.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
        self.directoryPath = directoryPath
        filePath = Self.path(directoryPath, "fingerprint-attempts-\(safeUser)")
    }

    /// `$XDG_STATE_HOME/biometrics-vault`, else `~/.local/state/biometrics-vault` (empty or relative
    /// values count as unset). With no usable home at all, `/nonexistent/...`: the counter cannot be
    /// opened there, so fingerprints read as unavailable (fail closed), never a file under the current
    /// directory.
    static func defaultDirectoryPath() -> String {
        path(BaseDirectory.path("XDG_STATE_HOME", orUnderHome: ".local/state") ?? "/nonexistent/.local/state", "biometrics-vault")
    }

    /// `directory/name`, with one slash between them however many `directory` ends with.
    private static func path(_ directory: String, _ name: String) -> String {
        var directory = Substring(directory)
        while directory.hasSuffix("/") { directory = directory.dropLast() }
        return "\(directory)/\(name)"
    }

    /// The current count; a missing file is zero.
    func load() throws(VaultError) -> FailedAttemptCounter {
        try update { _ in }
    }

    /// Records `outcome` and returns the new count.
    @discardableResult
    func record(_ outcome: FailedAttemptCounter.Outcome) throws(VaultError) -> FailedAttemptCounter {
        try update { $0.record(outcome) }
    }

    private func update(_ change: (inout FailedAttemptCounter) -> Void) throws(VaultError) -> FailedAttemptCounter {
        if mkdir(directoryPath, 0o700) != 0 && errno != EEXIST {
            // Parents may be missing (a fresh ~/.local/state): create them, then ours with 0700.
            try? FileManager.default.createDirectory(
                atPath: directoryPath, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let fd = open(filePath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw failure("open") }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else { throw failure("flock") }
        var counter = read(fd)
        let before = counter
        change(&counter)
        if counter != before || fileSize(fd) == 0 {
            let text = Array("\(counter.consecutiveFailures)\n".utf8)
            guard ftruncate(fd, 0) == 0, pwrite(fd, text, text.count, 0) == text.count, fsync(fd) == 0 else {
                throw failure("write")
            }
        }
        return counter
    }

    /// The count the file holds: decimal digits, ASCII white space around them allowed. Anything else
    /// (a sign, a number too large, other text) counts as locked out. Read as bytes: generic `String`
    /// trimming cost this cold-start path a protocol-conformance scan.
    private func read(_ fd: Int32) -> FailedAttemptCounter {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return FailedAttemptCounter() }
        return FailedAttemptCounter(consecutiveFailures: Self.count(in: buffer[..<count]) ?? FailedAttemptCounter.limit)
    }

    private static func count(in bytes: ArraySlice<UInt8>) -> Int? {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }),
            last - first < 18
        else { return nil }
        var value = 0
        for byte in bytes[first...last] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    private func fileSize(_ fd: Int32) -> Int {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int(info.st_size) : 0
    }

    private func failure(_ step: String) -> VaultError {
        let number = errno
        return VaultError(.biometryNotAvailable, underlying: .errno(number))
    }
}
#endif
