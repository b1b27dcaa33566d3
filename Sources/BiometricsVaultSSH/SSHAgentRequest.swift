import BiometricsVaultCore

/// A request a client sends the SSH agent (draft-miller-ssh-agent, RFC 9987), with OpenSSH's extensions
/// (PROTOCOL.agent). The number after each case is its message type.
///
/// Its `description` names the request and the key's fingerprint, never a private key, a passphrase, the
/// data to sign or a comment.
package enum SSHAgentRequest: Sendable, Equatable, CustomStringConvertible {
    /// SSH_AGENTC_REQUEST_IDENTITIES, 11.
    case requestIdentities
    /// SSH_AGENTC_SIGN_REQUEST, 13: sign `data` with the key whose public blob is `keyBlob`; `flags` asks
    /// for an RSA signature algorithm (``rsaSHA256Flag``, ``rsaSHA512Flag``).
    case sign(keyBlob: [UInt8], data: [UInt8], flags: UInt32)
    /// SSH_AGENTC_ADD_IDENTITY, 17, or, with constraints, SSH_AGENTC_ADD_ID_CONSTRAINED, 25.
    case addIdentity(key: SSHPrivateKey, comment: String, constraints: [SSHAgentConstraint])
    /// SSH_AGENTC_REMOVE_IDENTITY, 18.
    case removeIdentity(keyBlob: [UInt8])
    /// SSH_AGENTC_REMOVE_ALL_IDENTITIES, 19.
    case removeAllIdentities
    /// SSH_AGENTC_ADD_SMARTCARD_KEY, 20, or its constrained form, 26. Recognised only so that the agent
    /// can refuse it: its fields (a PKCS#11 provider and its PIN) are not read.
    case addSmartcardKey
    /// SSH_AGENTC_REMOVE_SMARTCARD_KEY, 21. Recognised only to be refused; its fields are not read.
    case removeSmartcardKey
    /// SSH_AGENTC_LOCK, 22.
    case lock(passphrase: SecretBytes)
    /// SSH_AGENTC_UNLOCK, 23.
    case unlock(passphrase: SecretBytes)
    /// SSH_AGENTC_EXTENSION, 27: the extension's name, and the rest of the message, whose form the
    /// extension defines (``SSHSessionBind`` for `session-bind@openssh.com`).
    case `extension`(name: String, contents: [UInt8])

    /// SSH_AGENT_RSA_SHA2_256: sign with `rsa-sha2-256`.
    package static let rsaSHA256Flag: UInt32 = 0x02
    /// SSH_AGENT_RSA_SHA2_512: sign with `rsa-sha2-512`.
    package static let rsaSHA512Flag: UInt32 = 0x04
    /// The name of OpenSSH's extension that binds a connection to the server's host key.
    package static let sessionBindExtension = "session-bind@openssh.com"

    /// Decodes one message's body (the bytes after the frame's length): its first byte is the type.
    /// An unknown type, a malformed or truncated field, a key that fails its checks
    /// (``SSHPrivateKey/init(agentFields:)``), an unknown constraint, or bytes after the message are
    /// refused.
    package init(body: [UInt8]) throws(SSHError) {
        guard let type = body.first else { throw SSHError("an empty message") }
        var reader = SSHReader(Array(body.dropFirst()))
        // The body may hold a private key or a passphrase.
        defer { reader.wipe() }
        switch type {
        case 11:
            self = .requestIdentities
        case 13:
            let keyBlob = try reader.readString()
            let data = try reader.readString()
            self = .sign(keyBlob: keyBlob, data: data, flags: try reader.readUInt32())
        case 17, 25:
            let key = try SSHPrivateKey(agentFields: &reader)
            let comment = try reader.readUTF8()
            var constraints: [SSHAgentConstraint] = []
            if type == 25 {
                while !reader.isAtEnd {
                    let constraint = try SSHAgentConstraint(reader: &reader)
                    guard !constraints.contains(where: { $0.isSameKind(as: constraint) }) else {
                        throw SSHError("the \(constraint.kindName) constraint is given twice")
                    }
                    constraints.append(constraint)
                }
            }
            self = .addIdentity(key: key, comment: comment, constraints: constraints)
        case 18:
            self = .removeIdentity(keyBlob: try reader.readString())
        case 19:
            self = .removeAllIdentities
        case 20, 26:
            _ = reader.readRemaining()
            self = .addSmartcardKey
        case 21:
            _ = reader.readRemaining()
            self = .removeSmartcardKey
        case 22, 23:
            var passphrase = try reader.readString()
            defer { wipeBytes(&passphrase) }
            self = type == 22 ? .lock(passphrase: SecretBytes(passphrase)) : .unlock(passphrase: SecretBytes(passphrase))
        case 27:
            let name = try reader.readUTF8()
            self = .extension(name: name, contents: reader.readRemaining())
        default:
            throw SSHError("unknown message type \(type)")
        }
        try reader.expectEnd("the message (type \(type))")
    }

    /// The message's type number.
    package var messageType: UInt8 {
        switch self {
        case .requestIdentities: 11
        case .sign: 13
        case .addIdentity(_, _, let constraints): constraints.isEmpty ? 17 : 25
        case .removeIdentity: 18
        case .removeAllIdentities: 19
        case .addSmartcardKey: 20
        case .removeSmartcardKey: 21
        case .lock: 22
        case .unlock: 23
        case .extension: 27
        }
    }

    /// The message's body, as a client sends it (``init(body:)`` reads it back to an equal request).
    /// The smartcard requests are written with an empty provider and PIN.
    ///
    /// - Important: the body of `addIdentity`, `lock` and `unlock` holds the secret: keep it no longer
    ///   than the write to the socket.
    package var body: [UInt8] {
        var writer = SSHWriter()
        writer.write(byte: messageType)
        switch self {
        case .requestIdentities, .removeAllIdentities:
            break
        case .sign(let keyBlob, let data, let flags):
            writer.write(string: keyBlob)
            writer.write(string: data)
            writer.write(uint32: flags)
        case .addIdentity(let key, let comment, let constraints):
            key.writeAgentFields(to: &writer)
            writer.write(utf8: comment)
            for constraint in constraints { constraint.write(to: &writer) }
        case .removeIdentity(let keyBlob):
            writer.write(string: keyBlob)
        case .addSmartcardKey, .removeSmartcardKey:
            writer.write(utf8: "")
            writer.write(utf8: "")
        case .lock(let passphrase), .unlock(let passphrase):
            passphrase.withUnsafeBytes { writer.write(string: $0) }
        case .extension(let name, let contents):
            writer.write(utf8: name)
            writer.write(raw: contents)
        }
        return writer.bytes
    }

    package var description: String {
        switch self {
        case .requestIdentities: "request identities"
        case .sign(let keyBlob, let data, let flags): "sign \(data.count) bytes with \(Self.describe(keyBlob: keyBlob)), flags \(flags)"
        case .addIdentity(let key, _, let constraints): "add \(key.publicKey) with \(constraints.count) constraints"
        case .removeIdentity(let keyBlob): "remove \(Self.describe(keyBlob: keyBlob))"
        case .removeAllIdentities: "remove all identities"
        case .addSmartcardKey: "add smartcard key"
        case .removeSmartcardKey: "remove smartcard key"
        case .lock: "lock (passphrase redacted)"
        case .unlock: "unlock (passphrase redacted)"
        case .extension(let name, let contents): "extension \(SSHError.quoted(name)) with \(contents.count) bytes"
        }
    }

    private static func describe(keyBlob: [UInt8]) -> String {
        (try? SSHPublicKey(blob: keyBlob))?.description ?? "a key blob of \(keyBlob.count) bytes"
    }
}

/// A constraint on a key added with SSH_AGENTC_ADD_ID_CONSTRAINED (the number is its type).
package enum SSHAgentConstraint: Sendable, Equatable {
    /// SSH_AGENT_CONSTRAIN_LIFETIME, 1: forget the key after this many seconds.
    case lifetime(seconds: UInt32)
    /// SSH_AGENT_CONSTRAIN_CONFIRM, 2: confirm each use of the key.
    case confirm
    /// SSH_AGENT_CONSTRAIN_MAXSIGN, 3 (OpenSSH): at most this many signatures.
    case maxSignatures(UInt32)
    /// SSH_AGENT_CONSTRAIN_EXTENSION, 255: a named extension and its fields as they were on the wire. Only
    /// the extensions whose fields OpenSSH defines are read (their length is not on the wire):
    /// ``knownExtensions``; any other is refused.
    case `extension`(name: String, contents: [UInt8])

    /// The constraint extensions read, with OpenSSH's fields for each: `sk-provider@openssh.com` (string
    /// provider), `restrict-destination-v00@openssh.com` (string constraints),
    /// `associated-certs-v00@openssh.com` (byte certificates-only, string certificates).
    package static let knownExtensions = [
        "sk-provider@openssh.com", "restrict-destination-v00@openssh.com", "associated-certs-v00@openssh.com",
    ]

    init(reader: inout SSHReader) throws(SSHError) {
        let kind = try reader.readByte()
        switch kind {
        case 1: self = .lifetime(seconds: try reader.readUInt32())
        case 2: self = .confirm
        case 3: self = .maxSignatures(try reader.readUInt32())
        case 255:
            let name = try reader.readUTF8()
            var fields = SSHWriter()
            switch name {
            case "sk-provider@openssh.com", "restrict-destination-v00@openssh.com":
                fields.write(string: try reader.readString())
            case "associated-certs-v00@openssh.com":
                fields.write(byte: try reader.readByte())
                fields.write(string: try reader.readString())
            default:
                throw SSHError("unknown constraint extension \(SSHError.quoted(name))")
            }
            self = .extension(name: name, contents: fields.bytes)
        default:
            throw SSHError("unknown constraint type \(kind)")
        }
    }

    func write(to writer: inout SSHWriter) {
        switch self {
        case .lifetime(let seconds):
            writer.write(byte: 1)
            writer.write(uint32: seconds)
        case .confirm:
            writer.write(byte: 2)
        case .maxSignatures(let count):
            writer.write(byte: 3)
            writer.write(uint32: count)
        case .extension(let name, let contents):
            writer.write(byte: 255)
            writer.write(utf8: name)
            writer.write(raw: contents)
        }
    }

    /// Whether both constrain the same thing (the same type, or the same extension).
    func isSameKind(as other: SSHAgentConstraint) -> Bool {
        kindName == other.kindName
    }

    var kindName: String {
        switch self {
        case .lifetime: "lifetime"
        case .confirm: "confirm"
        case .maxSignatures: "maximum signatures"
        case .extension(let name, _): SSHError.quoted(name)
        }
    }
}
