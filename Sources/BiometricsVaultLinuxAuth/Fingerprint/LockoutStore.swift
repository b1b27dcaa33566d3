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
struct LockoutStore: Sendable {
    let fileURL: URL

    init(directory: URL, user: String) {
        let safeUser = String(user.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
        fileURL = directory.appendingPathComponent("fingerprint-attempts-\(safeUser)")
    }

    /// `$XDG_STATE_HOME/biometrics-vault`, else `~/.local/state/biometrics-vault`.
    static func defaultDirectory() -> URL {
        if let state = EnvironmentVariable.value("XDG_STATE_HOME"), state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("biometrics-vault")
        }
        let home = EnvironmentVariable.value("HOME").flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/biometrics-vault")
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
        let directory = fileURL.deletingLastPathComponent().path
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            // Parents may be missing (a fresh ~/.local/state): create them, then ours with 0700.
            try? FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let fd = open(fileURL.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
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

    private func read(_ fd: Int32) -> FailedAttemptCounter {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return FailedAttemptCounter() }
        let written = String(decoding: buffer.prefix(count), as: UTF8.self)
        let text = String(written.reversed().drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace))
        guard let failures = Int(text) else { return FailedAttemptCounter(consecutiveFailures: FailedAttemptCounter.limit) }
        return FailedAttemptCounter(consecutiveFailures: failures)
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
