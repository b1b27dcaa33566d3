#if os(Linux)
@testable import BiometricsVaultServiceDaemon
import BiometricsVaultProcess
import Foundation
import Glibc
import Testing

/// The service's attestation socket, served in-process at a path of the test's own: a token names the
/// process that connected, is good once, and ages until its `Attest` call arrives, not until a busy
/// service gets to that call.
@Suite struct PeerAttestationTests {
    /// A socket of the test's own, and the token it answers this process.
    private static func attestation() throws -> (PeerAttestation, token: [UInt8], directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bv-attest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        let path = directory.appendingPathComponent("peer.socket").path
        let attestation = try PeerAttestation(path: path)
        guard case .success(let socket) = UnixSocket.connect(to: path, timeout: 5) else {
            attestation.stop()
            throw SocketSetupFailure("could not connect to \(path)")
        }
        defer { close(socket) }
        let token = try #require(UnixSocket.readExactly(socket, 32))
        return (attestation, token, directory)
    }

    /// A call that arrived 9 s after its token was issued and waited longer still for the service is
    /// bound to the process that connected: only the arrival counts against the token's 10 s.
    @Test func aTokenAgesUntilItsCallArrivesNotUntilTheCallIsHandled() throws {
        let (attestation, token, directory) = try Self.attestation()
        defer { attestation.stop(); try? FileManager.default.removeItem(at: directory) }
        let claim = try #require(attestation.claim(token, arrived: .now + .seconds(9)))
        let process = try #require(claim.process(uid: getuid(), pid: getpid()))
        #expect(process.pid == getpid())
        #expect(process.isAlive)
    }

    /// A token whose call arrived past its lifetime, a token used twice, another uid or pid, and a token of
    /// the wrong length bind nothing.
    @Test func aTokenIsGoodOnceForItsOwnProcessWithinItsLifetime() throws {
        let (attestation, token, directory) = try Self.attestation()
        defer { attestation.stop(); try? FileManager.default.removeItem(at: directory) }
        #expect(attestation.claim(token, arrived: .now + .seconds(11)) == nil)
        #expect(attestation.claim(token, arrived: .now) == nil, "a token refused once is used up")

        let (second, again, secondDirectory) = try Self.attestation()
        defer { second.stop(); try? FileManager.default.removeItem(at: secondDirectory) }
        let claim = try #require(second.claim(again, arrived: .now))
        #expect(claim.process(uid: getuid() + 1, pid: getpid()) == nil)
        #expect(claim.process(uid: getuid(), pid: getpid() + 1) == nil)
        #expect(second.claim(again, arrived: .now) == nil, "a token is good once")
        #expect(second.claim(Array(again.prefix(31)), arrived: .now) == nil)
    }
}

private struct SocketSetupFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
#endif
