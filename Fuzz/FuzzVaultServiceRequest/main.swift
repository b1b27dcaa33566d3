// libFuzzer target: the vault service's decoding of a call (`VaultServiceRequest(member:parameters:)`),
// whatever program of whichever user sent it, and the checks the service makes of a request's arguments
// before it touches a store: the item's name (`SecretItemID`), a written header
// (`ItemHeader(attributeValue:)`), the write condition (`VaultServiceInterface.decodeCondition`), the
// policy's name. The bus checks a call's type signature against the introspection; the body's bytes are
// the caller's. The harness reads the fuzz bytes as a serialized body, untrusted, as GDBus does.
//
// Invariants, for every input:
// - nothing traps or leaks (AddressSanitizer, LeakSanitizer);
// - a request is decoded exactly when the member is one of the interface's methods and the body is of
//   that method's input type; a refusal names the member;
// - a decoded request is the body: its `arguments` (what a client sends for it) equal the body in
//   normal form, and it calls the method it was decoded for;
// - the argument checks refuse only with their documented codes: an item's name with `invalidKey`, a
//   header with `corruptedItem`, a condition with `invalidVault` or `corruptedItem`; what they accept
//   encodes back to what was given.
//
// The first input byte picks the member (mod the number of the interface's methods plus one: each
// method, then a name it does not have); the second picks the body's type (odd: the method's input type; even: a type read from the
// input, up to 16 bytes after a length byte); the rest is the serialized body.
#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultService
import FuzzSupport

func checkItem(service: String, key: String) {
    do {
        let id = try SecretItemID(service: service, key: key)
        fuzzRequire(id.service == service && id.key == key, "an item's name was changed by its check")
    } catch {
        fuzzRequire(error.code == .invalidKey, "an item's name refused with \(error.code)")
    }
}

func checkHeader(_ text: String) -> Bool {
    do {
        let header = try ItemHeader(attributeValue: text)
        fuzzRequire(try ItemHeader(attributeValue: header.attributeValue) == header, "a header does not read back as itself")
        return true
    } catch {
        fuzzRequire(error.code == .corruptedItem, "a header refused with \(error.code)")
        return false
    }
}

func checkArguments(of request: VaultServiceRequest) {
    switch request {
    case .read(let service, let key, _), .delete(let service, let key):
        checkItem(service: service, key: key)
    case .list(let service):
        checkItem(service: service, key: "k")
    case .write(let service, let key, let header, _, let condition, let expected, _):
        checkItem(service: service, key: key)
        _ = checkHeader(header)
        do {
            let decoded = try VaultServiceInterface.decodeCondition(kind: condition, expected: expected)
            let (kind, text) = VaultServiceInterface.encode(decoded)
            fuzzRequire(kind == condition, "the condition \(condition) reads back as \(kind)")
            if !text.isEmpty { fuzzRequire(try ItemHeader(attributeValue: text) == ItemHeader(attributeValue: expected), "a condition's header changed") }
        } catch {
            fuzzRequire([.invalidVault, .corruptedItem].contains(error.code), "a condition refused with \(error.code)")
        }
    case .authenticate(let policy, _, _, _, _):
        if let known = ProtectionPolicy(rawValue: policy) { fuzzRequire(known.rawValue == policy, "a policy's name changed") }
    case .sshKeyGenerate(let name, _, let policy), .sshKeyImport(let name, _, let policy, _, _):
        checkItem(service: "biometrics-vault.ssh-key", key: name)
        if let known = ProtectionPolicy(rawValue: policy) { fuzzRequire(known.rawValue == policy, "a policy's name changed") }
    case .sshKeyDelete(let name):
        checkItem(service: "biometrics-vault.ssh-key", key: name)
    case .status, .attest, .authenticateOwner, .cancelAuthentication, .revoke, .lock, .audit, .registerPrompter, .cancelPrompt, .sshKeys,
        .sshSign:
        break
    }
}

func fuzzVaultServiceRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    let methods = VaultServiceMethod.allCases
    let pick = Int(input.byte()) % (methods.count + 1)
    let method = pick < methods.count ? methods[pick] : nil
    let member = method?.rawValue ?? "Unlock"
    let type = input.byte() % 2 == 1
        ? method?.inputType ?? "(s)"
        : String(decoding: input.bytes(Int(input.byte() % 17)), as: UTF8.self)
    guard let body = DBusValue(serialized: input.rest(), type: type) else { return 0 }
    do {
        let request = try VaultServiceRequest(member: member, parameters: body)
        fuzzRequire(method != nil && body.typeString == method?.inputType, "\(member) decoded from a body of type \(body.typeString)")
        fuzzRequire(request.method == method, "\(member) decoded as \(request.method.rawValue)")
        fuzzRequire(DBusValue(request.arguments).hasSameValue(as: body), "\(member): the request is not the body")
        checkArguments(of: request)
    } catch {
        fuzzRequire(method == nil || body.typeString != method?.inputType, "\(member) refused a body of its own type")
        fuzzRequire(error.message.contains(member), "a refusal that does not name the member: \(error.message)")
    }
    return 0
}

runLibFuzzer(fuzzVaultServiceRequest)
#endif
