#if os(Linux)
@testable import BiometricsVaultAgent
import BiometricsVaultCore
import BiometricsVaultProcess
import Dispatch
import Foundation
import Glibc
import Testing

/// The client against an agent of another build: an answer of another wire version, or of none, is
/// a clear `storeUnavailable` that says so, never a misread message.
@Suite struct AgentClientTests {
    /// Answers one connection with `body` in a frame, after reading the request.
    static func exchange(answering body: String, request: AgentRequest) throws -> Result<AgentResponse, VaultError> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bv-agent-\(UUID().uuidString.prefix(8))").path
        try #require(mkdir(directory, 0o700) == 0)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let paths = AgentPaths(directory: directory)
        let listener = try UnixSocket.listen(at: paths.socket)
        defer { close(listener) }
        let answer = Array(body.utf8)
        let served = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            defer { served.signal() }
            guard AgentSocket.waitReadable([listener], milliseconds: 10_000).contains(listener),
                let (descriptor, _) = UnixSocket.accept(listener)
            else { return }
            defer { close(descriptor) }
            guard AgentSocket.waitReadable([descriptor], milliseconds: 10_000).contains(descriptor) else { return }
            _ = AgentSocket.readAvailable(descriptor, upTo: AgentFrame.maximumBodySize + 4)
            let length = UInt32(answer.count)
            _ = UnixSocket.writeAll(descriptor, [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + answer)
        }
        let client = UnlockWindowAgentClient(paths: paths, agentExecutable: nil)
        let result = Result { () throws(VaultError) in try client.send(request, startingAgent: false) }
        #expect(served.wait(timeout: .now() + .seconds(10)) == .success)
        return result
    }

    @Test(arguments: [
        (#"{"status":{"windows":[]}}"#, "no wire version"),
        (#"{"version":2,"message":{"status":{"windows":[]}}}"#, "wire version 2"),
        (#"{"version":0,"message":{"locked":{"count":1}}}"#, "wire version 0"),
    ])
    func anAnswerOfAnotherVersionIsAClearError(body: String, named: String) throws {
        guard case .failure(let error) = try Self.exchange(answering: body, request: .status) else {
            Issue.record("an answer of another version was read as a message")
            return
        }
        #expect(error.code == .storeUnavailable)
        let words = error.underlying.map { "\($0)" } ?? ""
        #expect(words.contains(named) && words.contains("speaks \(AgentFrame.version)"), "\(words)")
    }

    @Test func anAnswerOfThisVersionIsRead() throws {
        let result = try Self.exchange(answering: #"{"version":1,"message":{"locked":{"count":2}}}"#, request: .lock)
        #expect(try result.get() == .locked(count: 2))
    }
}
#endif
