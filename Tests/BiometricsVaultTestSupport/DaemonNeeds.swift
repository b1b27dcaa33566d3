import Foundation
import Testing

/// Whether every daemon-backed test must run (CI sets `BV_REQUIRE_DAEMONS=1`): then a missing daemon
/// fails the test that needs it instead of skipping it.
package enum Daemons {
    package static var required: Bool { ProcessInfo.processInfo.environment["BV_REQUIRE_DAEMONS"] == "1" }
}

/// Something a test needs from the machine (a daemon, a tool, a user), and why it is missing.
package struct DaemonNeed: Sendable {
    /// What the test needs, as the skip reason names it ("gnome-keyring on the session bus").
    package let what: String
    /// What brings it up ("scripts/setup/20-secret-service.sh"), or which extra CI step runs the test
    /// instead (a reason naming `scripts/extra-tests/` is a skip CI expects).
    package let remedy: String
    /// Why it is missing here; `nil` when it is there. Evaluated once: keep needs in `static let`s.
    package let problem: String?
    /// A check that runs a program, evaluated once, when a test that needs it is about to run.
    private let probe: Task<String?, Never>?
    /// Whether the test runs in an extra CI step of its own (``ownStep(_:runsHere:)``): missing, it is
    /// skipped even under `BV_REQUIRE_DAEMONS=1`.
    let runsInItsOwnStep: Bool

    package init(_ what: String, remedy: String, problem: @autoclosure () -> String?) {
        self.what = what
        self.remedy = remedy
        self.problem = problem()
        self.probe = nil
        self.runsInItsOwnStep = false
    }

    private init(step script: String, runsHere: Bool) {
        what = "its own CI step"
        remedy = script
        problem = runsHere ? nil : "run by \(script) alone"
        probe = nil
        runsInItsOwnStep = true
    }

    /// A suite that needs what an extra CI step sets up machine-wide (the vault service installed, the
    /// reader to itself, a booted systemd), run by that step alone: `runsHere` says the step runs it.
    /// Anywhere else it is skipped, also under `BV_REQUIRE_DAEMONS=1`, with a reason naming `script`;
    /// the step fails unless each of its tests ran, by name.
    package static func ownStep(_ script: String, runsHere: Bool) -> DaemonNeed {
        DaemonNeed(step: script, runsHere: runsHere)
    }

    /// A need that `probe` checks (by running something): why it is missing, or `nil`.
    package init(_ what: String, remedy: String, probe: @escaping @Sendable () async -> String?) {
        self.what = what
        self.remedy = remedy
        self.problem = nil
        self.probe = Task { await probe() }
        self.runsInItsOwnStep = false
    }

    /// Why it is missing here, once the probe (if any) has run.
    package var missing: String? {
        get async { if let probe { await probe.value } else { problem } }
    }

    /// Executables that must be installed.
    package static func executables(_ paths: [String], remedy: String) -> DaemonNeed {
        let missing = paths.filter { !FileManager.default.isExecutableFile(atPath: $0) }
        return DaemonNeed(paths.joined(separator: ", "), remedy: remedy, problem: missing.isEmpty ? nil : "\(missing) are not installed")
    }

    /// An environment variable a setup script sets.
    package static func variable(_ name: String, remedy: String) -> DaemonNeed {
        let value = ProcessInfo.processInfo.environment[name]
        return DaemonNeed(name, remedy: remedy, problem: value?.isEmpty == false ? nil : "\(name) is not set")
    }
}

/// A need missing where `BV_REQUIRE_DAEMONS=1` says it must be there.
package struct DaemonMissing: Error, CustomStringConvertible {
    package let description: String
}

extension Trait where Self == ConditionTrait {
    /// Runs the test when every need is met. Otherwise it is skipped with the reason, except under
    /// `BV_REQUIRE_DAEMONS=1`: then the condition throws and the test fails, naming what is missing.
    package static func needs(_ needs: DaemonNeed..., sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        let reason = needs.map { "\($0.what) (\($0.remedy))" }.joined(separator: "; ")
        return .enabled(Comment(rawValue: "needs \(reason)"), sourceLocation: sourceLocation) {
            var missing: [String] = []
            for need in needs {
                guard let problem = await need.missing else { continue }
                if need.runsInItsOwnStep { return false }
                missing.append("\(need.what): \(problem) (\(need.remedy))")
            }
            if missing.isEmpty { return true }
            if Daemons.required { throw DaemonMissing(description: "BV_REQUIRE_DAEMONS=1 but " + missing.joined(separator: "; ")) }
            return false
        }
    }
}
