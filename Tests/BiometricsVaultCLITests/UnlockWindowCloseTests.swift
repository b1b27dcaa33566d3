#if os(Linux)
import BiometricsVault
import BiometricsVaultAgent
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

extension UnlockWindowCLITests {
    /// `close` (what a client sends when the enrolled set differs from a window's) at a real agent of the
    /// calling user: it closes the asking scope's window for that service and policy only, and a process
    /// without a terminal has no window to close. (The whole path on the real reader:
    /// FingerprintCLITests.anEnrollmentChangeClosesTheWindow.)
    @Test func closeEndsOnlyThisScopesWindowForThatServiceAndPolicy() async throws {
        let agent = try await startAgent()
        defer { agent.terminate() }
        let request = AgentRequest.close(service: "s", policy: "biometryCurrentSet")
        #expect(try AgentFrame.decode(AgentRequest.self, body: try AgentFrame.encode(request).dropFirst(4)) == request)

        // `swift test` may itself run on a terminal: then the windows are that terminal's.
        let tty = open("/dev/tty", O_RDWR)
        let hasTerminal = tty >= 0
        if hasTerminal { close(tty) }
        guard hasTerminal else {
            #expect(try client.send(request, startingAgent: false) == .locked(count: 0))
            return
        }
        for (service, policy) in [("s", "biometryCurrentSet"), ("s", "biometryAny"), ("t", "biometryCurrentSet")] {
            _ = try client.send(.open(service: service, policy: policy, seconds: 60, enrollment: "e1"), startingAgent: false)
        }
        #expect(try client.send(request, startingAgent: false) == .locked(count: 1))
        #expect(try client.send(request, startingAgent: false) == .locked(count: 0))
        guard case .status(_, let windows) = try client.send(.status, startingAgent: false) else {
            Issue.record("status was not answered")
            return
        }
        #expect(windows.map { "\($0.service) \($0.policy)" } == ["s biometryAny", "t biometryCurrentSet"])
        _ = try client.send(.lock, startingAgent: false)
    }
}
#endif
