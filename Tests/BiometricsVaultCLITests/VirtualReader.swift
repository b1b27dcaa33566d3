#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// libfprint's virtual sensor under the real fprintd (`scripts/setup/30-fprintd-polkit.sh`): touch it
/// with a finger id, wait until fprintd asks for a finger, enroll a user's finger.
///
/// `inside` runs fprintd's tools where that fprintd is (empty: on this machine; the systemd box's
/// `nsenter` line for the one in the box), and `socketPath` is its sensor's socket as seen from here.
struct VirtualReader: Sendable {
    let sandbox: CLISandbox
    var socketPath = ProcessInfo.processInfo.environment["BV_FPRINT_SOCKET"]
    var inside: [String] = []

    /// Touches the sensor with finger `id` (one command per connection; the socket exists only while
    /// fprintd has the reader open, so connecting is retried for a while).
    func scan(_ id: String) async throws {
        let path = try #require(socketPath)
        for _ in 0..<300 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            try #require(fd >= 0)
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: Array(path.utf8) + [0])
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if connected != 0 {
                try await Task.sleep(for: .milliseconds(50))
                continue
            }
            let command = Array("SCAN \(id)".utf8)
            try #require(write(fd, command, command.count) == command.count)
            shutdown(fd, Int32(SHUT_WR))
            var buffer = [UInt8](repeating: 0, count: 64)
            while read(fd, &buffer, buffer.count) > 0 {}
            return
        }
        Issue.record("the virtual sensor socket never accepted a connection")
    }

    /// Whether fprintd asks for a finger now (a verify or enroll is waiting on the reader).
    func fingerNeeded() async throws -> Bool {
        let busctl = inside + ["/usr/bin/busctl"]
        let property = try await sandbox.run(
            executable: URL(fileURLWithPath: busctl[0]), Array(busctl.dropFirst()) + ["--system", "get-property", "net.reactivated.Fprint", "/net/reactivated/Fprint/Device/0",
             "net.reactivated.Fprint.Device", "finger-needed"])
        return property.stdout.hasPrefix("b true")
    }

    /// Waits until fprintd itself asks for a finger (so the scan lands in this verify, not a queue).
    func waitForFingerNeeded() async throws {
        for _ in 0..<400 {
            if try await fingerNeeded() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("fprintd never asked for a finger")
    }

    /// Enrolls one more finger of `user` (keeping the others) as `name`, with sensor id `finger`.
    func enrollFinger(user: String?, finger: String, as name: String) async throws {
        let enroll = try await PTYSession(
            command: shellQuoted(inside + ["/usr/bin/fprintd-enroll", "-f", name] + (user.map { [$0] } ?? [])),
            environment: sandbox.environment)
        var stages = 0
        while !enroll.text.contains("enroll-completed") && enroll.process.isRunning && stages < 12 {
            try await waitForFingerNeeded()
            try await scan(finger)
            stages += 1
            _ = try await enroll.waitFor("Enroll result", count: stages, seconds: 20)
        }
        #expect(try await enroll.finish() == 0, "fprintd-enroll: \(enroll.text)")
        try #require(enroll.text.contains("enroll-completed"), "fprintd-enroll: \(enroll.text)")
    }
}
#endif
