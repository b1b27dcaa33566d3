#if os(Linux)
@testable import BiometricsVaultLinuxAuth
import BiometricsVaultCore
import BiometricsVaultProcess
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// Every suite of this target is nested here: `.serialized` on the parent runs them one after another,
/// because there is one fingerprint reader and fprintd lets one client claim it at a time.
@Suite(.onTestThreads, .serialized) enum LinuxAuthIntegration {}

/// The real Linux authentication stack that `scripts/setup/30-fprintd-polkit.sh` brings up: the system
/// bus, polkitd, fprintd on libfprint's virtual sensor, test users with known passwords.
enum Harness {
    static let environment = ProcessInfo.processInfo.environment
    static let sensorSocket = environment["BV_FPRINT_SOCKET"]
    static let testUser = environment["BV_TEST_USER"] ?? "vaulttest"
    static let testPassword = environment["BV_TEST_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
    static let otherUser = environment["BV_TEST_OTHER_USER"] ?? "vaultother"
    static let isRoot = geteuid() == 0
    /// Prefix for sensor finger ids: the storage driver keeps every user's prints on one (virtual)
    /// sensor and refuses a duplicate id, so root's run and the test user's run use different ids.
    static let fingerIDPrefix = FingerprintAuthenticator.currentUserName()

    /// fprintd with the virtual sensor, reachable.
    static let fingerprint = DaemonNeed(
        "fprintd with the virtual sensor", remedy: "scripts/setup/30-fprintd-polkit.sh", problem: fingerprintProblem())

    private static func fingerprintProblem() -> String? {
        guard sensorSocket != nil else { return "BV_FPRINT_SOCKET is not set" }
        let probe = FingerprintAuthenticator(owner: nil).probe(claiming: false).reason
        return probe == .noFprintd || probe == .noDevice ? "\(probe)" : nil
    }

    /// PAM able to check the test user's password here: as root (pam_unix reads the shadow file) or as
    /// the test user itself.
    static let pam = DaemonNeed(
        "PAM checking the test user's password", remedy: "scripts/setup/30-fprintd-polkit.sh",
        problem: testPassword == nil
            ? "BV_TEST_PASSWORD is not set"
            : !isRoot && FingerprintAuthenticator.currentUserName() != testUser
                ? "PAM can check only the caller's own password; running as \(FingerprintAuthenticator.currentUserName())" : nil)

    /// The system bus (the real one, or `DBUS_SYSTEM_BUS_ADDRESS`).
    static let systemBus = DaemonNeed(
        "the system bus", remedy: "scripts/setup/30-fprintd-polkit.sh",
        problem: access("/run/dbus/system_bus_socket", F_OK) == 0 || environment["DBUS_SYSTEM_BUS_ADDRESS"] != nil
            ? nil : "no /run/dbus/system_bus_socket and no DBUS_SYSTEM_BUS_ADDRESS")

    /// The reason a test that needs the non-root test user skips as root: CI runs it in that step.
    static let asTestUserOnly: Comment = "as the non-root test user: scripts/extra-tests/30-linux-auth-as-user.sh runs it"

    /// Whether this process runs as the non-root test user (denial and polkit agent tests need it: uid 0
    /// is always authorized). As root these tests are covered by `scripts/extra-tests/30-linux-auth-as-user.sh`.
    static var runsAsTestUser: Bool { !isRoot && FingerprintAuthenticator.currentUserName() == testUser }

    /// A fresh directory for one test's lockout counter, inside one directory per test process that is
    /// removed when the process exits.
    static func temporaryStateDirectory() -> URL {
        let url = scratch.appendingPathComponent(UUID().uuidString)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static var scratch: URL { TestScratch.directory }
}

/// libfprint's virtual sensor (driver `virtual_device_storage`): one plain-text command per connection
/// on the control socket; `SCAN <id>` touches the sensor with the finger `<id>`.
enum VirtualSensor {
    enum Failure: Error, CustomStringConvertible {
        case socket(String, Int32)
        case fingerNeverNeeded
        var description: String {
            switch self {
            case .socket(let step, let number): "sensor socket \(step): errno \(number)"
            case .fingerNeverNeeded: "fprintd never asked for a finger"
            }
        }
    }

    /// Sends one command and waits until the driver took it (it closes the connection then). The
    /// socket exists only while fprintd has the reader open, so connecting is retried until `deadline`.
    static func send(_ command: String, deadline: ContinuousClock.Instant = .now + .seconds(15)) throws {
        guard let path = Harness.sensorSocket else { throw Failure.socket("path", 0) }
        while true {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw Failure.socket("socket", errno) }
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                let bytes = Array(path.utf8.prefix(raw.count - 1))
                raw.copyBytes(from: bytes)
                raw[bytes.count] = 0
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if connected != 0 {
                let number = errno
                if (number == ENOENT || number == ECONNREFUSED) && ContinuousClock.now < deadline {
                    usleep(50_000)
                    continue
                }
                throw Failure.socket("connect", number)
            }
            let bytes = Array(command.utf8)
            guard write(fd, bytes, bytes.count) == bytes.count else { throw Failure.socket("write", errno) }
            shutdown(fd, Int32(SHUT_WR))
            var buffer = [UInt8](repeating: 0, count: 256)
            while read(fd, &buffer, buffer.count) > 0 {}
            return
        }
    }

    /// Waits (on its own thread) until fprintd reports `finger-needed`, then sends `commands`.
    /// Waiting for `finger-needed` (not just for the socket) keeps the scan out of any other claim,
    /// e.g. a probe's. `wait()` returns once the commands were sent (or the wait gave up).
    @discardableResult
    static func whenFingerNeeded(_ commands: String...) -> Injection {
        let injection = Injection()
        let thread = Thread {
            let deadline = ContinuousClock.now + .seconds(20)
            var needed = false
            while !needed && ContinuousClock.now < deadline {
                needed = (try? FprintdDevice.openDefault().fingerNeeded()) ?? false
                if !needed { usleep(30_000) }
            }
            var result: Result<Void, Failure> = .failure(.fingerNeverNeeded)
            if needed {
                do {
                    for command in commands { try send(command) }
                    result = .success(())
                } catch let error as Failure {
                    result = .failure(error)
                } catch {
                    result = .failure(.socket("unexpected", 0))
                }
            }
            injection.finish(result)
        }
        thread.start()
        return injection
    }

    final class Injection: Sendable {
        private let state = LockedValue<Result<Void, Failure>?>(nil)
        fileprivate func finish(_ result: Result<Void, Failure>) { state.withLock { $0 = result } }
        /// Waits for the injection thread; `nil` while it still runs after `timeout`.
        func wait(timeout: Duration = .seconds(25)) async -> Result<Void, Failure>? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let result = state.withLock({ $0 }) { return result }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }
    }
}

/// Enrolls and deletes the calling user's prints through fprintd's own D-Bus API (EnrollStart /
/// EnrollStatus), feeding the virtual sensor one `SCAN <id>` per enroll stage.
enum Enrollment {
    /// Deletes every print of the calling user.
    static func deleteAll() async throws {
        try await DedicatedThread.run(name: "test-delete") { () throws(VaultError) in
            do throws(FprintdFailure) {
                let device = try FprintdDevice.openDefault()
                defer { device.release() }
                try device.claimWaitingBriefly(user: "")
                try device.deleteEnrolledFingers()
            } catch { throw error.vaultError }
        }
    }

    /// Enrolls `finger` (e.g. `right-index-finger`) with the sensor id `scanID`; returns fprintd's final
    /// `EnrollStatus` (`enroll-completed` on success).
    static func enroll(finger: String, scanID: String) async throws -> String {
        try await DedicatedThread.run(name: "test-enroll") { () throws(VaultError) -> String in
            do throws(FprintdFailure) {
                let device = try FprintdDevice.openDefault()
                defer { device.release() }
                try device.claimWaitingBriefly(user: "")
                return try device.enroll(finger: finger) { try? VirtualSensor.send("SCAN \(scanID)") }
            } catch { throw error.vaultError }
        }
    }

    /// The calling user with exactly the given fingers enrolled (finger name, sensor id).
    static func reset(to fingers: [(finger: String, scanID: String)]) async throws {
        try await deleteAll()
        for (finger, scanID) in fingers {
            let status = try await enroll(finger: finger, scanID: scanID)
            try #require(status == "enroll-completed", "enrolling \(finger) ended with \(status)")
        }
    }
}

extension VaultError.Underlying {
    /// The D-Bus error name or status carried by this cause, for assertions.
    var dbusText: String {
        switch self {
        case .dbus(let name, let message): "\(name) \(message)"
        case .gError(let domain, _, let message): "\(domain) \(message)"
        default: description
        }
    }
}
#endif
