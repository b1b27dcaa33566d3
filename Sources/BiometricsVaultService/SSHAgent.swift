#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultProcess
import BiometricsVaultSSH
import Glibc

/// `biometrics-vault ssh-agent`: the SSH agent protocol (RFC 9987, with OpenSSH's `session-bind`) on a
/// Unix socket of the user, over the keys the vault service keeps. The agent holds no private key: it
/// lists the service's keys, hands keys that `ssh-add` gives it to the service, and asks the service for
/// each signature, which the service makes after its own check of the key's policy.
///
/// Each connection is served on a thread of its own, blocking; only a process of this user (as the
/// kernel reports the socket's peer) is served. What the agent refuses it answers with
/// `SSH_AGENT_FAILURE`, and it changes nothing: smartcard keys, `restrict-destination` and other
/// constraints it does not enforce, a key or message that does not decode, any extension but
/// `session-bind@openssh.com`.
package final class SSHAgent: Sendable {
    /// The policy of keys `ssh-add` gives the agent (`none` or a ``ProtectionPolicy`` name).
    let policy: String
    /// How long one check opens a window for the key it allowed, for this agent's signatures (0: none).
    let windowSeconds: UInt32
    let log: @Sendable (String) -> Void
    /// The passphrase of `ssh-add -x`, while locked: nothing is listed, signed or added until the same
    /// passphrase unlocks it.
    private let lockPassphrase = LockedValue<SecretBytes?>(nil)
    /// Connections being served, at most ``maximumConnections``.
    private let connections = LockedValue(0)
    static let maximumConnections = 64
    /// The session bindings one connection keeps; OpenSSH's agent keeps 16.
    static let maximumBindings = 16

    package init(policy: String, windowSeconds: UInt32, log: @escaping @Sendable (String) -> Void) {
        self.policy = policy
        self.windowSeconds = windowSeconds
        self.log = log
    }

    /// A listening socket at `path` (0600), in a directory of this user's alone (made 0700 if missing).
    package static func listen(at path: String) throws(VaultError) -> Int32 {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty {
            if mkdir(directory, 0o700) != 0 && errno != EEXIST {
                throw VaultError(.storeUnavailable, underlying: .file(operation: "create", path: directory, errno: errno))
            }
            var info = stat()
            guard lstat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid(), info.st_mode & 0o077 == 0 else {
                throw VaultError(.storeUnavailable, underlying: .message(
                    "\(directory) must be a directory of this user's that group and others cannot enter (0700)"))
            }
        }
        return try UnixSocket.listen(at: path)
    }

    /// Serves connections on `listener` until `stop` says so (checked each second).
    package func serve(listener: Int32, stop: @escaping @Sendable () -> Bool = { false }) {
        while !stop() {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 1000) > 0 else { continue }
            let descriptor = accept(listener, nil, nil)
            guard descriptor >= 0 else { continue }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
            guard let peer = UnixSocket.peerCredentials(descriptor), peer.uid == getuid() else {
                log("refused a connection of another user")
                close(descriptor)
                continue
            }
            guard connections.withLock({ count in
                guard count < Self.maximumConnections else { return false }
                count += 1
                return true
            }) else {
                log("refused a connection: \(Self.maximumConnections) are being served")
                close(descriptor)
                continue
            }
            let started = DedicatedThread.start(name: "ssh-agent-peer") { [self] in
                serveConnection(descriptor, peer: peer)
                close(descriptor)
                connections.withLock { $0 -= 1 }
            }
            if started != 0 {
                close(descriptor)
                connections.withLock { $0 -= 1 }
            }
        }
    }

    /// Answers one connection's requests in order until it closes or sends what is not a frame.
    private func serveConnection(_ descriptor: Int32, peer: PeerCredentials) {
        var bindings: [[UInt8]] = []
        while true {
            guard let header = UnixSocket.readExactly(descriptor, 4) else { return }
            let length: Int
            do { length = try SSHAgentFrame.bodyLength(header: header) } catch {
                log("closed a connection: \(error.message)")
                return
            }
            guard var body = UnixSocket.readExactly(descriptor, length) else { return }
            let response: SSHAgentResponse
            do {
                let request = try SSHAgentRequest(body: body)
                body.zeroize()
                response = answer(request, bindings: &bindings, peer: peer)
            } catch {
                body.zeroize()
                log("refused a request: \(error.message)")
                response = .failure
            }
            guard UnixSocket.writeAll(descriptor, response.frame) else { return }
        }
    }

    /// The answer to one request of a connection whose client process is `peer`.
    func answer(_ request: SSHAgentRequest, bindings: inout [[UInt8]], peer: PeerCredentials) -> SSHAgentResponse {
        let locked = lockPassphrase.withLock { $0 != nil }
        do throws(VaultError) {
            switch request {
            case .requestIdentities:
                if locked { return .identities([]) }
                return .identities(try VaultServiceSSHKeys.keys().map { SSHIdentity(blob: $0.publicKey.blob, comment: $0.name) })
            case .sign(let keyBlob, let data, let flags):
                guard !locked else { return .failure }
                var encoded = SSHWriter()
                for binding in bindings { encoded.write(string: binding) }
                let signature = try VaultServiceSSHKeys.sign(
                    publicKey: keyBlob, data: data, flags: flags, bindings: encoded.bytes,
                    reason: "for \(Self.programName(pid: peer.pid)) (pid \(peer.pid)), through biometrics-vault ssh-agent",
                    windowSeconds: windowSeconds)
                return .signature(signature)
            case .addIdentity(let key, let comment, let constraints):
                guard !locked else { return .failure }
                var confirm = false
                var lifetime: UInt32 = 0
                for constraint in constraints {
                    switch constraint {
                    case .confirm: confirm = true
                    case .lifetime(let seconds): lifetime = seconds
                    case .maxSignatures, .extension:
                        log("refused a key with a constraint it would not enforce: \(constraint.name)")
                        return .failure
                    }
                }
                let name = Self.keyName(comment: comment, key: key.publicKey)
                // A key to confirm asks each time: a finger, where the agent's keys would need nothing.
                let policy = confirm && policy == "none" ? ProtectionPolicy.biometryAny.rawValue : policy
                _ = try VaultServiceSSHKeys.importKey(name: name, key: key, policy: policy, confirm: confirm, lifetimeSeconds: lifetime)
                return .success
            case .removeIdentity(let keyBlob):
                guard !locked, let key = try VaultServiceSSHKeys.keys().first(where: { $0.publicKey.blob == keyBlob }), !key.generated else {
                    return .failure
                }
                try VaultServiceSSHKeys.delete(name: key.name)
                return .success
            case .removeAllIdentities:
                guard !locked else { return .failure }
                for key in try VaultServiceSSHKeys.keys() where !key.generated { try VaultServiceSSHKeys.delete(name: key.name) }
                return .success
            case .lock(let passphrase):
                return lockPassphrase.withLock { held in
                    guard held == nil else { return .failure }
                    held = passphrase
                    return .success
                }
            case .unlock(let passphrase):
                let unlocked = lockPassphrase.withLock { held in
                    guard let current = held, current == passphrase else { return false }
                    held = nil
                    return true
                }
                if !unlocked { usleep(100_000) }  // a guess costs time, as with OpenSSH's agent
                return unlocked ? .success : .failure
            case .extension(let name, let contents):
                switch name {
                case "session-bind@openssh.com":
                    let binding: SSHSessionBind
                    do { binding = try SSHSessionBind(contents: contents) } catch {
                        log("refused a session binding: \(error.message)")
                        return .failure
                    }
                    // As OpenSSH's agent: a connection bound to a session it was not forwarded through is
                    // that session's, and binds no other.
                    if let last = bindings.last, let previous = try? SSHSessionBind(contents: last), !previous.isForwarding {
                        log("refused a session binding after a binding that was not forwarded")
                        return .failure
                    }
                    guard bindings.count < Self.maximumBindings, !binding.sessionID.isEmpty else { return .failure }
                    bindings.append(contents)
                    return .success
                default:
                    return .failure
                }
            case .addSmartcardKey, .removeSmartcardKey:
                return .failure
            }
        } catch {
            log("\(request.name): \(error.code.name)" + (error.underlying.map { " (\($0))" } ?? ""))
            return .failure
        }
    }

    /// The name a key `ssh-add` gives is kept under: its comment (the file it came from, or
    /// `user@host`), else its fingerprint.
    static func keyName(comment: String, key: SSHPublicKey) -> String {
        let usable = !comment.isEmpty && (try? SecretItemID(service: "ssh", key: comment)) != nil
        return usable ? comment : key.fingerprint
    }

    /// The client's program name as the kernel keeps it (`/proc/PID/comm`), for the prompt's reason.
    static func programName(pid: Int32) -> String {
        let descriptor = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "a program" }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &bytes, bytes.count)
        guard count > 0 else { return "a program" }
        return String(decoding: bytes[..<count], as: UTF8.self).trimmingNewline
    }
}

extension SSHAgentRequest {
    /// The request's name, for the log.
    var name: String {
        switch self {
        case .requestIdentities: "request identities"
        case .sign: "sign"
        case .addIdentity: "add identity"
        case .removeIdentity: "remove identity"
        case .removeAllIdentities: "remove all identities"
        case .addSmartcardKey: "add smartcard key"
        case .removeSmartcardKey: "remove smartcard key"
        case .lock: "lock"
        case .unlock: "unlock"
        case .extension(let name, _): "extension \(name)"
        }
    }
}

extension SSHAgentConstraint {
    var name: String {
        switch self {
        case .lifetime: "lifetime"
        case .confirm: "confirm"
        case .maxSignatures: "maximum signatures"
        case .extension(let name, _): name
        }
    }
}

extension String {
    fileprivate var trimmingNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}
#endif
