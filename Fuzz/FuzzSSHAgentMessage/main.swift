// libFuzzer target: the SSH agent protocol as `biometrics-vault ssh-agent` and the vault service read it
// (BiometricsVaultSSH): `SSHAgentFrame`'s length header, `SSHAgentRequest` (what any process that reaches
// the agent's socket sends, private keys included: `SSHPrivateKey(agentFields:)`), `SSHAgentResponse`
// (what a client reads), `SSHSessionBind` (a client's claim of the server it is connected to), the public
// keys and signatures inside them (`SSHPublicKey(blob:)`, `verify`), `SSHSignedData` (what the prompt says
// a signature is for), and a stored key (`SSHPrivateKey(serialized:)`, the vault service's own record).
//
// Invariants, for every input:
// - nothing traps or leaks (AddressSanitizer, LeakSanitizer); a refusal is an `SSHError` (typed throws)
//   whose message is fixed words, numbers and names of at most 64 characters, never the input;
// - `SSHAgentFrame.bodyLength` is the header's big-endian value, accepted exactly when it is
//   1...maximumBodySize;
// - a decoded request re-encodes (`body`) to a body of its type that decodes to an equal request; a
//   decoded response re-encodes (`frame`) to a frame whose header is its body's length and whose body
//   decodes to an equal response;
// - a public key that parses is its blob: it reads back from its blob and its `authorized_keys` line,
//   and its fingerprint is "SHA256:" and 43 base64 characters;
// - a session-bind that parses has a session identifier of 1 to 128 bytes and a host key that reads back;
// - a stored key that reads is exactly what it writes, and its public key is one that parses.
//
// The first input byte picks the mode (mod 5): 0, a request frame as the agent reads it; 1, an answer
// frame as a client reads it; 2, session-bind contents; 3, a public key blob (a string), a signature
// blob (a string), then the data it signs, also read as SSHSignedData; 4, a stored key.
#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultSSH
import FuzzSupport

func checkRefusal(_ error: SSHError) {
    fuzzRequire(error.message.utf8.count < 256, "a refusal of \(error.message.utf8.count) bytes")
}

func checkPublicKey(_ key: SSHPublicKey) {
    fuzzRequire((try? SSHPublicKey(blob: key.blob)) == key, "a public key does not read back from its blob")
    fuzzRequire((try? SSHPublicKey(openSSH: key.openSSH(comment: "fuzz"))) == key, "a public key does not read back from its line")
    let fingerprint = key.fingerprint
    fuzzRequire(fingerprint.hasPrefix("SHA256:") && fingerprint.utf8.count == 7 + 43, "fingerprint \(fingerprint)")
}

func checkRequest(_ body: [UInt8]) {
    let request: SSHAgentRequest
    do { request = try SSHAgentRequest(body: body) } catch {
        checkRefusal(error)
        return
    }
    let again = request.body
    fuzzRequire(again.first == request.messageType, "a request's body starts with another type")
    guard let decoded = try? SSHAgentRequest(body: again) else {
        fuzzRequire(false, "a re-encoded request does not decode: \(request)")
        return
    }
    fuzzRequire(decoded == request, "a re-encoded request decodes to another one: \(request)")
    switch request {
    case .addIdentity(let key, _, _):
        checkPublicKey(key.publicKey)
        fuzzRequire((try? SSHPrivateKey(serialized: key.serialized)) == key, "an added key does not read back from its stored form")
    case .sign(let keyBlob, let data, _):
        if let key = try? SSHPublicKey(blob: keyBlob) { checkPublicKey(key) }
        checkSignedData(data)
    case .extension(let name, let contents) where name == SSHAgentRequest.sessionBindExtension:
        checkSessionBind(contents)
    default:
        break
    }
}

func checkResponse(_ body: [UInt8]) {
    let response: SSHAgentResponse
    do { response = try SSHAgentResponse(body: body) } catch {
        checkRefusal(error)
        return
    }
    let frame = response.frame
    fuzzRequire((try? SSHAgentFrame.bodyLength(header: Array(frame.prefix(4)))) == frame.count - 4, "an answer's frame header")
    fuzzRequire((try? SSHAgentResponse(body: Array(frame.dropFirst(4)))) == response, "a re-encoded answer decodes to another one")
}

func checkFrame(_ stream: [UInt8], asRequest: Bool) {
    guard stream.count >= 4 else { return }
    let header = Array(stream.prefix(4))
    let value = header.reduce(0) { $0 << 8 | Int($1) }
    let length: Int
    do { length = try SSHAgentFrame.bodyLength(header: header) } catch {
        fuzzRequire(value == 0 || value > SSHAgentFrame.maximumBodySize, "a length of \(value) was refused")
        checkRefusal(error)
        return
    }
    fuzzRequire(length == value && (1...SSHAgentFrame.maximumBodySize).contains(length), "header length \(length), expected \(value)")
    guard stream.count >= 4 + length else { return }
    let body = Array(stream[4..<(4 + length)])
    if asRequest { checkRequest(body) } else { checkResponse(body) }
}

func checkSessionBind(_ contents: [UInt8]) {
    do {
        let bind = try SSHSessionBind(contents: contents)
        fuzzRequire((1...SSHSessionBind.maximumSessionIDSize).contains(bind.sessionID.count), "a session identifier of \(bind.sessionID.count) bytes")
        checkPublicKey(bind.hostKey)
        fuzzRequire((try? SSHSessionBind(contents: contents)) == bind, "the same contents read differently")
    } catch {
        checkRefusal(error)
    }
}

func checkSignedData(_ data: [UInt8]) {
    switch SSHSignedData(data) {
    case .userAuthentication(let sessionID, _, _, let hostKey):
        fuzzRequire(!sessionID.isEmpty, "a user authentication without a session identifier")
        if let hostKey { checkPublicKey(hostKey) }
    case .sshsig:
        fuzzRequire(data.starts(with: Array("SSHSIG".utf8)), "SSHSIG data without its magic")
    case .other:
        break
    }
}

func checkSignature(_ input: inout FuzzInput) {
    var reader = SSHReader(input.rest())
    guard let blob = try? reader.readString() else { return }
    let signature = (try? reader.readString()) ?? []
    let data = reader.readRemaining()
    checkSignedData(data)
    do {
        let key = try SSHPublicKey(blob: blob)
        checkPublicKey(key)
        _ = key.verify(signature: signature, of: data)
    } catch {
        checkRefusal(error)
    }
}

func checkStoredKey(_ bytes: [UInt8]) {
    do {
        let key = try SSHPrivateKey(serialized: SecretBytes(bytes))
        fuzzRequire(key.serialized == SecretBytes(bytes), "a stored key does not write back to what was read")
        checkPublicKey(key.publicKey)
    } catch {
        checkRefusal(error)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSSHAgentMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    switch input.byte() % 5 {
    case 0: checkFrame(input.rest(), asRequest: true)
    case 1: checkFrame(input.rest(), asRequest: false)
    case 2: checkSessionBind(input.rest())
    case 3: checkSignature(&input)
    default: checkStoredKey(input.rest())
    }
    return 0
}

runLibFuzzer(fuzzSSHAgentMessage)
#endif
