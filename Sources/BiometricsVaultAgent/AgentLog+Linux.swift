#if os(Linux)
import BiometricsVaultCore
import Glibc

/// The agent's log: one line per event on its stderr. Only a log the agent opened itself
/// (``openOwnLog(_:)``, `agent --log-file`: what a command that starts the agent asks for) is ever
/// started anew; a stderr the agent was given (a terminal, `2>>~/session.log`, a journal) is written to
/// and never truncated, whatever it is.
///
/// The own log is opened with `O_NOFOLLOW` (a symlink planted as `agent.log` is refused, not followed)
/// and must be a regular file of this user with one link; it is then made the agent's stderr, and is
/// truncated only while stderr is still that same file (device and inode), still a regular file with
/// one link.
enum AgentLog {
    /// The device and inode of the log the agent opened itself; `nil` while it writes to a stderr it was given.
    private static let ownLog = LockedValue<FileIdentity?>(nil)

    private struct FileIdentity: Equatable, Sendable {
        let device: UInt64
        let inode: UInt64
    }

    /// Opens (creating it 0600 when missing) `path` for appending, refusing a symlink and anything but a
    /// regular file of this user with one link, and makes it this process's stderr. The reason it was
    /// refused, if it was (the agent then keeps its stderr).
    static func openOwnLog(_ path: String) -> String? {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else {
            let failure = errno
            return failure == ELOOP ? "\(path) is a symlink" : "\(path) cannot be opened (errno \(failure))"
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid(), info.st_nlink == 1 else {
            close(descriptor)
            return "\(path) is not a regular file of this user with one link"
        }
        // Writes to a regular file do not block; O_NONBLOCK only kept the open from waiting on a FIFO.
        _ = fcntl(descriptor, F_SETFL, O_APPEND)
        guard dup2(descriptor, 2) == 2 else {
            close(descriptor)
            return "\(path) cannot be made the agent's stderr (errno \(errno))"
        }
        close(descriptor)
        ownLog.withLock { $0 = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) }
        return nil
    }

    /// Writes `line` on stderr; when stderr is the agent's own log and this line took it past
    /// ``AgentPaths/maximumLogSize``, empties it and starts it with a line saying so.
    static func write(_ line: String) {
        ownLog.withLock { own in
            let bytes = Array(("biometrics-vault agent: " + line + "\n").utf8)
            _ = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
            var info = stat()
            guard let own, fstat(2, &info) == 0, FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) == own,
                info.st_mode & S_IFMT == S_IFREG, info.st_nlink == 1, Int(info.st_size) > AgentPaths.maximumLogSize,
                ftruncate(2, 0) == 0
            else { return }
            let notice = Array("biometrics-vault agent: the log passed \(AgentPaths.maximumLogSize) bytes: started anew\n".utf8)
            _ = notice.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
        }
    }
}

extension AgentSocket {
    /// One line on the agent's log (``AgentLog``).
    static func log(_ line: String) { AgentLog.write(line) }
}
#endif
