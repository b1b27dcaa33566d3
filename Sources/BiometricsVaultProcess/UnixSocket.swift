#if os(Linux)
import BiometricsVaultCore
import Glibc

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

/// The package's calls on local stream sockets (`AF_UNIX`): listening, accepting and connecting, the
/// peer's credentials, and reads and writes of whole buffers. The unlock-window agent and its client,
/// the vault service's attestation socket and its client, and the SSH agent use them.
package enum UnixSocket {
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
    /// The connection is close-on-exec and non-blocking only once this returns: for a caller that starts
    /// no program meanwhile (the unlock-window agent, while it serves).
    package static func accept(_ listener: Int32) -> (descriptor: Int32, peer: PeerCredentials)? {
        let descriptor = Glibc.accept(listener, nil, nil)
        guard descriptor >= 0 else { return nil }
        // accept4 is a GNU extension Glibc's module does not export: set the two flags afterwards.
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
    package static func writeAll(_ descriptor: Int32, raw bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
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

    /// Throws when `path` does not fit a Unix socket address (`sun_path`, with its terminating NUL).
    package static func checkAddress(_ path: String) throws(VaultError) {
        _ = try address(path)
    }

    /// The address of `path`; one too long for `sun_path` is refused with words for the unlock-window
    /// agent's socket (whose directory `XDG_RUNTIME_DIR` names), whichever socket it is.
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
