/// What `status` and `doctor` say about this terminal's unlock windows (``UnlockWindowAgentClient/state(service:)``
/// on Linux). Finding it out never starts the agent.
package enum UnlockWindowState: Equatable, Sendable {
    /// No window length is set (``UnlockWindowSetting``): commands do not use windows.
    case off
    /// Windows cannot work here, and why (no `XDG_RUNTIME_DIR`, a socket path too long, a directory refused,
    /// an agent that failed to answer).
    case unavailable(String)
    /// No agent runs: no window is open anywhere.
    case noAgent
    /// The agent runs, but this process has no controlling terminal: it gets no window.
    case noTerminal
    /// The agent runs and holds no window for this terminal (and service).
    case none
    /// The windows open for this terminal (and service), each with the local time it ends at.
    case open([OpenUnlockWindow])

    /// The name `--json` gives the state (stable).
    package var name: String {
        switch self {
        case .off: "off"
        case .unavailable: "unavailable"
        case .noAgent: "noAgent"
        case .noTerminal: "noTerminal"
        case .none: "none"
        case .open: "open"
        }
    }

    /// One line per window, or one line for the state: `unlock window: ...`.
    package var lines: [String] {
        switch self {
        case .off: ["unlock window: off"]
        case .unavailable(let reason): ["unlock window: unavailable: \(reason)"]
        case .noAgent: ["unlock window: none (no agent runs)"]
        case .noTerminal: ["unlock window: none (no controlling terminal)"]
        case .none: ["unlock window: none"]
        case .open(let windows):
            windows.map {
                "unlock window: open for \($0.report.service) (\($0.report.policy)) until \($0.endsAt) (\($0.report.remainingSeconds) s left)"
            }
        }
    }
}

/// One open window and the local wall-clock time (`HH:MM:SS`) it ends at.
package struct OpenUnlockWindow: Equatable, Sendable {
    package var report: UnlockWindowReport
    package var endsAt: String

    package init(report: UnlockWindowReport, endsAt: String) {
        self.report = report
        self.endsAt = endsAt
    }
}
