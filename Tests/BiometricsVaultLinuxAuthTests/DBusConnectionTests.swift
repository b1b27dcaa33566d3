#if os(Linux)
@testable import BiometricsVaultDBus
@testable import BiometricsVaultLinuxAuth
import BiometricsVaultCore
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// The package's D-Bus layer (BiometricsVaultDBus) as fprintd's probe, polkit and the screen-lock
/// watcher use it: against the real system bus, and against an address with no bus. One fault needs a
/// stand-in, named as such below: a socket that accepts and never answers (a hung bus), which the real
/// bus cannot be made to be.
@Suite(.onTestThreads)
struct DBusConnectionTests {
    static let bus = DBusMethod(
        destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetId")

    @Test(.needs(Harness.systemBus))
    func theSystemBusAnswersCallsAndKeepsAnErrorsName() throws {
        let bus = try DBusConnection(.system)
        let id = try bus.call(Self.bus, replyType: "(s)")
        #expect(id[0].string?.count == 32)
        // A call with arguments: the bus owns its own name.
        var hasOwner = Self.bus
        hasOwner.member = "NameHasOwner"
        let owner = try bus.call(hasOwner, .tuple([.string("org.freedesktop.DBus")]), replyType: "(b)")
        #expect(owner[0].bool == true)
        // An error reply keeps its name, and the connection stays usable.
        var unknown = Self.bus
        unknown.member = "NoSuchMethodForThisTest"
        let failure = #expect(throws: DBusFailure.self) { _ = try bus.call(unknown) }
        #expect(failure?.isRemote == true)
        #expect(failure?.name == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(failure?.kind == .refused)
        #expect(try bus.call(Self.bus)[0].string?.count == 32)
    }

    /// What the Secret Service store will use: GIO's one session-bus connection per process, the same
    /// object each time, answering as a private connection to the same bus does.
    @Test(.needs(.variable("DBUS_SESSION_BUS_ADDRESS", remedy: "scripts/setup/20-secret-service.sh")))
    func theProcessSharedSessionBusIsOneConnection() throws {
        let shared = try DBusConnection(.session, sharing: .processShared)
        let again = try DBusConnection(.session, sharing: .processShared)
        #expect(shared.raw == again.raw)
        let id = try shared.call(Self.bus, replyType: "(s)")[0].string
        #expect(id?.count == 32)
        #expect(try DBusConnection(.session).call(Self.bus, replyType: "(s)")[0].string == id)
    }

    @Test(.needs(Harness.systemBus))
    func aNameNobodyOwnsReadsAsNoFprintd() throws {
        let bus = try DBusConnection(.system)
        let failure = #expect(throws: DBusFailure.self) {
            _ = try bus.call(DBusMethod(
                destination: "io.github.biometricsvault.NobodyOwnsThisName", path: FprintdDevice.managerPath,
                interface: FprintdDevice.managerInterface, member: "GetDefaultDevice"))
        }
        #expect(failure?.name == "org.freedesktop.DBus.Error.ServiceUnknown")
        #expect(failure?.kind == .serviceMissing)
        #expect(failure.map { FprintdFailure($0, during: "GetDefaultDevice").reason } == .noFprintd)
    }

    /// A machine without a system bus (the cold start's "no reader" row): the probe answers "no fprintd"
    /// at once, and so does the whole availability check.
    @Test func anAbsentBusIsNoFprintdAndAnsweredQuickly() throws {
        let address = DBusBus.address("unix:path=/nonexistent/bv-no-bus-\(getpid())")
        let started = ContinuousClock.now
        let failure = #expect(throws: FprintdFailure.self) { _ = try FprintdDevice.openDefault(bus: address) }
        // At once: not after a call's timeout (seconds), with room for a loaded machine.
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(failure?.reason == .noFprintd)
        #expect(failure?.vaultError.code == .biometryNotAvailable)
        let direct = #expect(throws: DBusFailure.self) { _ = try DBusConnection(address) }
        #expect(direct?.kind == .serviceMissing)
        #expect(direct?.isRemote == false)
    }

    /// Stand-in for a hung bus: a listening socket that no one accepts from, so the client's
    /// authentication is never answered. Connecting must end at its deadline, or when cancelled.
    @Test func aBusThatNeverAnswersEndsAtTheDeadline() throws {
        let socket = try SilentSocket()
        defer { socket.close() }
        let started = ContinuousClock.now
        let failure = #expect(throws: DBusFailure.self) {
            _ = try DBusConnection(.address("unix:path=\(socket.path)"), timeout: .milliseconds(300))
        }
        let elapsed = ContinuousClock.now - started
        #expect(failure?.kind == .timedOut, "\(String(describing: failure))")
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(3), "\(elapsed)")
        // The same, ended by a cancellation from another thread well before its deadline.
        let cancellation = DBusCancellation()
        let canceller = Thread {
            usleep(200_000)
            cancellation.cancel()
        }
        canceller.start()
        let cancelledAt = ContinuousClock.now
        let cancelled = #expect(throws: DBusFailure.self) {
            _ = try DBusConnection(.address("unix:path=\(socket.path)"), timeout: .seconds(30), cancellation: cancellation)
        }
        #expect(cancelled?.kind == .cancelled, "\(String(describing: cancelled))")
        #expect(ContinuousClock.now - cancelledAt < .seconds(3))
    }

    /// A call made through a subscription hears the signals its peer sends this connection before the
    /// reply, while it waits: the bus itself, which tells a connection `NameAcquired` before it answers
    /// its `RequestName`.
    @Test(.needs(.variable("DBUS_SESSION_BUS_ADDRESS", remedy: "scripts/setup/20-secret-service.sh")))
    func aCallHearsTheSignalsSentBeforeItsReply() throws {
        let bus = try DBusConnection(.session)
        let subscription = bus.subscribe([DBusSignalMatch(
            sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "NameAcquired")])
        let name = "io.github.biometricsvault.Test.Acquired\(getpid())"
        var request = Self.bus
        request.member = "RequestName"
        var heard: [String] = []
        let reply = try subscription.call(request, .tuple([.string(name), .uint32(4)]), replyType: "(u)") { signal in
            heard.append(signal.parameters[0].string ?? "")
        }
        #expect(reply[0].uint32 == 1)  // DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
        #expect(heard.contains(name), "\(heard)")
        // A failure ends the call as a plain call's would.
        var unknown = Self.bus
        unknown.member = "NoSuchMethodForThisTest"
        let failure = #expect(throws: DBusFailure.self) { _ = try subscription.call(unknown) { _ in } }
        #expect(failure?.name == "org.freedesktop.DBus.Error.UnknownMethod")
    }

    /// A wait for a signal ends at its deadline, or at once when cancelled from another thread.
    @Test(.needs(Harness.systemBus))
    func aSignalWaitIsBounded() throws {
        let bus = try DBusConnection(.system)
        let signals = bus.subscribe([
            DBusSignalMatch(sender: nil, path: nil, interface: "io.github.biometricsvault.Test", member: "NeverSent"),
        ])
        let started = ContinuousClock.now
        guard case .timedOut = signals.next(until: started + .milliseconds(200)) else {
            Issue.record("a wait for a signal never sent did not time out")
            return
        }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(200) && elapsed < .seconds(2), "\(elapsed)")
        let cancellation = DBusCancellation()
        Thread {
            usleep(100_000)
            cancellation.cancel()
        }.start()
        let waited = ContinuousClock.now
        guard case .cancelled = signals.next(until: nil, cancellation: cancellation) else {
            Issue.record("a cancelled wait did not end as cancelled")
            return
        }
        #expect(ContinuousClock.now - waited < .seconds(2))
    }

    @Test(arguments: [
        ("org.freedesktop.DBus.Error.ServiceUnknown", true, DBusFailure.Kind.serviceMissing),
        ("org.freedesktop.DBus.Error.NameHasNoOwner", true, .serviceMissing),
        ("org.freedesktop.DBus.Error.NoReply", true, .timedOut),
        ("org.freedesktop.DBus.Error.UnknownObject", true, .noSuchObject),
        ("org.freedesktop.DBus.Error.UnknownMethod", true, .refused),
        ("org.freedesktop.DBus.Error.AccessDenied", true, .accessDenied),
        ("org.freedesktop.Secret.Error.IsLocked", true, .locked),
        ("org.freedesktop.Secret.Error.NoSuchObject", true, .noSuchObject),
        ("org.freedesktop.Secret.Error.NoSession", true, .noSession),
        ("net.reactivated.Fprint.Error.AlreadyInUse", true, .remote),
        ("g-dbus-error-quark", false, .local),
    ])
    func errorNamesAreClassifiedOnce(name: String, isRemote: Bool, kind: DBusFailure.Kind) {
        #expect(DBusFailure(name: name, code: 1, message: "detail", isRemote: isRemote).kind == kind)
    }

    /// gnome-keyring's answers for a missing object are UnknownMethod with these texts: "Object does not
    /// exist" for a path it never had, GDBus's "No such interface Properties" for an item deleted while
    /// another client was about to read it (concurrent git approvals on the Secret Service hit this).
    @Test(arguments: [
        "Object does not exist at path \u{201C}/org/freedesktop/secrets/collection/x\u{201D}",
        "No such interface \u{201C}org.freedesktop.DBus.Properties\u{201D} on object at path /org/freedesktop/secrets/collection/login/198",
    ])
    func unknownMethodOnAMissingObjectIsNoSuchObject(message: String) {
        let failure = DBusFailure(name: "org.freedesktop.DBus.Error.UnknownMethod", code: 19, message: message, isRemote: true)
        #expect(failure.kind == .noSuchObject)
    }

    /// An object that exists but lacks an interface other than Properties is a refusal, not a missing object.
    @Test func unknownMethodOnAnotherInterfaceIsRefused() {
        let failure = DBusFailure(
            name: "org.freedesktop.DBus.Error.UnknownMethod", code: 19,
            message: "No such interface \u{201C}net.reactivated.Fprint.Device\u{201D} on object at path /x", isRemote: true)
        #expect(failure.kind == .refused)
    }

    /// A service's own names win over the kind; the cause keeps the name and the explanation.
    @Test func aMappingPrefersTheServicesNames() {
        let mapping = DBusErrorMapping(
            names: ["org.freedesktop.PolicyKit1.Error.Cancelled": .userCancel], kinds: [.timedOut: .systemCancel],
            otherwise: .passcodeNotSet)
        let cancelled = DBusFailure(name: "org.freedesktop.PolicyKit1.Error.Cancelled", code: 1, message: "m", isRemote: true)
        let timedOut = DBusFailure(name: "org.freedesktop.DBus.Error.NoReply", code: 1, message: "m", isRemote: true)
        let other = DBusFailure(name: "org.freedesktop.PolicyKit1.Error.Failed", code: 1, message: "m", isRemote: true)
        #expect(cancelled.vaultError(mapping).code == .userCancel)
        #expect(timedOut.vaultError(mapping, explaining: "the prompt timed out").code == .systemCancel)
        #expect(timedOut.vaultError(mapping, explaining: "the prompt timed out").underlying
            == .dbus(name: "org.freedesktop.DBus.Error.NoReply", message: "the prompt timed out (m)"))
        #expect(other.vaultError(mapping).code == .passcodeNotSet)
    }
}

/// A listening unix socket in this run's scratch directory that never accepts: a client connects (the
/// kernel queues it) and then waits for an answer that never comes. Stands in for a hung bus only.
final class SilentSocket: Sendable {
    let path: String
    private let descriptor: Int32

    init() throws {
        path = Harness.scratch.appendingPathComponent("silent-bus-\(UUID().uuidString.prefix(8))").path
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let name = Array(path.utf8)
        try #require(name.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0 && listen(descriptor, 8) == 0, "silent socket at \(path): errno \(errno)")
        self.descriptor = descriptor
    }

    func close() {
        Glibc.close(descriptor)
        unlink(path)
    }
}
#endif
