#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultProcess
import FoundationEssentials
import Glibc

/// Where the agent of this user listens: `$XDG_RUNTIME_DIR/biometrics-vault/` (0700), with the socket
/// `agent.sock` (0600), the lock the running agent holds (`agent.lock`) and its log (`agent.log`).
package struct AgentPaths: Sendable, Equatable {
    package let directory: String

    package init(directory: String) { self.directory = directory }

    package var socket: String { directory + "/agent.sock" }
    package var lock: String { directory + "/agent.lock" }
    package var log: String { directory + "/agent.log" }
    /// The agent starts its own log anew (truncates it) once a line leaves it longer than this (``AgentLog``).
    package static let maximumLogSize = 1 << 20

    /// From `XDG_RUNTIME_DIR` (which must be an absolute path); `nil` without one: no agent then.
    package static func current() -> AgentPaths? {
        guard let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), runtime.hasPrefix("/") else { return nil }
        return AgentPaths(directory: runtime + "/biometrics-vault")
    }
}

/// The agent's and its client's kernel calls, one file per concern: the agent's directory and lock, its
/// non-blocking reads, polling, pipes and descriptors here (listening, accepting, connecting and whole
/// reads and writes are ``UnixSocket``'s); starting the agent in `AgentSpawn+Linux.swift`; its log in
/// `AgentLog+Linux.swift`; small files in `AgentFiles+Linux.swift`; clocks and time formatting in
/// `AgentClock+Linux.swift`.
package enum AgentSocket {
    /// Creates the directory (0700) when missing; refuses one that is not a directory, belongs to another
    /// uid, or lets group or others in (another user could then replace the socket).
    static func prepareDirectory(_ path: String, create: Bool) throws(VaultError) {
        if create, mkdir(path, 0o700) != 0, errno != EEXIST {
            throw VaultError(.storeUnavailable, underlying: .file(operation: "create", path: path, errno: errno))
        }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw VaultError(.storeUnavailable, underlying: .file(operation: "inspect", path: path, errno: errno))
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw VaultError(.storeUnavailable, underlying: .message("\(path) is not a directory; the unlock-window agent refuses it"))
        }
        guard info.st_uid == getuid() else {
            throw VaultError(.storeUnavailable, underlying: .message(
                "\(path) belongs to uid \(info.st_uid), not to this user (uid \(getuid())); the unlock-window agent refuses it"))
        }
        guard info.st_mode & 0o077 == 0 else {
            throw VaultError(.storeUnavailable, underlying: .message(
                "\(path) has mode \(String(info.st_mode & 0o777, radix: 8)): group or others can enter it; the unlock-window agent wants 0700"))
        }
    }

    /// Takes the agent's lock without waiting; the descriptor (held for the agent's life) or `nil` when
    /// another agent holds it.
    static func takeAgentLock(_ path: String) throws(VaultError) -> Int32? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw VaultError(.storeUnavailable, underlying: .file(operation: "open", path: path, errno: errno)) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Reads exactly `count` secret bytes (blocking, bounded by the receive timeout) into `SecretBytes`;
    /// the buffer they arrive in is zeroed. `nil` on end, error or timeout.
    static func readSecret(_ descriptor: Int32, _ count: Int) -> SecretBytes? {
        guard var bytes = UnixSocket.readExactly(descriptor, count) else { return nil }
        defer { AgentProcess.zero(&bytes) }
        return SecretBytes(bytes)
    }

    /// What a non-blocking read into `buffer` gives now: how many bytes, `nil` for "none yet"; `.failure`
    /// at the end or on an error.
    static func readAvailable(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int?, VaultError> {
        let got = recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
        if got > 0 { return .success(got) }
        if got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return .success(nil) }
        return .failure(VaultError(.storeUnavailable, underlying: .errno(got == 0 ? ECONNRESET : errno)))
    }

    /// What a non-blocking read gives now: bytes, `.wouldBlock`, or `.closed` (end or error).
    enum ReadOutcome {
        case bytes([UInt8])
        case wouldBlock
        case closed
    }

    static func readAvailable(_ descriptor: Int32, upTo count: Int) -> ReadOutcome {
        var bytes = [UInt8](repeating: 0, count: max(count, 1))
        let got = bytes.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if got > 0 { return .bytes(Array(bytes[..<got])) }
        if got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return .wouldBlock }
        return .closed
    }

    /// Waits for any of `descriptors` to be readable, at most `milliseconds`; the readable ones.
    static func waitReadable(_ descriptors: [Int32], milliseconds: Int32) -> Set<Int32> {
        var entries = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let ready = poll(&entries, nfds_t(entries.count), milliseconds)
        guard ready > 0 else { return [] }
        return Set(entries.filter { $0.revents != 0 }.map(\.fd))
    }

    static func closeDescriptor(_ descriptor: Int32) { close(descriptor) }

    static var userID: UInt32 { getuid() }

    /// A non-blocking pipe: (read end, write end).
    static func makePipe() throws(VaultError) -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw VaultError(.storeUnavailable, underlying: .errno(errno)) }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        return (ends[0], ends[1])
    }

    static func writeByte(_ descriptor: Int32) {
        var byte: UInt8 = 1
        _ = write(descriptor, &byte, 1)
    }

    static func drain(_ descriptor: Int32) {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(descriptor, &bytes, bytes.count) > 0 {}
    }
}
#endif
