#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultProcess
import FoundationEssentials

/// Talks to this user's unlock-window agent: one connection per request, every read and write bounded
/// by ``timeoutSeconds``. Refuses an agent directory that is not this user's alone, and an agent that
/// does not run as this user (`SO_PEERCRED` on the client side too).
package struct UnlockWindowAgentClient: Sendable {
    package let paths: AgentPaths
    /// The `biometrics-vault` executable that `agent` starts on demand; `nil`: never start one.
    package let agentExecutable: String?
    package static let timeoutSeconds = 2

    package init(paths: AgentPaths, agentExecutable: String?) {
        self.paths = paths
        self.agentExecutable = agentExecutable
    }

    /// The client of this user's agent (`nil` without `XDG_RUNTIME_DIR`), starting this process's own
    /// executable as the agent when `startsItself` (the `biometrics-vault` CLI does).
    package static func current(startsItself: Bool) -> UnlockWindowAgentClient? {
        guard let paths = AgentPaths.current() else { return nil }
        return UnlockWindowAgentClient(paths: paths, agentExecutable: startsItself ? DetachedProcess.currentExecutable() : nil)
    }

    /// Whether an agent listens now (its socket accepts a connection); never starts one.
    package var isListening: Bool {
        guard (try? AgentSocket.prepareDirectory(paths.directory, create: false)) != nil else { return false }
        switch UnixSocket.connect(to: paths.socket, timeout: Self.timeoutSeconds) {
        case .success(let descriptor):
            AgentSocket.closeDescriptor(descriptor)
            return true
        case .failure: return false
        }
    }

    /// Sends `request`; with `startingAgent`, starts the agent first when none listens.
    package func send(_ request: AgentRequest, startingAgent: Bool) throws(VaultError) -> AgentResponse {
        try exchange(request, storeKey: nil, startingAgent: startingAgent).response
    }

    /// Sends `request` followed, for ``AgentRequest/keepStoreKey(store:keyFile:seconds:)``, by
    /// `storeKey`'s raw bytes (written from its own zeroed-on-release storage); the answer and, for
    /// ``AgentResponse/storeKey(found:)`` `true`, the key that followed it.
    package func exchange(
        _ request: AgentRequest, storeKey: SecretBytes?, startingAgent: Bool
    ) throws(VaultError) -> (response: AgentResponse, storeKey: SecretBytes?) {
        guard request.carriesStoreKey == (storeKey != nil), storeKey.map({ $0.count == AgentFrame.storeKeyLength }) ?? true else {
            throw VaultError(.encodingFailed, underlying: .message("a store key request needs one \(AgentFrame.storeKeyLength)-byte key"))
        }
        let descriptor = try connect(startingAgent: startingAgent)
        defer { AgentSocket.closeDescriptor(descriptor) }
        guard let peer = UnixSocket.peerCredentials(descriptor), peer.uid == AgentSocket.userID else {
            throw VaultError(.storeUnavailable, underlying: .message("the process on \(paths.socket) is not this user's agent"))
        }
        guard UnixSocket.writeAll(descriptor, try AgentFrame.encode(request)),
            storeKey?.withUnsafeBytes({ UnixSocket.writeAll(descriptor, raw: $0) }) ?? true
        else {
            throw VaultError(.storeUnavailable, underlying: .message("the unlock-window agent did not take the request"))
        }
        guard let header = UnixSocket.readExactly(descriptor, 4) else {
            throw VaultError(.storeUnavailable, underlying: .message("the unlock-window agent did not answer within \(Self.timeoutSeconds) s"))
        }
        let length = AgentFrame.length(of: header)
        guard length > 0, length <= AgentFrame.maximumBodySize, let body = UnixSocket.readExactly(descriptor, length) else {
            throw VaultError(.storeUnavailable, underlying: .message("the unlock-window agent's answer was cut short or too long"))
        }
        let response: AgentResponse
        do {
            response = try AgentFrame.decode(AgentResponse.self, body: body)
        } catch .versionMismatch(let received, let expected) {
            let theirs = received.map { "wire version \($0)" } ?? "no wire version"
            throw VaultError(.storeUnavailable, underlying: .message(
                "the running unlock-window agent answered in \(theirs), this program speaks \(expected): it is another build of biometrics-vault; it exits once idle, or end it and the next command starts this one"))
        } catch {
            throw VaultError(.storeUnavailable, underlying: .message("the unlock-window agent's answer is malformed"))
        }
        guard response.carriesStoreKey else { return (response, nil) }
        guard let key = AgentSocket.readSecret(descriptor, AgentFrame.storeKeyLength) else {
            throw VaultError(.storeUnavailable, underlying: .message("the unlock-window agent's answer was cut short"))
        }
        return (response, key)
    }

    private func connect(startingAgent: Bool) throws(VaultError) -> Int32 {
        try AgentSocket.prepareDirectory(paths.directory, create: startingAgent)
        switch UnixSocket.connect(to: paths.socket, timeout: Self.timeoutSeconds) {
        case .success(let descriptor): return descriptor
        case .failure(let error):
            guard startingAgent, let agentExecutable else { throw error }
            try DetachedProcess.start(executable: agentExecutable, arguments: ["agent", "--log-file"])
            // The agent listens within milliseconds; allow a loaded machine 3 s.
            var last = error
            for _ in 0..<150 {
                switch UnixSocket.connect(to: paths.socket, timeout: Self.timeoutSeconds) {
                case .success(let descriptor): return descriptor
                case .failure(let error): last = error
                }
                AgentSocket.sleep(milliseconds: 20)
            }
            throw last
        }
    }
}
#endif
