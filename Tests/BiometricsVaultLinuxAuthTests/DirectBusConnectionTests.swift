#if os(Linux)
@testable import BiometricsVaultLinuxAuth
import BiometricsVaultCore
import CGio
import Foundation
import Glibc
import Testing

/// The fprintd probe's own D-Bus transport (`DirectBusConnection`): its address parsing, against the real
/// session bus (the one the Secret Service tests use) beside GDBus, and against fake peers for the faults
/// a real bus cannot be made to produce (silence, a refusal, a garbled or oversized message).
struct DirectBusConnectionTests {
    @Test(arguments: [
        ("unix:path=/run/dbus/system_bus_socket", [DirectBusConnection.SocketAddress.path("/run/dbus/system_bus_socket")]),
        ("unix:abstract=/tmp/dbus-x1,guid=0123456789abcdef", [.abstract("/tmp/dbus-x1")]),
        ("unix:path=/tmp/a%20b%2Fc", [.path("/tmp/a b/c")]),
        ("unix:path=/nonexistent;unix:abstract=bus", [.path("/nonexistent"), .abstract("bus")]),
        ("tcp:host=127.0.0.1,port=4000", nil),
        ("unix:path=/a;tcp:host=127.0.0.1,port=4000", nil),
        ("unix:runtime=yes", nil),
        ("unix:tmpdir=/tmp", nil),
        ("unix:path=/a,abstract=b", nil),
        ("unix:guid=0123456789abcdef", nil),
        ("unix:path=%zz", nil),
        ("unix:path=/a%00b", nil),
        ("unix:path=/a%ffb", nil),
        ("unix:path=", nil),
        ("", nil),
    ] as [(String, [DirectBusConnection.SocketAddress]?)])
    func addressesItConnectsToItself(address: String, entries: [DirectBusConnection.SocketAddress]?) {
        #expect(DirectBusConnection.socketAddresses(of: address) == entries)
    }

    @Test func anAddressGDBusMustServeIsLeftToIt() throws {
        #expect(try DirectBusConnection.connect(address: "tcp:host=127.0.0.1,port=1") == nil)
    }

    @Test func aMissingSocketIsAMissingService() {
        let path = "/nonexistent/bv-direct-bus-\(getpid())"
        let failure = #expect(throws: DBusFailure.self) {
            _ = try DirectBusConnection.connect(address: "unix:path=\(path)")
        }
        #expect(failure?.isRemote == false)
        #expect(failure?.isServiceMissing == true)
        #expect(failure?.code == Int32(G_IO_ERROR_NOT_FOUND.rawValue))
        #expect(failure?.message.contains(path) == true)
    }

    /// A connection that fails closes its socket once. Closing it twice closed, between the two, a
    /// descriptor another thread had just opened (the Secret Service's, in a cold start without a system
    /// bus: the read then hung until its deadline, 2 of 800 runs under load). Another thread here keeps
    /// opening a pipe and checking it is still open while this one fails to connect, many times.
    @Test func aFailedConnectClosesItsSocketOnce() {
        let stop = LockedValue(false)
        let closedUnderUs = LockedValue(0)
        let checker = Thread {
            while !stop.withLock({ $0 }) {
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { continue }
                var intact = true
                for _ in 0..<20 where fcntl(ends[0], F_GETFD) < 0 || fcntl(ends[1], F_GETFD) < 0 { intact = false }
                if intact {
                    close(ends[0])
                    close(ends[1])
                } else {
                    // Not closed here: either number may already belong to someone else.
                    closedUnderUs.withLock { $0 += 1 }
                }
            }
        }
        checker.start()
        let address = "unix:path=/nonexistent/bv-direct-bus-\(getpid())"
        for _ in 0..<20_000 { _ = try? DirectBusConnection.connect(address: address) }
        stop.withLock { $0 = true }
        #expect(closedUnderUs.withLock { $0 } == 0)
    }

    /// The session bus of this test run (`dbus-run-session` in CI), or `nil` after recording why when CI
    /// requires it.
    static func sessionBus() throws -> DirectBusConnection? {
        guard let address = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] else {
            if Harness.daemonsRequired { Issue.record("BV_REQUIRE_DAEMONS=1 but DBUS_SESSION_BUS_ADDRESS is not set") }
            return nil
        }
        let connection: DirectBusConnection = try #require(
            try DirectBusConnection.connect(address: address), "\(address) is not a unix socket")
        return connection
    }

    static func busID(_ reply: DBusValue) -> String? {
        reply.typeString == "(s)" ? reply[0].string : nil
    }

    @Test func aRealBusAnswersAsItAnswersGDBus() throws {
        guard let direct = try Self.sessionBus() else { return }
        let viaDirect = try direct.methodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "GetId", arguments: nil)
        let viaGDBus = try SystemBusConnection(.session).methodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "GetId", arguments: nil)
        let id = try #require(Self.busID(viaDirect))
        #expect(id.count == 32)
        #expect(id == Self.busID(viaGDBus))
        // A call with arguments: the bus owns its own name.
        let owner = try direct.methodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "NameHasOwner", arguments: DBusArgument.tuple([DBusArgument.string("org.freedesktop.DBus")]))
        #expect(owner.typeString == "(b)")
        #expect(owner[0].bool == true)
    }

    @Test func anErrorReplyKeepsItsNameAndTheConnection() throws {
        guard let direct = try Self.sessionBus() else { return }
        let failure = #expect(throws: DBusFailure.self) {
            _ = try direct.methodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                method: "NoSuchMethodForThisTest", arguments: nil)
        }
        #expect(failure?.isRemote == true)
        #expect(failure?.name == "org.freedesktop.DBus.Error.UnknownMethod")
        let id = try direct.methodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "GetId", arguments: nil)
        #expect(Self.busID(id)?.count == 32)
    }

    @Test func aNameNobodyOwnsReadsAsNoFprintd() throws {
        guard let direct = try Self.sessionBus() else { return }  // fprintd is never on the session bus
        let failure = #expect(throws: DBusFailure.self) {
            _ = try direct.methodCall(
                destination: FprintdDevice.service, path: FprintdDevice.managerPath,
                interface: FprintdDevice.managerInterface, method: "GetDefaultDevice", arguments: nil)
        }
        #expect(failure?.name == "org.freedesktop.DBus.Error.ServiceUnknown")
        #expect(failure.map { FprintdFailure($0, during: "GetDefaultDevice").reason } == .noFprintd)
    }

    // MARK: Fake peers: faults the real dbus-daemon does not produce on demand.

    /// What a fake peer does after it has read the client's first bytes.
    enum PeerBehaviour: String, CaseIterable, Sendable {
        /// Writes nothing: the call must end at its deadline.
        case silent
        /// Refuses the authentication.
        case rejects
        /// Closes the connection.
        case hangsUp
        /// Accepts, then sends a header no D-Bus message has (endianness byte `X`).
        case garbles
        /// Accepts, then announces a message of 2 MiB: within D-Bus's limit (128 MiB), past ours.
        case oversizes
        /// Sends an authentication reply without an end.
        case neverEndsItsLine

        var bytes: [UInt8] {
            let accepted = Array("OK 0123456789abcdef0123456789abcdef\r\n".utf8)
            return switch self {
            case .silent, .hangsUp: []
            case .rejects: Array("REJECTED EXTERNAL\r\n".utf8)
            case .garbles: accepted + Array("X\u{2}\u{1}\u{1}\0\0\0\0\u{1}\0\0\0\0\0\0\0".utf8)
            // Little-endian method return, body length 0x200000, serial 1, no header fields.
            case .oversizes: accepted + [0x6c, 2, 0, 1, 0, 0, 0x20, 0, 1, 0, 0, 0, 0, 0, 0, 0]
            case .neverEndsItsLine: Array(repeating: UInt8(ascii: "O"), count: 8192)
            }
        }

        var expectedCode: GIOErrorEnum? {
            switch self {
            case .silent: G_IO_ERROR_TIMED_OUT
            case .rejects: G_IO_ERROR_PERMISSION_DENIED
            case .hangsUp: nil  // closed, or a broken pipe, depending on who is first
            case .garbles: nil  // GDBus's own error for the header
            case .oversizes, .neverEndsItsLine: G_IO_ERROR_INVALID_DATA
            }
        }
    }

    @Test(arguments: PeerBehaviour.allCases)
    func aFaultyPeerIsATransportFailure(behaviour: PeerBehaviour) throws {
        let peer = try FakeBusPeer(behaviour.bytes, hangUp: behaviour == .hangsUp)
        defer { peer.finish() }
        let connection = try #require(
            try DirectBusConnection.connect(
                address: "unix:path=\(peer.path)", timeout: behaviour == .silent ? .milliseconds(300) : .seconds(10)))
        var first: DBusFailure?
        for _ in 0..<2 {
            do {
                _ = try connection.methodCall(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                    interface: "org.freedesktop.DBus", method: "GetId", arguments: nil)
                Issue.record("a call to a \(behaviour) peer returned")
            } catch {
                #expect(!error.isRemote)
                #expect(error.isServiceMissing, "fprintd's mapping reads it as no fprintd")
                if let code = behaviour.expectedCode { #expect(error.code == Int32(code.rawValue), "\(error.message)") }
                // The stream's position is lost: the next call fails the same way, without reading.
                if let first { #expect(error.code == first.code && error.message == first.message) }
                first = error
            }
        }
        // What we sent first: EXTERNAL with our uid, BEGIN, then `Hello`, before any answer.
        let uid = String(geteuid()).utf8.map { String($0, radix: 16) }.joined()
        let greeting = Array("\0AUTH EXTERNAL \(uid)\r\nBEGIN\r\n".utf8)
        let sent = peer.received()
        #expect(Array(sent.prefix(greeting.count)) == greeting)
        #expect(String(decoding: sent, as: UTF8.self).contains("Hello"))
    }
}

/// A fake bus (a listening unix socket in this run's scratch directory): it accepts one client, reads
/// what the client sends for a moment, writes `reply`, and then either hangs up or waits for the client
/// to close. Only for faults a real bus does not produce.
final class FakeBusPeer: Sendable {
    let path: String
    private let listener: Int32
    private let receivedBytes = LockedValue<[UInt8]>([])
    private let done = LockedValue(false)

    init(_ reply: [UInt8], hangUp: Bool) throws {
        path = Harness.scratch.appendingPathComponent("fake-bus-\(UUID().uuidString.prefix(8))").path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(listener >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let name = Array(path.utf8)
        try #require(name.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0 && listen(listener, 1) == 0, "fake bus at \(path): errno \(errno)")
        self.listener = listener
        let receivedBytes = self.receivedBytes
        let done = self.done
        Thread {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            // The client's greeting arrives at once; a short wait collects it (and its Hello).
            var descriptor = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            while poll(&descriptor, 1, 100) > 0 {
                let count = read(client, &buffer, buffer.count)
                if count <= 0 { break }
                receivedBytes.withLock { $0 += buffer[..<count] }
            }
            if hangUp { return }
            _ = reply.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // Hold the connection until the client closes it or the test ends.
            while !done.withLock({ $0 }) {
                if poll(&descriptor, 1, 50) > 0, read(client, &buffer, buffer.count) <= 0 { break }
            }
        }.start()
    }

    func received() -> [UInt8] { receivedBytes.withLock { $0 } }

    /// Stops the peer and removes its socket.
    func finish() {
        done.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        unlink(path)
    }
}
#endif
