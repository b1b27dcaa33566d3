#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultProcess
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

// The polkit choke point: every call to org.freedesktop.PolicyKit1.Authority goes through this file
// (over the package's D-Bus layer, BiometricsVaultDBus), and what polkit's failures mean is said here.

/// What polkit says before anything is asked of the user.
public enum PolkitStatus: Hashable, Sendable, CustomStringConvertible {
    /// polkitd answers and our action is registered. Whether an authentication agent is running shows
    /// only when asking (`is_challenge` without authorization), so ``PolkitOwnerAuthenticator`` reports a
    /// missing agent as `interactionNotAllowed` at that point.
    case ready
    /// No system bus, or nobody owns `org.freedesktop.PolicyKit1`.
    case noPolkit
    /// polkitd runs but our action is not registered (the `.policy` file is not installed; run
    /// `biometrics-vault setup` as root).
    case policyMissing

    /// The error authentication throws in this state; `nil` when ready.
    public var error: VaultError? {
        switch self {
        case .ready: nil
        case .noPolkit: VaultError(.passcodeNotSet, underlying: .message("polkit is not running on the system bus"))
        case .policyMissing:
            VaultError(.passcodeNotSet, underlying: .message("the polkit action is not installed; run `biometrics-vault setup`"))
        }
    }

    public var description: String {
        switch self {
        case .ready: "ready"
        case .noPolkit: "noPolkit"
        case .policyMissing: "policyMissing"
        }
    }
}

/// Whose authorization polkit is asked about.
package enum PolkitSubject: Sendable, Hashable {
    /// This process (a `unix-process` subject: pid and start time).
    case thisProcess
    /// Another process (a `unix-process` subject): a service's caller, by the pid the bus reported, its
    /// start time (so a reused pid is another process) and its uid. polkit asks the agent registered for
    /// that process (`pkttyagent --process PID,START`) or its session's. `program` names that process
    /// for the agent's message (the action's `$(program)`), as the service saw it.
    case process(pid: UInt32, startTime: UInt64, uid: UInt32, program: String)
}

package enum PolkitAuthority {
    static let service = "org.freedesktop.PolicyKit1"
    static let path = "/org/freedesktop/PolicyKit1/Authority"
    static let interface = "org.freedesktop.PolicyKit1.Authority"
    /// CheckAuthorizationFlags.AllowUserInteraction
    static let allowUserInteraction: UInt32 = 0x1

    /// What polkit's failures mean: no polkit (or a polkit that cannot answer) is "no password path";
    /// a timeout or a cancel ends the prompt; a dialog polkit reports cancelled is the user's cancel.
    static let errors = DBusErrorMapping(
        names: ["org.freedesktop.PolicyKit1.Error.Cancelled": .userCancel],
        kinds: [.timedOut: .systemCancel, .cancelled: .systemCancel],
        otherwise: .passcodeNotSet)

    static func method(_ member: String) -> DBusMethod {
        DBusMethod(destination: service, path: path, interface: interface, member: member)
    }

    /// Whether polkitd answers and `actionID` is registered (EnumerateActions). Never prompts.
    static func status(actionID: String) -> PolkitStatus {
        do {
            let bus = try DBusConnection(.system)
            let reply = try bus.call(method("EnumerateActions"), .tuple([.string("")]))
            guard reply.typeString.hasPrefix("(a(ssssssuuua{ss}))") else { return .noPolkit }
            let actions = reply[0]
            for index in 0..<actions.count where actions[index][0].string == actionID { return .ready }
            return .policyMissing
        } catch {
            return .noPolkit
        }
    }

    /// Asks polkit whether this process may perform `actionID`, letting the session's agent prompt.
    /// Blocks until the agent answered, `timeout` passed, or `cancellation` fired: run it on a dedicated
    /// thread.
    static func checkAuthorization(
        actionID: String, subject: PolkitSubject = .thisProcess, reason: String? = nil, timeout: Duration,
        cancellation: DBusCancellation, stop: StopRequest
    ) throws(VaultError) {
        let bus: DBusConnection
        do { bus = try DBusConnection(.system, cancellation: cancellation) } catch {
            throw error.vaultError(errors)
        }
        let cancellationID = "biometrics-vault-\(getpid())-\(UUID().uuidString)"
        let subjectArgument: DBusArgument
        switch subject {
        case .thisProcess:
            subjectArgument = .tuple([
                .string("unix-process"),
                .vardict([
                    ("pid", .uint32(UInt32(getpid()))),
                    // pid alone is racy (it may be reused); polkit pairs it with the start time.
                    ("start-time", .uint64(processStartTime())),
                    ("uid", .int32(Int32(bitPattern: getuid()))),
                ]),
            ])
        case .process(let pid, let startTime, let uid, _):
            subjectArgument = .tuple([
                .string("unix-process"),
                .vardict([("pid", .uint32(pid)), ("start-time", .uint64(startTime)), ("uid", .int32(Int32(bitPattern: uid)))]),
            ])
        }
        // The agent shows the action's message, in which polkit puts the details: the vault service names
        // the program that asks and what it says it reads (as the action's owner it may pass details for
        // another user's subject).
        var details: [(key: String, value: String)] = []
        if case .process(_, _, _, let program) = subject {
            details.append((key: "program", value: program))
            if let reason { details.append((key: "reason", value: reason)) }
        }
        let arguments = DBusArgument.tuple([
            subjectArgument, .string(actionID), .stringDict(details),
            .uint32(allowUserInteraction), .string(cancellationID),
        ])
        let reply: DBusValue
        do {
            reply = try bus.call(method("CheckAuthorization"), arguments, timeout: timeout, cancellation: cancellation)
        } catch {
            // Whatever ended the wait (cancel, timeout), make polkit dismiss the agent's dialog.
            _ = try? bus.call(method("CancelCheckAuthorization"), .tuple([.string(cancellationID)]))
            if stop.reason != nil { throw VaultError(.systemCancel, underlying: error.underlying) }
            throw error.vaultError(errors, explaining: error.kind == .timedOut ? "the polkit prompt timed out" : nil)
        }
        guard reply.typeString == "((bba{ss}))", let authorized = reply[0][0].bool,
            let challenge = reply[0][1].bool
        else {
            throw VaultError(.passcodeNotSet, underlying: .message("CheckAuthorization replied \(reply.typeString)"))
        }
        if authorized { return }
        let dismissed = reply[0][2].stringPairs?.contains { $0.key == "polkit.dismissed" } ?? false
        if dismissed { throw VaultError(.userCancel, underlying: .message("the polkit authentication dialog was dismissed")) }
        if challenge {
            throw VaultError(.interactionNotAllowed, underlying: .message(
                "polkit needs authentication but no authentication agent answered (no desktop session or pkttyagent)"))
        }
        throw VaultError(.authenticationFailed, underlying: .message("polkit did not authorize \(actionID)"))
    }

    /// This process's start time in clock ticks since boot (field 22 of /proc/self/stat), as polkit's
    /// unix-process subject expects.
    static func processStartTime() -> UInt64 {
        processStartTime(of: "\(getpid())") ?? 0
    }

    /// The start time of process `pid`, or `nil` when it cannot be read (the process is gone).
    package static func processStartTime(of pid: String) -> UInt64? {
        Int32(pid).flatMap { ProcessStat.read(pid: $0) }?.startTime
    }
}
#endif
