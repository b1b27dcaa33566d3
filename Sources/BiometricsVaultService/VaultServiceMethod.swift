#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus

/// The methods of the vault service's interface, each described once: its arguments in and out. The
/// introspection the bus checks calls against (``VaultServiceInterface/introspectionXML``), the type
/// of the reply a client expects (``replyType``) and the request the service decodes
/// (``VaultServiceRequest``) are all made from it.
package enum VaultServiceMethod: String, CaseIterable, Sendable {
    case status = "Status"
    case attest = "Attest"
    case authenticate = "Authenticate"
    case authenticateOwner = "AuthenticateOwner"
    case cancelAuthentication = "CancelAuthentication"
    case revoke = "Revoke"
    case read = "Read"
    case write = "Write"
    case delete = "Delete"
    case lock = "Lock"
    case audit = "Audit"
    case list = "List"
    case registerPrompter = "RegisterPrompter"
    case cancelPrompt = "CancelPrompt"
    case sshKeys = "SSHKeys"
    case sshKeyGenerate = "SSHKeyGenerate"
    case sshKeyImport = "SSHKeyImport"
    case sshKeyDelete = "SSHKeyDelete"
    case sshSign = "SSHSign"

    /// One argument: its name in the introspection and its D-Bus type.
    package typealias Argument = DBusInterfaceDescription.Argument

    package var inputs: [Argument] {
        switch self {
        case .status, .cancelAuthentication, .lock, .registerPrompter, .sshKeys: []
        case .attest: [.init("token", "ay")]
        case .authenticate:
            [.init("policy", "s"), .init("reason", "s"), .init("service", "s"), .init("window", "u"), .init("scope", "s")]
        case .authenticateOwner: [.init("reason", "s")]
        case .revoke: [.init("grant", "ay")]
        case .read: [.init("service", "s"), .init("key", "s"), .init("grant", "ay")]
        case .write:
            [.init("service", "s"), .init("key", "s"), .init("header", "s"), .init("payload", "ay"),
             .init("condition", "s"), .init("expected", "s"), .init("grant", "ay")]
        case .delete: [.init("service", "s"), .init("key", "s")]
        case .audit: [.init("since", "t")]
        case .list: [.init("service", "s")]
        case .cancelPrompt: [.init("prompt", "t")]
        case .sshKeyGenerate: [.init("name", "s"), .init("type", "s"), .init("policy", "s")]
        case .sshKeyImport: [.init("name", "s"), .init("key", "ay"), .init("policy", "s"), .init("confirm", "b"), .init("lifetime", "u")]
        case .sshKeyDelete: [.init("name", "s")]
        case .sshSign:
            [.init("publicKey", "ay"), .init("data", "ay"), .init("flags", "u"), .init("binding", "ay"), .init("reason", "s"),
             .init("window", "u")]
        }
    }

    package var outputs: [Argument] {
        switch self {
        case .status: [.init("status", "a{sv}")]
        case .authenticate: [.init("grant", "ay"), .init("enrollment", "s")]
        case .read: [.init("found", "b"), .init("header", "s"), .init("released", "b"), .init("payload", "ay")]
        case .lock: [.init("closed", "u")]
        case .audit: [.init("entries", "as")]
        case .list: [.init("keys", "as"), .init("unreadable", "u")]
        case .sshKeys: [.init("keys", "a(sssbtb)")]
        case .sshKeyGenerate, .sshKeyImport: [.init("publicKey", "s")]
        case .sshSign: [.init("signature", "ay")]
        case .attest, .authenticateOwner, .cancelAuthentication, .revoke, .write, .delete, .registerPrompter, .cancelPrompt,
             .sshKeyDelete: []
        }
    }

    /// The type of the call's arguments as one tuple (`(ssay)`).
    package var inputType: String { inputs.tupleType }
    /// The type of the reply as one tuple (`(bsbay)`; `()` for none).
    package var replyType: String { outputs.tupleType }
}

/// A call to the vault service, decoded from the bus message once: the service acts on these, never on
/// a message's arguments by position. The payload of `write` is secret bytes, zeroed when the request
/// goes.
package enum VaultServiceRequest: Sendable {
    case status
    case attest(token: [UInt8])
    case authenticate(policy: String, reason: String, service: String, windowSeconds: UInt32, scope: String)
    case authenticateOwner(reason: String)
    case cancelAuthentication
    case revoke(grant: [UInt8])
    case read(service: String, key: String, grant: [UInt8])
    case write(service: String, key: String, header: String, payload: SecretBytes, condition: String, expected: String, grant: [UInt8])
    case delete(service: String, key: String)
    case lock
    case audit(since: UInt64)
    case list(service: String)
    case registerPrompter
    case cancelPrompt(prompt: UInt64)
    case sshKeys
    case sshKeyGenerate(name: String, type: String, policy: String)
    /// `key`: ``SSHPrivateKey/serialized``, secret bytes zeroed when the request goes.
    case sshKeyImport(name: String, key: SecretBytes, policy: String, confirm: Bool, lifetimeSeconds: UInt32)
    case sshKeyDelete(name: String)
    /// `binding`: the contents of the `session-bind@openssh.com` the agent's client sent on its
    /// connection (empty if none), which the service verifies itself; `reason`: the agent's own words.
    case sshSign(publicKey: [UInt8], data: [UInt8], flags: UInt32, binding: [UInt8], reason: String, windowSeconds: UInt32)

    /// A call the interface does not have, or whose arguments are not of its method's types.
    package struct Malformed: Error, Sendable, Equatable {
        /// What was wrong, in words, for the D-Bus error's message.
        package let message: String
    }

    /// The request that a call of `member` with `parameters` (the message's body, one tuple) makes.
    package init(member: String, parameters: DBusValue) throws(Malformed) {
        guard let method = VaultServiceMethod(rawValue: member) else {
            throw Malformed(message: "no method \(member)")
        }
        guard parameters.typeString == method.inputType else {
            throw Malformed(message: "\(member) takes \(method.inputType), not \(parameters.typeString)")
        }
        // The types are checked: every accessor below answers.
        func string(_ index: Int) -> String { parameters[index].string ?? "" }
        func bytes(_ index: Int) -> [UInt8] { parameters[index].bytes ?? [] }
        switch method {
        case .status: self = .status
        case .attest: self = .attest(token: bytes(0))
        case .authenticate:
            self = .authenticate(
                policy: string(0), reason: string(1), service: string(2), windowSeconds: parameters[3].uint32 ?? 0, scope: string(4))
        case .authenticateOwner: self = .authenticateOwner(reason: string(0))
        case .cancelAuthentication: self = .cancelAuthentication
        case .revoke: self = .revoke(grant: bytes(0))
        case .read: self = .read(service: string(0), key: string(1), grant: bytes(2))
        case .write:
            self = .write(
                service: string(0), key: string(1), header: string(2), payload: parameters[3].secretBytes ?? SecretBytes([]),
                condition: string(4), expected: string(5), grant: bytes(6))
        case .delete: self = .delete(service: string(0), key: string(1))
        case .lock: self = .lock
        case .audit: self = .audit(since: parameters[0].uint64 ?? 0)
        case .list: self = .list(service: string(0))
        case .registerPrompter: self = .registerPrompter
        case .cancelPrompt: self = .cancelPrompt(prompt: parameters[0].uint64 ?? 0)
        case .sshKeys: self = .sshKeys
        case .sshKeyGenerate: self = .sshKeyGenerate(name: string(0), type: string(1), policy: string(2))
        case .sshKeyImport:
            self = .sshKeyImport(
                name: string(0), key: parameters[1].secretBytes ?? SecretBytes([]), policy: string(2), confirm: parameters[3].bool ?? false,
                lifetimeSeconds: parameters[4].uint32 ?? 0)
        case .sshKeyDelete: self = .sshKeyDelete(name: string(0))
        case .sshSign:
            self = .sshSign(
                publicKey: bytes(0), data: bytes(1), flags: parameters[2].uint32 ?? 0, binding: bytes(3), reason: string(4),
                windowSeconds: parameters[5].uint32 ?? 0)
        }
    }

    /// The call's arguments as the interface describes them: what a client sends, and what the service
    /// decoded.
    package var arguments: DBusArgument {
        switch self {
        case .status, .cancelAuthentication, .lock, .registerPrompter, .sshKeys: .tuple([])
        case .attest(let token): .tuple([.bytes(token)])
        case .authenticate(let policy, let reason, let service, let windowSeconds, let scope):
            .tuple([.string(policy), .string(reason), .string(service), .uint32(windowSeconds), .string(scope)])
        case .authenticateOwner(let reason): .tuple([.string(reason)])
        case .revoke(let grant): .tuple([.bytes(grant)])
        case .read(let service, let key, let grant): .tuple([.string(service), .string(key), .bytes(grant)])
        case .write(let service, let key, let header, let payload, let condition, let expected, let grant):
            .tuple([.string(service), .string(key), .string(header), .secretBytes(payload), .string(condition), .string(expected), .bytes(grant)])
        case .delete(let service, let key): .tuple([.string(service), .string(key)])
        case .audit(let since): .tuple([.uint64(since)])
        case .list(let service): .tuple([.string(service)])
        case .cancelPrompt(let prompt): .tuple([.uint64(prompt)])
        case .sshKeyGenerate(let name, let type, let policy): .tuple([.string(name), .string(type), .string(policy)])
        case .sshKeyImport(let name, let key, let policy, let confirm, let lifetimeSeconds):
            .tuple([.string(name), .secretBytes(key), .string(policy), .bool(confirm), .uint32(lifetimeSeconds)])
        case .sshKeyDelete(let name): .tuple([.string(name)])
        case .sshSign(let publicKey, let data, let flags, let binding, let reason, let windowSeconds):
            .tuple([.bytes(publicKey), .bytes(data), .uint32(flags), .bytes(binding), .string(reason), .uint32(windowSeconds)])
        }
    }

    /// The method it calls.
    package var method: VaultServiceMethod {
        switch self {
        case .status: .status
        case .attest: .attest
        case .authenticate: .authenticate
        case .authenticateOwner: .authenticateOwner
        case .cancelAuthentication: .cancelAuthentication
        case .revoke: .revoke
        case .read: .read
        case .write: .write
        case .delete: .delete
        case .lock: .lock
        case .audit: .audit
        case .list: .list
        case .registerPrompter: .registerPrompter
        case .cancelPrompt: .cancelPrompt
        case .sshKeys: .sshKeys
        case .sshKeyGenerate: .sshKeyGenerate
        case .sshKeyImport: .sshKeyImport
        case .sshKeyDelete: .sshKeyDelete
        case .sshSign: .sshSign
        }
    }
}

/// The signals of the vault service's interface, each described once (its arguments), as
/// ``VaultServiceMethod`` describes the methods. The service sends each to one connection only, never to
/// the whole bus: the prompter the user registered (``VaultServiceMethod/registerPrompter``), or, for
/// ``checkStarted``, the connection whose call the check is for.
package enum VaultServiceSignal: String, CaseIterable, Sendable {
    /// A check began: what to show, in the service's words (who asks, for what, how to answer).
    case promptShown = "PromptShown"
    /// The check ended, however it ended: the prompt goes.
    case promptWithdrawn = "PromptWithdrawn"
    /// Another program of the user registered as its prompter and takes the prompts from now on.
    case prompterReplaced = "PrompterReplaced"
    /// A check for the caller's own call begins (`finger` or `password`): a call answered without one
    /// (inside a window) gets no such signal, so a program shows its own prompt only on this.
    case checkStarted = "CheckStarted"

    package var arguments: [VaultServiceMethod.Argument] {
        switch self {
        case .promptShown: [.init("prompt", "t"), .init("summary", "s"), .init("body", "s")]
        case .promptWithdrawn: [.init("prompt", "t"), .init("outcome", "s")]
        case .prompterReplaced: [.init("by", "s")]
        case .checkStarted: [.init("check", "s"), .init("reason", "s")]
        }
    }

    /// The type of its arguments as one tuple.
    package var type: String { arguments.tupleType }
}

/// One signal of ``VaultServiceSignal`` with its values: what the service sends a prompter or a caller,
/// and what they decode (refusing a signal whose name or types are not the interface's).
package enum VaultServicePromptEvent: Sendable, Equatable {
    case shown(prompt: UInt64, summary: String, body: String)
    case withdrawn(prompt: UInt64, outcome: String)
    case replaced(by: String)
    /// `reason` is the one the call gave, so a program with several calls in flight knows which.
    case checkStarted(AuthenticationCheck, reason: String)

    /// The event a signal `member` with `parameters` (its body, one tuple) carries; `nil` for any other.
    package init?(member: String, parameters: DBusValue) {
        guard let signal = VaultServiceSignal(rawValue: member), parameters.typeString == signal.type else { return nil }
        switch signal {
        case .promptShown:
            self = .shown(prompt: parameters[0].uint64 ?? 0, summary: parameters[1].string ?? "", body: parameters[2].string ?? "")
        case .promptWithdrawn: self = .withdrawn(prompt: parameters[0].uint64 ?? 0, outcome: parameters[1].string ?? "")
        case .prompterReplaced: self = .replaced(by: parameters[0].string ?? "")
        case .checkStarted:
            guard let check = parameters[0].string.flatMap(AuthenticationCheck.init(rawValue:)) else { return nil }
            self = .checkStarted(check, reason: parameters[1].string ?? "")
        }
    }

    package var signal: VaultServiceSignal {
        switch self {
        case .shown: .promptShown
        case .withdrawn: .promptWithdrawn
        case .replaced: .prompterReplaced
        case .checkStarted: .checkStarted
        }
    }

    /// Its values as the interface describes them.
    package var arguments: DBusArgument {
        switch self {
        case .shown(let prompt, let summary, let body): .tuple([.uint64(prompt), .string(summary), .string(body)])
        case .withdrawn(let prompt, let outcome): .tuple([.uint64(prompt), .string(outcome)])
        case .replaced(let by): .tuple([.string(by)])
        case .checkStarted(let check, let reason): .tuple([.string(check.rawValue), .string(reason)])
        }
    }
}
#endif
