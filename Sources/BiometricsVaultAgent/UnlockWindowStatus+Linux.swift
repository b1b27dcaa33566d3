#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultProcess

extension UnlockWindowAgentClient {
    /// Why windows cannot work with these paths before any connection is tried (a socket path longer
    /// than a Unix socket address holds); `nil` when nothing is known to be wrong.
    package var unavailability: String? {
        do {
            try UnixSocket.checkAddress(paths.socket)
            return nil
        } catch {
            return Self.reason(error)
        }
    }

    /// This terminal's windows (of `service` only, when given), asked of a running agent; never starts one.
    package func state(service: String?) -> UnlockWindowState {
        if let unavailability { return .unavailable(unavailability) }
        guard isListening else { return .noAgent }
        let answer: AgentResponse
        do {
            answer = try send(.status, startingAgent: false)
        } catch {
            return .unavailable(Self.reason(error))
        }
        switch answer {
        case .status(nil, _): return .noTerminal
        case .status(_, let windows):
            let mine = windows.filter { service == nil || $0.service == service }
            guard !mine.isEmpty else { return .none }
            return .open(mine.map { OpenUnlockWindow(report: $0, endsAt: AgentSocket.localTimeOfDay(secondsFromNow: $0.remainingSeconds)) })
        case .refused(let reason): return .unavailable("the agent refused: \(reason)")
        case .opened, .window, .locked, .keptStoreKey, .storeKey: return .unavailable("the agent answered another request")
        }
    }

    /// The underlying cause's words (the error code adds nothing here).
    package static func reason(_ error: VaultError) -> String {
        error.underlying.map { "\($0)" } ?? "\(error)"
    }

    /// What ``state(service:)`` says for a command whose window length is `seconds`: ``UnlockWindowState/off``
    /// when `nil`, ``UnlockWindowState/unavailable(_:)`` without `XDG_RUNTIME_DIR`.
    package static func state(seconds: Int?, service: String?) -> UnlockWindowState {
        guard seconds != nil else { return .off }
        guard let client = current(startsItself: false) else { return .unavailable("XDG_RUNTIME_DIR is not set (or not absolute)") }
        return client.state(service: service)
    }
}
#endif
