#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultService
import Foundation
import Testing

/// The service's interface described once: the introspection the bus checks, the arguments a client
/// sends and the request the service decodes all agree, for every method.
@Suite struct VaultServiceRequestTests {
    static let grant = [UInt8](repeating: 7, count: 32)
    static let requests: [VaultServiceRequest] = [
        .status, .attest(token: grant),
        .authenticate(policy: "biometryCurrentSet", reason: "Unlock 'github'", service: "biometrics-vault", windowSeconds: 300, scope: "terminal"),
        .authenticateOwner(reason: "Reset"), .cancelAuthentication, .revoke(grant: grant),
        .read(service: "biometrics-vault", key: "github", grant: []),
        .write(service: "svc", key: "k", header: "bv1;n", payload: SecretBytes(utf8: #"{"token":"t"}"#), condition: "absent", expected: "", grant: grant),
        .delete(service: "svc", key: "k"), .lock, .audit(since: 1_700_000_000), .list(service: "svc"),
        .registerPrompter, .cancelPrompt(prompt: 7),
        .sshKeys, .sshKeyGenerate(name: "work", type: "ed25519", policy: "biometryAny"),
        .sshKeyImport(name: "laptop", key: SecretBytes([1, 0, 0, 0, 11, 0xFF]), policy: "none", confirm: true, lifetimeSeconds: 3600),
        .sshKeyDelete(name: "work"),
        .sshSign(
            publicKey: [0, 0, 0, 11] + Array("ssh-ed25519".utf8), data: Array("SSHSIG".utf8), flags: 4, binding: [0, 0, 0, 1, 9],
            reason: "ssh git@github.com", windowSeconds: 300),
    ]

    @Test func everyMethodHasARequestHere() {
        #expect(Set(Self.requests.map(\.method)) == Set(VaultServiceMethod.allCases))
    }

    /// What a client sends for a request is of its method's input type, and decodes to the same request.
    @Test(arguments: requests)
    func aRequestsArgumentsDecodeToItself(request: VaultServiceRequest) throws {
        let body = DBusValue(request.arguments)
        #expect(body.typeString == request.method.inputType)
        let decoded = try VaultServiceRequest(member: request.method.rawValue, parameters: body)
        #expect(decoded.method == request.method)
        #expect(DBusValue(decoded.arguments).hasSameValue(as: body))
    }

    /// A body of another method's type, or a member the interface does not have, is refused by name.
    @Test func aWrongBodyOrMemberIsRefusedByName() {
        let body = DBusValue(VaultServiceRequest.list(service: "svc").arguments)
        for (member, message) in [("Read", "Read takes (ssay), not (s)"), ("Unlock", "no method Unlock")] {
            do {
                _ = try VaultServiceRequest(member: member, parameters: body)
                Issue.record("\(member) with (s) was decoded")
            } catch {
                #expect(error.message == message)
            }
        }
    }

    /// Every method refuses a body of any other method's type, naming itself, the type it takes and the
    /// type it was given; none decodes it into a request.
    @Test(arguments: requests)
    func aBodyOfAnotherTypeIsRefusedByTheMethodsName(request: VaultServiceRequest) {
        let member = request.method.rawValue
        let others = Self.requests.map { DBusValue($0.arguments) }.filter { $0.typeString != request.method.inputType }
        #expect(others.count >= Self.requests.count / 2)
        for body in others {
            do {
                let decoded = try VaultServiceRequest(member: member, parameters: body)
                Issue.record("\(member) with \(body.typeString) was decoded as \(decoded.method)")
            } catch {
                #expect(error.message == "\(member) takes \(request.method.inputType), not \(body.typeString)")
            }
        }
    }

    /// The introspection declares each method with its arguments in and out, in the description's order.
    @Test func theIntrospectionIsMadeFromTheDescription() {
        let xml = VaultServiceInterface.introspectionXML
        for method in VaultServiceMethod.allCases {
            let arguments = method.inputs.map { #"<arg name="\#($0.name)" type="\#($0.type)" direction="in"/>"# }
                + method.outputs.map { #"<arg name="\#($0.name)" type="\#($0.type)" direction="out"/>"# }
            let declared = xml.components(separatedBy: #"<method name="\#(method.rawValue)">"#)
            #expect(declared.count == 2, "\(method.rawValue)")
            let body = declared.last?.components(separatedBy: "</method>").first ?? ""
            #expect(body.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } == arguments)
        }
        #expect(VaultServiceMethod.read.replyType == "(bsbay)" && VaultServiceMethod.write.replyType == "()")
    }

    /// A serialized body that is not well formed reads as its type's defaults (GLib's rule for untrusted
    /// data): decoded, never trapped on (`FuzzVaultServiceRequest` explores the rest).
    @Test func anIllFormedBodyIsReadAsDefaults() throws {
        let body = try #require(DBusValue(serialized: [0xFF, 0xFF, 0xFF], type: "(ssay)"))
        let request = try VaultServiceRequest(member: "Read", parameters: body)
        #expect(request.method == .read)
        #expect(DBusValue(serialized: [], type: "*") == nil)
    }
}
#endif
