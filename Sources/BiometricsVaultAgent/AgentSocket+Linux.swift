#if os(Linux)
import BiometricsVaultCore
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

/// The uid and pid the kernel recorded for the other end of a Unix socket (`SO_PEERCRED`).
package struct PeerCredentials: Equatable {
    package let pid: Int32
    package let uid: UInt32
}

/// `struct ucred` of `<sys/socket.h>`, which Glibc's module leaves out (it needs `_GNU_SOURCE`).
private struct PeerCredentialsLayout {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// The agent's and its client's kernel calls, one file per concern: sockets, descriptors, the agent's
/// directory and lock here; starting the agent in `AgentSpawn+Linux.swift`; its log in `AgentLog+Linux.swift`;
/// small files in `AgentFiles+Linux.swift`; clocks and time formatting in `AgentClock+Linux.swift`.
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

    /// A non-blocking listening socket at `path` with `mode` (the agent's: 0600), replacing a stale socket
    /// file; the caller makes sure no live listener is there (the agent holds its lock).
    ///
    /// The socket is made with the process's umask, then given `mode`: the directory keeps others out
    /// meanwhile (the agent's is 0700; the service's umask is 0077). Setting the umask around `bind`
    /// instead would change it for every thread of the process, and for the children they start then.
    package static func listen(at path: String, mode: mode_t = 0o600) throws(VaultError) -> Int32 {
        unlink(path)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw VaultError(.storeUnavailable, underlying: .errno(errno)) }
        var address = try Self.address(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, chmod(path, mode) == 0, Glibc.listen(descriptor, 64) == 0 else {
            let failure = errno
            close(descriptor)
            throw VaultError(.storeUnavailable, underlying: .file(operation: "listen on", path: path, errno: failure))
        }
        return descriptor
    }

    /// The next waiting connection (non-blocking) with its peer's credentials, or `nil` when none waits.
    static func accept(_ listener: Int32) -> (descriptor: Int32, peer: PeerCredentials)? {
        let descriptor = Glibc.accept(listener, nil, nil)
        guard descriptor >= 0 else { return nil }
        // accept4 is a GNU extension Glibc's module does not export: set the two flags afterwards (this
        // process never runs a program while the agent serves, so the close-on-exec gap is harmless).
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        guard let peer = peerCredentials(descriptor) else {
            close(descriptor)
            return nil
        }
        return (descriptor, peer)
    }

    package static func peerCredentials(_ descriptor: Int32) -> PeerCredentials? {
        var credentials = PeerCredentialsLayout()
        var length = socklen_t(MemoryLayout<PeerCredentialsLayout>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid)
    }

    /// A blocking connection to `path` whose reads and writes give up after `timeout` seconds; the errno
    /// when it cannot connect.
    package static func connect(to path: String, timeout: Int) -> Result<Int32, VaultError> {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failure(VaultError(.storeUnavailable, underlying: .errno(errno))) }
        var address: sockaddr_un
        do { address = try Self.address(path) } catch { close(descriptor); return .failure(error) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let failure = errno
            close(descriptor)
            return .failure(VaultError(.storeUnavailable, underlying: .file(operation: "connect to", path: path, errno: failure)))
        }
        return .success(descriptor)
    }

    /// Writes all of `bytes` (blocking, bounded by the socket's send timeout); false on any failure.
    package static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Writes all of `bytes` from memory the caller owns (a store key: no copy is made).
    static func writeAll(_ descriptor: Int32, raw bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Reads exactly `count` secret bytes (blocking, bounded by the receive timeout) into `SecretBytes`;
    /// the buffer they arrive in is zeroed. `nil` on end, error or timeout.
    static func readSecret(_ descriptor: Int32, _ count: Int) -> SecretBytes? {
        guard var bytes = readExactly(descriptor, count) else { return nil }
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

    /// Reads exactly `count` bytes (blocking, bounded by the receive timeout); `nil` on end, error or timeout.
    package static func readExactly(_ descriptor: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let got = bytes[offset...].withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return nil }
            offset += got
        }
        return bytes
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

    /// Throws when `path` does not fit a Unix socket address (`sun_path`, with its terminating NUL).
    static func checkAddress(_ path: String) throws(VaultError) {
        _ = try address(path)
    }

    private static func address(_ path: String) throws(VaultError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw VaultError(.storeUnavailable, underlying: .message(
                "the agent socket path \(path) is \(bytes.count) bytes, more than a Unix socket address holds (\(capacity - 1)); set a shorter XDG_RUNTIME_DIR"))
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes + [0]) }
        return address
    }
}
#endif
