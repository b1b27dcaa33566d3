import BiometricsVaultAgent
import BiometricsVaultCore
import Foundation
import Testing

/// The agent's wire format: a 4-byte big-endian length, then a JSON object naming the wire version
/// beside the message. A frame of another version, or none, is a version mismatch, never a message.
@Suite struct AgentFrameTests {
    static let report = UnlockWindowReport(service: "github", policy: "biometryCurrentSet", remainingSeconds: 299, enrollment: "e1")

    static let requests: [AgentRequest] = [
        .open(service: "github", policy: "biometryCurrentSet", seconds: 300, enrollment: nil),
        .open(service: "ü/\"\\", policy: "userPresence", seconds: 86_400, enrollment: "e1"),
        .query(service: "github", policy: "biometryAny"),
        .lock,
        .close(service: "github", policy: "biometryCurrentSet"),
        .status,
        .keepStoreKey(store: "/home/u/.local/share/biometrics-vault", keyFile: String(repeating: "a", count: 64), seconds: 60),
        .storeKey(store: "/s", keyFile: String(repeating: "b", count: 64)),
        .forgetStoreKey(store: "/s"),
    ]

    static let responses: [AgentResponse] = [
        .opened(report), .window(report), .window(nil), .locked(count: 3), .status(scope: "tty 136:3 session 42", windows: [report]),
        .status(scope: nil, windows: []), .refused(reason: "malformed request"), .keptStoreKey(seconds: 60),
        .storeKey(found: true), .storeKey(found: false),
    ]

    static func body(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test(arguments: requests)
    func aRequestRoundTrips(_ request: AgentRequest) throws {
        let frame = try AgentFrame.encode(request)
        #expect(AgentFrame.length(of: frame.prefix(4)) == frame.count - 4)
        #expect(try AgentFrame.decode(AgentRequest.self, body: frame.dropFirst(4)) == request)
    }

    @Test(arguments: responses)
    func aResponseRoundTrips(_ response: AgentResponse) throws {
        let frame = try AgentFrame.encode(response)
        #expect(AgentFrame.length(of: frame.prefix(4)) == frame.count - 4)
        #expect(try AgentFrame.decode(AgentResponse.self, body: frame.dropFirst(4)) == response)
    }

    @Test func everyFrameNamesTheWireVersion() throws {
        let frame = try AgentFrame.encode(AgentRequest.lock)
        let object = try JSONSerialization.jsonObject(with: Data(frame.dropFirst(4))) as? [String: Any]
        #expect(object?["version"] as? Int == AgentFrame.version)
        #expect(object?["message"] != nil)
    }

    @Test(arguments: [0, 2, 99, -1])
    func anotherVersionIsAMismatch(version: Int) {
        #expect(throws: AgentFrameError.versionMismatch(received: version, expected: AgentFrame.version)) {
            try AgentFrame.decode(AgentRequest.self, body: Self.body(#"{"version":\#(version),"message":{"lock":{}}}"#))
        }
    }

    /// A frame as they were before they carried a version (an agent left running by an older build):
    /// the message alone.
    @Test(arguments: [#"{"lock":{}}"#, #"{"status":{}}"#, "{}"])
    func aFrameWithoutAVersionIsAMismatch(body: String) {
        #expect(throws: AgentFrameError.versionMismatch(received: nil, expected: AgentFrame.version)) {
            try AgentFrame.decode(AgentRequest.self, body: Self.body(body))
        }
    }

    @Test(arguments: [
        "{nope", "", "[]", "1", "\"lock\"", "null", #"{"version":"1","message":{"lock":{}}}"#, #"{"version":1}"#,
        #"{"version":1,"message":{"unknown":{}}}"#, #"{"version":1,"message":{"open":{"service":"x"}}}"#,
        #"{"version":1.5,"message":{"lock":{}}}"#,
    ])
    func aMalformedBodyIsMalformed(body: String) {
        #expect {
            try AgentFrame.decode(AgentRequest.self, body: Self.body(body))
        } throws: { error in
            guard let error = error as? AgentFrameError, case .malformed = error else { return false }
            return true
        }
    }

    /// A request read as an answer (or the reverse) is malformed, not another message.
    @Test func aRequestIsNotAnAnswer() throws {
        let frame = try AgentFrame.encode(AgentRequest.open(service: "s", policy: "p", seconds: 1, enrollment: nil))
        #expect(throws: AgentFrameError.self) { try AgentFrame.decode(AgentResponse.self, body: frame.dropFirst(4)) }
    }

    /// The error's words never repeat the body (a key or a secret could be in it).
    @Test func anErrorDoesNotRepeatTheBody() {
        for body in [#"{"version":1,"message":{"s3cr3t":{}}}"#, "s3cr3t", #"{"version":7,"message":"s3cr3t"}"#] {
            do {
                _ = try AgentFrame.decode(AgentRequest.self, body: Self.body(body))
                Issue.record("\(body) decoded")
            } catch {
                #expect(!error.description.contains("s3cr3t"), "\(error)")
            }
        }
    }

    @Test(arguments: [([0, 0, 0, 5], 5), ([0, 0, 1, 0], 256), ([0, 1, 0, 0], 65_536), ([1, 0, 0, 0], 16_777_216), ([0, 0, 0, 0], 0)] as [([UInt8], Int)])
    func theHeaderIsABigEndianLength(header: [UInt8], length: Int) {
        #expect(AgentFrame.length(of: header) == length)
    }

    @Test func aMessageLongerThanAFrameIsRefused() {
        let windows = Array(repeating: Self.report, count: 200)
        #expect {
            try AgentFrame.encode(AgentResponse.status(scope: "s", windows: windows))
        } throws: { error in
            (error as? VaultError)?.code == .credentialsTooLarge
        }
    }
}
