#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultProcess
import FoundationEssentials

/// The per-user process that holds unlock windows (`biometrics-vault agent`). One `poll` loop, on a thread
/// of its own (``serve(paths:idleSeconds:logToFile:listening:)``), accepts connections, reads one framed
/// request from each, answers and closes; only that thread touches the windows and keys (the screen-lock
/// watcher reaches them through ``UnlockWindowLockTrigger``'s pipe). Windows live only in
/// this process's memory; nothing is written anywhere, and they end with the process.
///
/// Every connection's peer is checked with `SO_PEERCRED`: another uid is refused and logged on stderr. A
/// request longer than ``AgentFrame/maximumBodySize``, a malformed one, or a client that sends no complete
/// request within ``clientTimeout`` seconds is dropped (and logged) without affecting the others.
///
/// The peer's process is pinned (a pidfd) and its scope read when the connection is accepted
/// (``PeerProcess``); an answer that depends on the scope is sent only while that process is still
/// there. Windows and keys of a scope end when its terminal's session does (``PeerScope/isCurrent``).
package final class UnlockWindowAgent {
    private struct WindowKey: Hashable {
        let scope: PeerScope
        let service: String
        let policy: String
    }

    private struct Window {
        let expires: Double
        let enrollment: String?
    }

    private struct Client {
        let peer: PeerProcess
        let deadline: Double
        var buffer: [UInt8] = []
        /// A `keepStoreKey` request whose key is still arriving, straight into locked memory.
        var awaitingKey: (request: AgentRequest, key: LockedSecret, received: Int)?
    }

    /// A file store key kept for one scope (``AgentRequest/keepStoreKey(store:keyFile:seconds:)``).
    private struct StoreKeyID: Hashable {
        let scope: PeerScope
        let store: String
    }

    private struct KeptStoreKey {
        let keyFile: String
        let expires: Double
        /// Zeroed and unmapped when the entry goes (expiry, `lock`, the screen lock, exit).
        let key: LockedSecret
    }

    /// Store keys kept at once, across scopes; more are refused (each takes a locked page).
    static let maximumStoreKeys = 64
    /// Windows open at once for one scope, and for all; more are refused, so that a peer opening windows
    /// in a loop cannot grow the agent's memory, and one scope's `status` stays within a frame.
    static let maximumWindowsPerScope = 32
    static let maximumWindows = 1024
    /// The longest service name and enrollment text a window keeps (UTF-8 bytes).
    static let maximumNameLength = 256

    /// Seconds a client has to send its whole request.
    package static let clientTimeout = 2.0
    /// Connections served at once; more wait in the listen queue.
    static let maximumClients = 256

    package let paths: AgentPaths
    private let idleSeconds: Double
    private let lockDescriptor: Int32
    private let listener: Int32
    private let lockTrigger: UnlockWindowLockTrigger
    private var windows: [WindowKey: Window] = [:]
    private var storeKeys: [StoreKeyID: KeptStoreKey] = [:]
    private var clients: [Int32: Client] = [:]
    private var lastActivity = AgentSocket.now()
    private var lastScopeCheck = 0.0

    /// Starts the agent (``start(paths:idleSeconds:logToFile:)``) and serves until idle (``run()``), both on
    /// a thread of its own (``DedicatedThread``), so the awaiting task holds no cooperative thread meanwhile;
    /// the agent's state never leaves that thread. `listening` runs there once the agent listens, with
    /// what closes every window from another thread. `false` when another agent already serves.
    package static func serve(
        paths: AgentPaths, idleSeconds: Int, logToFile: Bool, listening: @escaping @Sendable (UnlockWindowLockTrigger) -> Void
    ) async throws(VaultError) -> Bool {
        try await DedicatedThread.run(name: "unlock-agent") { () throws(VaultError) -> Bool in
            guard let agent = try start(paths: paths, idleSeconds: idleSeconds, logToFile: logToFile) else { return false }
            listening(agent.trigger)
            agent.run()
            return true
        }
    }

    /// Prepares the directory, takes the agent lock and listens; `nil` when another agent already holds
    /// the lock (it serves this user; nothing to do).
    ///
    /// - Parameters:
    ///   - idleSeconds: the agent exits once it has had no window and no client for this long.
    ///   - logToFile: log to ``AgentPaths/log`` (opened by the agent, started anew past
    ///     ``AgentPaths/maximumLogSize``) instead of stderr.
    package static func start(paths: AgentPaths, idleSeconds: Int, logToFile: Bool = false) throws(VaultError) -> UnlockWindowAgent? {
        DetachedProcess.closeInheritedDescriptors()
        // Before any key can arrive: no core file, no ptrace or /proc/PID/mem by the user's other processes.
        try AgentProcess.makeNotDumpable()
        try AgentSocket.prepareDirectory(paths.directory, create: true)
        if logToFile, let refusal = AgentLog.openOwnLog(paths.log) {
            AgentSocket.log("refused the log file: \(refusal); logging to stderr")
        }
        // An agent that is exiting holds the lock a moment longer: wait for it rather than leave the
        // client that started us without an agent.
        var lock: Int32?
        for _ in 0..<20 {
            lock = try AgentSocket.takeAgentLock(paths.lock)
            if lock != nil { break }
            AgentSocket.sleep(milliseconds: 50)
        }
        guard let lock else { return nil }
        let listener: Int32
        do {
            listener = try UnixSocket.listen(at: paths.socket)
        } catch {
            AgentSocket.closeDescriptor(lock)
            throw error
        }
        let trigger: UnlockWindowLockTrigger
        do {
            trigger = try UnlockWindowLockTrigger()
        } catch {
            AgentSocket.closeDescriptor(listener)
            AgentSocket.closeDescriptor(lock)
            throw error
        }
        return UnlockWindowAgent(paths: paths, idleSeconds: Double(idleSeconds), lock: lock, listener: listener, trigger: trigger)
    }

    private init(paths: AgentPaths, idleSeconds: Double, lock: Int32, listener: Int32, trigger: UnlockWindowLockTrigger) {
        self.paths = paths
        self.idleSeconds = idleSeconds
        self.lockDescriptor = lock
        self.listener = listener
        self.lockTrigger = trigger
    }

    /// What another thread (the screen-lock watcher) uses to close every window.
    package var trigger: UnlockWindowLockTrigger { lockTrigger }

    /// Serves until idle; then removes the socket, releases the lock and returns.
    package func run() {
        AgentSocket.log("listening on \(paths.socket)")
        while true {
            let now = AgentSocket.now()
            windows = windows.filter { $0.value.expires > now }
            storeKeys = storeKeys.filter { $0.value.expires > now }
            if now - lastScopeCheck >= 1 {
                lastScopeCheck = now
                endScopesWhoseSessionEnded()
            }
            for (descriptor, client) in clients where client.deadline <= now {
                AgentSocket.log("pid \(client.peer.pid) sent no complete request within \(Int(Self.clientTimeout)) s; dropped")
                drop(descriptor)
            }
            if windows.isEmpty && storeKeys.isEmpty && clients.isEmpty && now - lastActivity >= idleSeconds { break }
            let descriptors = [listener, lockTrigger.readDescriptor] + Array(clients.keys)
            let ready = AgentSocket.waitReadable(descriptors, milliseconds: 250)
            if ready.contains(lockTrigger.readDescriptor) {
                lockTrigger.drain()
                AgentSocket.log("closed \(windows.count) window(s)")
                windows.removeAll()
                storeKeys.removeAll()
            }
            if ready.contains(listener) { acceptWaiting() }
            for descriptor in ready where clients[descriptor] != nil {
                serve(descriptor)
            }
        }
        AgentSocket.log("idle for \(Int(idleSeconds)) s: exiting")
        storeKeys.removeAll()
        AgentSocket.removeFile(paths.socket)
        AgentSocket.closeDescriptor(listener)
        AgentSocket.closeDescriptor(lockDescriptor)
    }

    /// Drops the windows and keys of every scope whose terminal's session ended (its leader exited, or
    /// no longer has the terminal): a later session given the same number never finds them.
    private func endScopesWhoseSessionEnded() {
        let scopes = Set(windows.keys.map(\.scope)).union(storeKeys.keys.map(\.scope))
        for scope in scopes where !scope.isCurrent {
            let closed = windows.keys.filter { $0.scope == scope }.count
            let dropped = storeKeys.keys.filter { $0.scope == scope }.count
            windows = windows.filter { $0.key.scope != scope }
            storeKeys = storeKeys.filter { $0.key.scope != scope }
            AgentSocket.log("the session of \(scope) ended: closed \(closed) window(s), dropped \(dropped) key(s)")
        }
    }

    private func acceptWaiting() {
        while clients.count < Self.maximumClients, let (descriptor, credentials) = UnixSocket.accept(listener) {
            lastActivity = AgentSocket.now()
            guard credentials.uid == AgentSocket.userID else {
                AgentSocket.log(
                    "refused a connection from pid \(credentials.pid) of uid \(credentials.uid) (this agent serves uid \(AgentSocket.userID) only)")
                AgentSocket.closeDescriptor(descriptor)
                continue
            }
            let peer = PeerProcess(socket: descriptor, credentials: credentials)
            if peer.pinning == .none {
                AgentSocket.log("pid \(credentials.pid) had exited before its connection was accepted: it gets no scope")
            }
            clients[descriptor] = Client(peer: peer, deadline: lastActivity + Self.clientTimeout)
        }
    }

    private func serve(_ descriptor: Int32) {
        guard var client = clients[descriptor] else { return }
        if client.awaitingKey != nil { return receiveStoreKey(descriptor) }
        // The header first, then at most the announced body (checked against the bound once the header is in).
        let wanted = client.buffer.count < 4
            ? 4 - client.buffer.count : min(4 + AgentFrame.length(of: client.buffer.prefix(4)) - client.buffer.count, AgentFrame.maximumBodySize)
        switch AgentSocket.readAvailable(descriptor, upTo: wanted) {
        case .wouldBlock: return
        case .closed:
            drop(descriptor)
            return
        case .bytes(let bytes): client.buffer += bytes
        }
        clients[descriptor] = client
        guard client.buffer.count >= 4 else { return }
        let length = AgentFrame.length(of: client.buffer.prefix(4))
        guard length > 0, length <= AgentFrame.maximumBodySize else {
            AgentSocket.log("pid \(client.peer.pid) announced a request of \(length) bytes (at most \(AgentFrame.maximumBodySize)); dropped")
            drop(descriptor)
            return
        }
        guard client.buffer.count == 4 + length else { return }
        let response: AgentResponse
        do {
            let request = try AgentFrame.decode(AgentRequest.self, body: client.buffer.dropFirst(4))
            if request.carriesStoreKey { return awaitStoreKey(descriptor, request) }
            if case .storeKey(let store, let keyFile) = request { return sendStoreKey(descriptor, store: store, keyFile: keyFile, peer: client.peer) }
            response = answer(request, peer: client.peer)
        } catch .versionMismatch(let received, _) {
            let theirs = received.map { "wire version \($0)" } ?? "no wire version"
            AgentSocket.log("pid \(client.peer.pid) sent a request of \(theirs) (this agent speaks \(AgentFrame.version)); refused")
            response = .refused(reason: "this agent speaks wire version \(AgentFrame.version), the request \(theirs)")
        } catch {
            AgentSocket.log("pid \(client.peer.pid) sent a malformed request; refused")
            response = .refused(reason: "malformed request")
        }
        if let frame = try? AgentFrame.encode(response) { _ = UnixSocket.writeAll(descriptor, frame) }
        lastActivity = AgentSocket.now()
        drop(descriptor)
    }

    /// Reads the key that follows a `keepStoreKey` frame into locked memory (it may come in pieces).
    private func awaitStoreKey(_ descriptor: Int32, _ request: AgentRequest) {
        guard var client = clients[descriptor] else { return }
        do {
            client.awaitingKey = (request, try LockedSecret(count: AgentFrame.storeKeyLength), 0)
        } catch {
            AgentSocket.log("cannot lock memory for a store key (\(error)); not kept")
            return reply(descriptor, .refused(reason: "the agent cannot lock memory for the key"))
        }
        clients[descriptor] = client
        receiveStoreKey(descriptor)
    }

    private func receiveStoreKey(_ descriptor: Int32) {
        guard var client = clients[descriptor], var awaiting = client.awaitingKey else { return }
        let outcome = awaiting.key.withUnsafeMutableBytes {
            AgentSocket.readAvailable(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: $0[awaiting.received...]))
        }
        switch outcome {
        case .failure: return drop(descriptor)
        case .success(nil): return
        case .success(let count?): awaiting.received += count
        }
        guard awaiting.received == awaiting.key.count else {
            client.awaitingKey = awaiting
            clients[descriptor] = client
            return
        }
        reply(descriptor, keep(awaiting.request, key: awaiting.key, peer: client.peer))
    }

    /// Answers `storeKey`: `found: true` and the key's bytes, from locked memory, when this scope keeps
    /// one for `store` and its key file is still `keyFile`; a key kept for another key file is dropped.
    private func sendStoreKey(_ descriptor: Int32, store: String, keyFile: String, peer: PeerProcess) {
        guard let scope = peer.scope, scope.isCurrent else { return reply(descriptor, .storeKey(found: false)) }
        let id = StoreKeyID(scope: scope, store: store)
        guard let kept = storeKeys[id], kept.expires > AgentSocket.now() else { return reply(descriptor, .storeKey(found: false)) }
        guard kept.keyFile == keyFile else {
            storeKeys[id] = nil
            AgentSocket.log("dropped the key of the store \(store) on \(scope): its key file changed")
            return reply(descriptor, .storeKey(found: false))
        }
        // Last, right before the key leaves: the process that asked is still the one that connected.
        guard peer.isStillThere else { return dropGonePeer(descriptor, peer) }
        // Logged before the key leaves, so the log has the line by the time the peer has the key.
        AgentSocket.log("handed the key of the store \(store) to pid \(peer.pid) on \(scope)")
        guard let frame = try? AgentFrame.encode(AgentResponse.storeKey(found: true)), UnixSocket.writeAll(descriptor, frame),
            kept.key.withUnsafeBytes({ UnixSocket.writeAll(descriptor, raw: $0) })
        else {
            AgentSocket.log("the key of the store \(store) did not reach pid \(peer.pid): the connection failed")
            lastActivity = AgentSocket.now()
            return drop(descriptor)
        }
        lastActivity = AgentSocket.now()
        drop(descriptor)
    }

    /// A peer whose process exited (or whose pid is another process's now) gets no answer.
    private func dropGonePeer(_ descriptor: Int32, _ peer: PeerProcess) {
        AgentSocket.log("pid \(peer.pid) is no longer the process that connected: not answered")
        lastActivity = AgentSocket.now()
        drop(descriptor)
    }

    private func keep(_ request: AgentRequest, key: LockedSecret, peer: PeerProcess) -> AgentResponse {
        guard case .keepStoreKey(let store, let keyFile, let seconds) = request else { return .refused(reason: "malformed request") }
        guard let scope = peer.scope, peer.isStillThere else {
            return .refused(reason: "the process has no controlling terminal: no unlock window")
        }
        let id = StoreKeyID(scope: scope, store: store)
        guard (1...AgentFrame.maximumWindowSeconds).contains(seconds), store.hasPrefix("/"), keyFile.utf8.count == 64,
            keyFile.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        else { return .refused(reason: "invalid store key window") }
        guard storeKeys.count < Self.maximumStoreKeys || storeKeys[id] != nil else {
            return .refused(reason: "the agent keeps \(Self.maximumStoreKeys) store keys already")
        }
        guard store.utf8.count <= 4 * Self.maximumNameLength else { return .refused(reason: "invalid store key window") }
        storeKeys[id] = KeptStoreKey(keyFile: keyFile, expires: AgentSocket.now() + Double(seconds), key: key)
        AgentSocket.log("kept the key of the store \(store) for \(seconds) s on \(scope)")
        return .keptStoreKey(seconds: seconds)
    }

    private func reply(_ descriptor: Int32, _ response: AgentResponse) {
        if let frame = try? AgentFrame.encode(response) { _ = UnixSocket.writeAll(descriptor, frame) }
        lastActivity = AgentSocket.now()
        drop(descriptor)
    }

    private func answer(_ request: AgentRequest, peer: PeerProcess) -> AgentResponse {
        // The scope read when the peer connected, while it is still the process that connected and its
        // session still runs: a pid given to another process since names nothing here.
        let scope = peer.scope.flatMap { $0.isCurrent && peer.isStillThere ? $0 : nil }
        let now = AgentSocket.now()
        switch request {
        case .open(let service, let policy, let seconds, let enrollment):
            guard let scope else { return .refused(reason: "the process has no controlling terminal: no unlock window") }
            guard (1...AgentFrame.maximumWindowSeconds).contains(seconds), !service.isEmpty, service.utf8.count <= Self.maximumNameLength,
                (enrollment?.utf8.count ?? 0) <= Self.maximumNameLength, ProtectionPolicy(rawValue: policy) != nil
            else {
                return .refused(reason: "invalid window")
            }
            let key = WindowKey(scope: scope, service: service, policy: policy)
            if windows[key] == nil {
                guard windows.keys.filter({ $0.scope == scope }).count < Self.maximumWindowsPerScope else {
                    AgentSocket.log("refused a window for service '\(service)' on \(scope): it has \(Self.maximumWindowsPerScope) already")
                    return .refused(reason: "this terminal has \(Self.maximumWindowsPerScope) unlock windows open already")
                }
                guard windows.count < Self.maximumWindows else {
                    AgentSocket.log("refused a window for service '\(service)' on \(scope): \(Self.maximumWindows) are open")
                    return .refused(reason: "the agent holds \(Self.maximumWindows) unlock windows already")
                }
            }
            windows[key] = Window(expires: now + Double(seconds), enrollment: enrollment)
            AgentSocket.log("opened a \(seconds) s window for service '\(service)' (\(policy)) on \(scope)")
            return .opened(UnlockWindowReport(service: service, policy: policy, remainingSeconds: seconds, enrollment: enrollment))
        case .query(let service, let policy):
            guard let scope, let window = windows[WindowKey(scope: scope, service: service, policy: policy)] else { return .window(nil) }
            return .window(report(service: service, policy: policy, window, now: now))
        case .close(let service, let policy):
            // This scope's only: the scope comes from the kernel, so no terminal closes another's window.
            guard let scope, windows.removeValue(forKey: WindowKey(scope: scope, service: service, policy: policy)) != nil else {
                return .locked(count: 0)
            }
            AgentSocket.log("closed the window for service '\(service)' (\(policy)) on \(scope): the enrolled fingers changed")
            return .locked(count: 1)
        case .lock:
            let count = windows.count + storeKeys.count
            windows.removeAll()
            storeKeys.removeAll()
            AgentSocket.log("lock: closed \(count) window(s)")
            return .locked(count: count)
        case .status:
            guard let scope else { return .status(scope: nil, windows: []) }
            let mine = windows.filter { $0.key.scope == scope }
                .map { report(service: $0.key.service, policy: $0.key.policy, $0.value, now: now) }
                .sorted { ($0.service, $0.policy) < ($1.service, $1.policy) }
            return Self.fittingStatus(scope: scope.description, windows: mine)
        case .keepStoreKey, .storeKey:
            // Served by ``awaitStoreKey(_:_:)`` and ``sendStoreKey(_:store:keyFile:peer:)``: raw key bytes
            // travel with them.
            return .refused(reason: "malformed request")
        case .forgetStoreKey(let store):
            let before = storeKeys.count
            storeKeys = storeKeys.filter { $0.key.store != store }
            AgentSocket.log("dropped \(before - storeKeys.count) key(s) of the store \(store): it no longer opened it")
            return .locked(count: before - storeKeys.count)
        }
    }

    /// `status` with as many of `windows` as fit in one frame (the bounds on names and windows make it
    /// all of them in practice; an answer too long would not be sent at all).
    package static func fittingStatus(scope: String, windows: [UnlockWindowReport]) -> AgentResponse {
        var shown = windows
        while !shown.isEmpty, (try? AgentFrame.encode(AgentResponse.status(scope: scope, windows: shown))) == nil {
            shown.removeLast()
        }
        return .status(scope: scope, windows: shown)
    }

    private func report(service: String, policy: String, _ window: Window, now: Double) -> UnlockWindowReport {
        UnlockWindowReport(
            service: service, policy: policy, remainingSeconds: Int((window.expires - now).rounded(.up)), enrollment: window.enrollment)
    }

    private func drop(_ descriptor: Int32) {
        clients[descriptor] = nil
        AgentSocket.closeDescriptor(descriptor)
    }
}

/// Closes every window of a running agent from any thread (a pipe the agent's loop watches).
package struct UnlockWindowLockTrigger: Sendable {
    let readDescriptor: Int32
    let writeDescriptor: Int32

    init() throws(VaultError) {
        (readDescriptor, writeDescriptor) = try AgentSocket.makePipe()
    }

    /// Asks the agent to close every window (returns at once); `reason` goes to the agent's log first.
    package func lockAll(because reason: String) {
        AgentSocket.log("\(reason): closing every window")
        AgentSocket.writeByte(writeDescriptor)
    }

    /// One line on the agent's log (its stderr).
    package func log(_ line: String) { AgentSocket.log(line) }

    func drain() { AgentSocket.drain(readDescriptor) }
}
#endif
