#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import FoundationEssentials
import Glibc

// The fprintd choke point: every call to fprintd's system-bus API (net.reactivated.Fprint, fprintd
// 1.94: src/manager.xml and src/device.xml) goes through this file, over the package's D-Bus layer
// (BiometricsVaultDBus), and what fprintd's error names mean is said here, with the D-Bus error name
// kept as the underlying cause.

/// Why fingerprint authentication is or is not possible right now, as fprintd reports it.
public enum FingerprintAvailability: Hashable, Sendable, CustomStringConvertible {
    /// fprintd has a reader and fingers are enrolled for the user.
    case available
    /// No system bus, or nobody owns `net.reactivated.Fprint` (fprintd is not installed or not running).
    case noFprintd
    /// fprintd runs but has no reader (`net.reactivated.Fprint.Error.NoSuchDevice`).
    case noDevice
    /// A reader exists but the user has no enrolled finger (`NoEnrolledPrints`).
    case notEnrolled
    /// polkit does not let this process use the reader for this user (`PermissionDenied`; typically no
    /// active local session, or asking for another user's prints).
    case permissionDenied
    /// Another process has claimed the reader (`AlreadyInUse`).
    case deviceBusy

    /// The error `authenticate` throws for this reason; `nil` when available.
    public var error: VaultError? {
        let message = VaultError.Underlying.message(summary)
        return switch self {
        case .available: nil
        case .noFprintd, .noDevice, .permissionDenied: VaultError(.biometryNotAvailable, underlying: message)
        case .notEnrolled: VaultError(.biometryNotEnrolled, underlying: message)
        case .deviceBusy: VaultError(.systemCancel, underlying: message)
        }
    }

    /// The reason in words, as `doctor` shows it.
    public var summary: String {
        switch self {
        case .available: "fingerprint reader ready"
        case .noFprintd: "fprintd is not running on the system bus"
        case .noDevice: "fprintd has no fingerprint reader"
        case .notEnrolled: "no finger is enrolled for this user"
        case .permissionDenied: "polkit denied access to the fingerprint reader"
        case .deviceBusy: "the fingerprint reader is in use by another process"
        }
    }

    public var description: String {
        switch self {
        case .available: "available"
        case .noFprintd: "noFprintd"
        case .noDevice: "noDevice"
        case .notEnrolled: "notEnrolled"
        case .permissionDenied: "permissionDenied"
        case .deviceBusy: "deviceBusy"
        }
    }
}

/// How one verify attempt ended.
enum FprintdVerifyResult: Equatable, Sendable {
    case match
    case noMatch
    /// `verify-disconnected`, `verify-unknown-error` or another final status: a hardware problem.
    case hardwareError(status: String)
    /// The caller stopped it (task cancellation).
    case stopped(StopRequest.Reason)
    case timedOut
}

/// One claimable fprintd reader on a private system-bus connection. Use it on one thread only.
final class FprintdDevice {
    static let service = "net.reactivated.Fprint"
    static let managerPath = "/net/reactivated/Fprint/Manager"
    static let managerInterface = "net.reactivated.Fprint.Manager"
    static let deviceInterface = "net.reactivated.Fprint.Device"

    /// A private connection (``DBusConnection/Sharing/privateConnection``): dropping it ends every claim
    /// it holds, so a crash or a leak can never keep the reader claimed.
    let bus: DBusConnection
    let path: String
    private(set) var isClaimed = false

    private init(bus: DBusConnection, path: String) {
        self.bus = bus
        self.path = path
    }

    /// Connects to the system bus (another bus in tests) and finds fprintd's default reader.
    static func openDefault(bus address: DBusBus = .system) throws(FprintdFailure) -> FprintdDevice {
        let bus: DBusConnection
        do { bus = try DBusConnection(address) } catch { throw FprintdFailure(error, during: "connect") }
        return FprintdDevice(bus: bus, path: try defaultDevicePath(on: bus))
    }

    /// The enrolled finger names of `user` (`""` = the caller) on fprintd's default reader, empty when
    /// none are enrolled: what availability needs, with nothing claimed.
    static func enrolledFingersOnDefaultReader(user: String) throws(FprintdFailure) -> [String] {
        try openDefault().enrolledFingers(user: user)
    }

    private static func defaultDevicePath(on bus: DBusConnection) throws(FprintdFailure) -> String {
        let reply: DBusValue
        do {
            reply = try bus.call(DBusMethod(destination: service, path: managerPath, interface: managerInterface,
                                            member: "GetDefaultDevice"))
        } catch { throw FprintdFailure(error, during: "GetDefaultDevice") }
        guard reply.typeString == "(o)", let path = reply[0].string else {
            throw FprintdFailure(.noDevice, underlying: .message("GetDefaultDevice replied \(reply.typeString)"))
        }
        return path
    }

    deinit { release() }

    /// The reader's name (`name` property), part of the enrollment fingerprint.
    func name() throws(FprintdFailure) -> String {
        do {
            return try bus.property(Self.service, path: path, interface: Self.deviceInterface, name: "name").string ?? ""
        } catch { throw FprintdFailure(error, during: "Get name") }
    }

    /// Whether the reader waits for a finger right now (`finger-needed`).
    func fingerNeeded() throws(FprintdFailure) -> Bool {
        do {
            return try bus.property(Self.service, path: path, interface: Self.deviceInterface, name: "finger-needed")
                .bool ?? false
        } catch { throw FprintdFailure(error, during: "Get finger-needed") }
    }

    /// The enrolled finger names of `user` (`""` = the caller); empty when none are enrolled.
    func enrolledFingers(user: String) throws(FprintdFailure) -> [String] {
        do {
            return try deviceCall("ListEnrolledFingers", .tuple([.string(user)])).strings ?? []
        } catch let failure where failure.name == "net.reactivated.Fprint.Error.NoEnrolledPrints" {
            return []
        } catch { throw FprintdFailure(error, during: "ListEnrolledFingers") }
    }

    /// Claims the reader for `user` (`""` = the caller). Another user's prints need polkit's
    /// `net.reactivated.fprint.device.setusername`.
    func claim(user: String) throws(FprintdFailure) {
        do { _ = try deviceCall("Claim", .tuple([.string(user)])) } catch {
            throw FprintdFailure(error, during: "Claim")
        }
        isClaimed = true
    }

    /// Claims the reader, waiting up to `patience` while another client holds it: probes (ours, or
    /// another process's `doctor`) claim it for a few milliseconds, which must not fail a prompt.
    func claimWaitingBriefly(user: String, patience: Duration = .seconds(2)) throws(FprintdFailure) {
        let deadline = ContinuousClock.now.advanced(by: patience)
        while true {
            do throws(FprintdFailure) {
                try claim(user: user)
                return
            } catch where error.reason == .deviceBusy && ContinuousClock.now < deadline {
                usleep(50_000)
            }
        }
    }

    /// Releases the reader if claimed. Never throws: it runs on every exit path.
    func release() {
        guard isClaimed else { return }
        isClaimed = false
        _ = try? deviceCall("Release")
    }

    /// Runs one verification against any enrolled finger, until a final status, `stop`, or `timeout`.
    ///
    /// Statuses arriving after we call `VerifyStop` are ignored: fprintd 1.94 emits a spurious
    /// `verify-no-match` when a verify is stopped before any scan, and a cancel must never count as a
    /// failed attempt.
    func verify(timeout: Duration, stop: StopRequest) throws(FprintdFailure) -> FprintdVerifyResult {
        // Subscribed before VerifyStart, on the same connection: no status can be missed.
        let statuses = bus.subscribe([
            DBusSignalMatch(sender: Self.service, path: path, interface: Self.deviceInterface, member: "VerifyStatus"),
        ])
        let cancellation = DBusCancellation()
        stop.onStop { cancellation.cancel() }
        defer {
            // Nothing is read after this: a status fprintd sends for the stop itself never counts.
            statuses.cancel()
            _ = try? deviceCall("VerifyStop")
        }
        do { _ = try deviceCall("VerifyStart", .tuple([.string("any")])) } catch {
            throw FprintdFailure(error, during: "VerifyStart")
        }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let reason = stop.reason { return .stopped(reason) }
            switch statuses.next(until: deadline, cancellation: cancellation) {
            case .timedOut: return .timedOut
            case .cancelled: return .stopped(stop.reason ?? .taskCancelled)
            case .signal(let signal):
                let parameters = signal.parameters
                guard parameters.typeString == "(sb)", let status = parameters[0].string, let done = parameters[1].bool
                else { continue }
                switch status {
                case "verify-match": return .match
                case "verify-no-match": return .noMatch
                case "verify-disconnected", "verify-unknown-error": return .hardwareError(status: status)
                default:
                    // verify-retry-scan, -swipe-too-short, -finger-not-centered, -remove-and-retry: feedback
                    // only while done is false; the same prompt continues.
                    if done { return .hardwareError(status: status) }
                }
            }
        }
    }

    // MARK: Enrollment (used by the integration tests to enroll virtual fingers; not public API)

    /// Deletes every print of the claiming user (`DeleteEnrolledFingers2`, needs a claim).
    func deleteEnrolledFingers() throws(FprintdFailure) {
        do { _ = try deviceCall("DeleteEnrolledFingers2") } catch let failure
            where failure.name == "net.reactivated.Fprint.Error.NoEnrolledPrints"
        {
            return
        } catch { throw FprintdFailure(error, during: "DeleteEnrolledFingers2") }
    }

    /// Enrolls `finger` (a fprintd finger name such as `right-index-finger`); `needScan` is called each
    /// time the reader needs the next scan. Returns the final `EnrollStatus` result.
    func enroll(finger: String, timeout: Duration = .seconds(30), needScan: () -> Void) throws(FprintdFailure)
        -> String
    {
        let statuses = bus.subscribe([
            DBusSignalMatch(sender: Self.service, path: path, interface: Self.deviceInterface, member: "EnrollStatus"),
        ])
        defer {
            statuses.cancel()
            _ = try? deviceCall("EnrollStop")
        }
        do { _ = try deviceCall("EnrollStart", .tuple([.string(finger)])) } catch {
            throw FprintdFailure(error, during: "EnrollStart")
        }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        needScan()
        while true {
            switch statuses.next(until: deadline) {
            case .timedOut, .cancelled: return "enroll-timed-out"
            case .signal(let signal):
                guard let status = signal.parameters[0].string, let done = signal.parameters[1].bool else { continue }
                if done { return status }
                needScan()
            }
        }
    }

    private func deviceCall(_ method: String, _ arguments: DBusArgument? = nil) throws(DBusFailure) -> DBusValue {
        try bus.call(DBusMethod(destination: Self.service, path: path, interface: Self.deviceInterface, member: method),
                     arguments)
    }
}

/// An fprintd failure: the availability reason it implies and the D-Bus cause.
struct FprintdFailure: Error, Sendable {
    var reason: FingerprintAvailability
    var underlying: VaultError.Underlying

    init(_ reason: FingerprintAvailability, underlying: VaultError.Underlying) {
        self.reason = reason
        self.underlying = underlying
    }

    /// Maps a D-Bus failure of fprintd's API to a reason.
    init(_ failure: DBusFailure, during operation: String) {
        let reason: FingerprintAvailability
        switch failure.name {
        case "net.reactivated.Fprint.Error.NoSuchDevice": reason = .noDevice
        case "net.reactivated.Fprint.Error.NoEnrolledPrints": reason = .notEnrolled
        case "net.reactivated.Fprint.Error.PermissionDenied", "org.freedesktop.DBus.Error.AccessDenied":
            reason = .permissionDenied
        case "net.reactivated.Fprint.Error.AlreadyInUse": reason = .deviceBusy
        default: reason = failure.isServiceMissing ? .noFprintd : .noDevice
        }
        // The reason in words first, so `doctor` says "fprintd is not running", not only a D-Bus name.
        self.init(reason, underlying: failure.underlying(message: "\(reason.summary) (\(operation): \(failure.message))"))
    }

    /// The `VaultError` this failure means: the reason's code, with the D-Bus cause kept.
    var vaultError: VaultError {
        VaultError(reason.error?.code ?? .biometryNotAvailable, underlying: underlying)
    }
}
#endif
