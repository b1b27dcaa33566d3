#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultGLib
import CGio
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

// The polkit choke point: every call to org.freedesktop.PolicyKit1.Authority goes through this file
// (over the package's GDBus binding), and every polkit failure is mapped to a `VaultError` here.

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

enum PolkitAuthority {
    static let service = "org.freedesktop.PolicyKit1"
    static let path = "/org/freedesktop/PolicyKit1/Authority"
    static let interface = "org.freedesktop.PolicyKit1.Authority"
    /// CheckAuthorizationFlags.AllowUserInteraction
    static let allowUserInteraction: UInt32 = 0x1

    /// Whether polkitd answers and `actionID` is registered (EnumerateActions). Never prompts.
    static func status(actionID: String) -> PolkitStatus {
        do {
            let bus = try SystemBusConnection()
            let reply = try bus.call(destination: service, path: path, interface: interface, method: "EnumerateActions",
                                     arguments: DBusArgument.tuple([DBusArgument.string("")]))
            guard reply.typeString.hasPrefix("(a(ssssssuuua{ss}))") else { return .noPolkit }
            let actions = reply[0]
            for index in 0..<actions.count where actions[index][0].string == actionID { return .ready }
            return .policyMissing
        } catch {
            return .noPolkit
        }
    }

    /// Asks polkit whether this process may perform `actionID`, letting the session's agent prompt.
    /// Blocks until the agent answered, `timeout` passed, or `cancel` fired: run it on a dedicated thread.
    static func checkAuthorization(
        actionID: String, timeout: Duration, cancel: CancelHandle, stop: StopRequest
    ) throws(VaultError) {
        let bus: SystemBusConnection
        do { bus = try SystemBusConnection() } catch {
            throw VaultError(.passcodeNotSet, underlying: error.underlying)
        }
        let cancellationID = "biometrics-vault-\(getpid())-\(UUID().uuidString)"
        let subject = DBusArgument.tuple([
            DBusArgument.string("unix-process"),
            DBusArgument.vardict([
                ("pid", DBusArgument.uint32(UInt32(getpid()))),
                // pid alone is racy (it may be reused); polkit pairs it with the start time.
                ("start-time", DBusArgument.uint64(processStartTime())),
                ("uid", DBusArgument.int32(Int32(bitPattern: getuid()))),
            ]),
        ])
        let arguments = DBusArgument.tuple([
            subject, DBusArgument.string(actionID), DBusArgument.stringDict([]),
            DBusArgument.uint32(allowUserInteraction), DBusArgument.string(cancellationID),
        ])
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        let reply: DBusValue
        do {
            reply = try bus.call(destination: service, path: path, interface: interface, method: "CheckAuthorization",
                                 arguments: arguments, timeoutMilliseconds: Int32(clamping: milliseconds),
                                 cancellable: cancel.raw)
        } catch {
            // Whatever ended the wait (cancel, timeout), make polkit dismiss the agent's dialog.
            _ = try? bus.call(destination: service, path: path, interface: interface, method: "CancelCheckAuthorization",
                              arguments: DBusArgument.tuple([DBusArgument.string(cancellationID)]),
                              timeoutMilliseconds: 5000)
            throw vaultError(error, actionID: actionID, stop: stop)
        }
        guard reply.typeString == "((bba{ss}))", let authorized = reply[0][0].bool,
            let challenge = reply[0][1].bool
        else {
            throw VaultError(.passcodeNotSet, underlying: .message("CheckAuthorization replied \(reply.typeString)"))
        }
        if authorized { return }
        let details = reply[0][2]
        var dismissed = false
        for index in 0..<details.count where details[index][0].string == "polkit.dismissed" { dismissed = true }
        if dismissed { throw VaultError(.userCancel, underlying: .message("the polkit authentication dialog was dismissed")) }
        if challenge {
            throw VaultError(.interactionNotAllowed, underlying: .message(
                "polkit needs authentication but no authentication agent answered (no desktop session or pkttyagent)"))
        }
        throw VaultError(.authenticationFailed, underlying: .message("polkit did not authorize \(actionID)"))
    }

    private static func vaultError(_ failure: DBusFailure, actionID: String, stop: StopRequest) -> VaultError {
        if stop.reason != nil { return VaultError(.systemCancel, underlying: failure.underlying) }
        switch failure.name {
        case "g-io-error-quark" where failure.code == Int32(G_IO_ERROR_TIMED_OUT.rawValue),
            "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout":
            return VaultError(.systemCancel, underlying: .message("the polkit prompt timed out"))
        case "g-io-error-quark" where failure.code == Int32(G_IO_ERROR_CANCELLED.rawValue):
            return VaultError(.systemCancel, underlying: failure.underlying)
        case "org.freedesktop.PolicyKit1.Error.Failed" where failure.message.contains("not registered"):
            return PolkitStatus.policyMissing.error.map { VaultError($0.code, underlying: failure.underlying) }
                ?? VaultError(.passcodeNotSet)
        case "org.freedesktop.PolicyKit1.Error.Cancelled":
            return VaultError(.userCancel, underlying: failure.underlying)
        default:
            return VaultError(.passcodeNotSet, underlying: failure.underlying)
        }
    }

    /// This process's start time in clock ticks since boot (field 22 of /proc/self/stat), as polkit's
    /// unix-process subject expects.
    static func processStartTime() -> UInt64 {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let closing = stat.lastIndex(of: ")")
        else { return 0 }
        // Fields after "(comm)" start at field 3; start-time is field 22.
        let fields = stat[stat.index(after: closing)...].split(separator: " ")
        return fields.count > 19 ? UInt64(fields[19]) ?? 0 : 0
    }

    /// A GCancellable another thread may fire.
    ///
    /// `@unchecked Sendable` is safe: it owns a reference to the GCancellable, and
    /// `g_cancellable_cancel` is documented as thread-safe.
    final class CancelHandle: @unchecked Sendable {
        let raw: UnsafeMutablePointer<GCancellable>

        init() {
            GTypeStartup.prepare()
            raw = g_cancellable_new()
        }
        deinit { g_object_unref(raw) }

        func cancel() { g_cancellable_cancel(raw) }
    }
}
#endif
