// libFuzzer target: the unlock-window agent's frames (`AgentFrame`: a 4-byte big-endian length, then that
// many bytes of JSON naming the wire version beside the message) and the messages in them, as each side reads the other's: `AgentRequest`, which any
// process of the user that reaches `agent.sock` sends to the agent, and `AgentResponse`, which whatever
// listens on that socket sends to the CLI. Also `UnlockWindowAgent.fittingStatus`, which cuts a `status`
// answer to one frame.
//
// Invariants, for every input:
// - nothing traps (AddressSanitizer is on); a body that does not decode is an `AgentFrameError` (the
//   agent answers "malformed request" or names the wire versions, the CLI "malformed answer": neither
//   repeats the body);
// - `AgentFrame.length(of:)` is the header's big-endian value; a body is decoded only when that length
//   is 1...maximumBodySize, as both sides check;
// - a decoded message re-encodes (`AgentFrame.encode`) to a frame whose header is its body's length and
//   whose body decodes to the same message, which encodes again to a frame of the same length; or the
//   re-encoding is refused as `credentialsTooLarge` when it outgrows a frame (JSONEncoder escapes `/`);
//   `carriesStoreKey` (raw key bytes follow the frame) is true exactly for `keepStoreKey` and
//   `storeKey(found: true)`;
// - `fittingStatus` keeps a prefix of the windows, all of them when they fit, and always encodes.
//
// The first input byte picks the mode (mod 3): 0, a frame as the agent reads a request; 1, a frame as
// the CLI reads an answer; 2, windows for `fittingStatus`.
#if os(Linux)
import BiometricsVaultAgent
import BiometricsVaultCore
import FuzzSupport

/// A message read from a frame: re-encoded, decoded again and re-encoded to the same bytes.
func checkRoundTrip<Message: Codable & Equatable>(_ message: Message, carriesStoreKey: Bool, expectedToCarry: Bool) {
    fuzzRequire(carriesStoreKey == expectedToCarry, "carriesStoreKey is \(carriesStoreKey) for \(message)")
    let frame: [UInt8]
    do {
        frame = try AgentFrame.encode(message)
    } catch {
        fuzzRequire(error.code == .credentialsTooLarge, "re-encoding failed with \(error.code)")
        return
    }
    let body = frame.dropFirst(4)
    fuzzRequire(AgentFrame.length(of: frame.prefix(4)) == body.count && body.count <= AgentFrame.maximumBodySize, "frame header")
    guard let again = try? AgentFrame.decode(Message.self, body: body) else {
        fuzzRequire(false, "a re-encoded message does not decode: \(String(decoding: body, as: UTF8.self))")
        return
    }
    fuzzRequire(again == message, "a re-encoded message decodes to another one")
    // JSONEncoder writes an object's members in no fixed order (it keeps them in a dictionary): the same
    // message gives frames of the same length, not the same bytes.
    fuzzRequire((try? AgentFrame.encode(again))?.count == frame.count, "the same message encodes to another length")
}

func checkFrame(_ stream: [UInt8], asRequest: Bool) {
    guard stream.count >= 4 else { return }
    let length = AgentFrame.length(of: stream.prefix(4))
    let expected = stream.prefix(4).reduce(0) { $0 * 256 + Int($1) }
    fuzzRequire(length == expected && length <= Int(UInt32.max), "header length \(length), expected \(expected)")
    guard length > 0, length <= AgentFrame.maximumBodySize, stream.count >= 4 + length else { return }
    let body = stream[4..<(4 + length)]
    do {
        if asRequest {
            let request = try AgentFrame.decode(AgentRequest.self, body: body)
            var expectedToCarry = false
            if case .keepStoreKey = request { expectedToCarry = true }
            checkRoundTrip(request, carriesStoreKey: request.carriesStoreKey, expectedToCarry: expectedToCarry)
        } else {
            let response = try AgentFrame.decode(AgentResponse.self, body: body)
            checkRoundTrip(response, carriesStoreKey: response.carriesStoreKey, expectedToCarry: response == .storeKey(found: true))
        }
    } catch {
        // An AgentFrameError (typed throws), whose words never repeat the body.
        fuzzRequire(error.description.utf8.count < 200, "the error's words are \(error.description.utf8.count) bytes")
    }
}

enum Fixture {
    /// A scope's description as the agent writes it (PeerScope.description).
    static let scope = "tty 136:3 session 4242 (leader started at tick 123456)"
}

func checkFittingStatus(_ input: inout FuzzInput) {
    var windows: [UnlockWindowReport] = []
    while !input.isEmpty, windows.count < 64 {
        let choice = input.byte()
        let service = input.text()
        let policy = choice & 1 == 0 ? ProtectionPolicy.allCases[Int(choice >> 1) % ProtectionPolicy.allCases.count].rawValue : input.text()
        let remaining = Int(input.integer(bytes: 3))
        let enrollment = choice & 0x80 == 0 ? nil : input.text()
        windows.append(UnlockWindowReport(service: service, policy: policy, remainingSeconds: remaining, enrollment: enrollment))
    }
    let answer = UnlockWindowAgent.fittingStatus(scope: Fixture.scope, windows: windows)
    guard case .status(let answeredScope, let shown) = answer else {
        fuzzRequire(false, "fittingStatus answered \(answer)")
        return
    }
    fuzzRequire(answeredScope == Fixture.scope, "the scope changed")
    fuzzRequire(shown.count <= windows.count && Array(windows.prefix(shown.count)) == shown, "not a prefix of the windows")
    fuzzRequire((try? AgentFrame.encode(answer)) != nil, "the status answer does not fit a frame")
    if (try? AgentFrame.encode(AgentResponse.status(scope: Fixture.scope, windows: windows))) != nil {
        fuzzRequire(shown.count == windows.count, "windows that fit were left out")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAgentFrame(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    switch input.byte() % 3 {
    case 0: checkFrame(input.rest(), asRequest: true)
    case 1: checkFrame(input.rest(), asRequest: false)
    default: checkFittingStatus(&input)
    }
    return 0
}

runLibFuzzer(fuzzAgentFrame)
#endif
